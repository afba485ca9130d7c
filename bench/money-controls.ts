/**
 * What the money controls cost a money move (issue 29), one run: REST settles of fresh payables
 * in a workspace with no controls against a workspace with three spending limits (per move,
 * 24 h, 1 h), interleaved so the machine's noise falls on both alike; median and p90 per settle,
 * and their ratio. With limits a settle also reads the configuration twice, measures the call
 * before and inside its transaction, counts two windows and writes one money_moves row (on
 * PostgreSQL under the workspace's advisory lock). A script, not a test (docs/architecture.md#conventions).
 * Usage: node --import tsx bench/money-controls.ts [--settles 200]   (DATABASE_URL for PostgreSQL)
 */
import { parseArgs } from 'node:util';
import { startTestApp } from '../test/helpers/test-app.js';
import { DEMO } from '../src/seed/ids.js';

const { values } = parseArgs({ options: { settles: { type: 'string', default: '200' } } });
const SETTLES = Number(values.settles);

const quantile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;

async function main(): Promise<void> {
  const app = await startTestApp({ config: { logLevel: 'silent' } });
  try {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write finance.security.write', aud: 'api', ttlSeconds: 3600 });
    const call = async (workspace: string, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${app.url}${path}`, {
        method, headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = (await res.json()) as Record<string, any>;
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const controlled = DEMO.workspaces.filial;
    const plain = DEMO.workspaces.matriz;
    await call(controlled, 'PATCH', '/v1/security-settings', {
      money_controls: { limits: [{ window: 'move', amount: '999999.00' }, { window: '24h', amount: '999999999.00' }, { window: '1h', count: 100000 }] },
    });
    const setup = async (workspace: string) => {
      const vendor = await app.services.db.selectFrom('people').select('id').where('workspace_id', '=', workspace).where('is_supplier', '=', 1).orderBy('id').executeTakeFirstOrThrow();
      const account = await call(workspace, 'POST', '/v1/accounts', { name: `Bench ${Date.now()}`, type: 'checking' });
      const ids: string[] = [];
      for (let i = 0; i < SETTLES; i += 1) {
        ids.push((await call(workspace, 'POST', '/v1/payables', { description: `bench ${i}`, amount: '10.00', due_date: '2026-06-10', financial_account_id: account['id'], person_id: vendor.id }))['id']);
      }
      return ids;
    };
    const ids = { plain: await setup(plain), controlled: await setup(controlled) };
    const times = { plain: [] as number[], controlled: [] as number[] };
    for (let i = 0; i < SETTLES; i += 1) {
      for (const side of (i % 2 === 0 ? ['plain', 'controlled'] : ['controlled', 'plain']) as ('plain' | 'controlled')[]) {
        const started = process.hrtime.bigint();
        await call(side === 'plain' ? plain : controlled, 'POST', `/v1/payables/${ids[side][i]}/settle`, { payment_date: '2026-06-10' });
        times[side].push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }
    const report = (side: 'plain' | 'controlled') => {
      const sorted = [...times[side]].sort((a, b) => a - b);
      return { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
    };
    const [p, c] = [report('plain'), report('controlled')];
    const db = process.env['DATABASE_URL'] ? 'PostgreSQL' : 'SQLite';
    console.log(`${db}, ${SETTLES} settles each: no controls p50 ${p.p50.toFixed(2)} ms p90 ${p.p90.toFixed(2)} ms; three limits p50 ${c.p50.toFixed(2)} ms p90 ${c.p90.toFixed(2)} ms; ratio p50 ${(c.p50 / p.p50).toFixed(2)}, p90 ${(c.p90 / p.p90).toFixed(2)}`);
  } finally {
    await app.close();
  }
}

await main();
