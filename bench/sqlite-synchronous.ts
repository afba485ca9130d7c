/**
 * The cost of durable commits on the embedded SQLite file (docs/operations.md, R2 of issue 25):
 * `synchronous = FULL` (as shipped: the WAL is synced at every commit) against `NORMAL`
 * (better-sqlite3's build default in WAL mode: synced only at checkpoints, so the last commits
 * can be lost on a power cut). One database opened as the server opens it (src/store/db.ts),
 * migrated and seeded; each write is one transaction shaped like a create (an account row and
 * its activity row). The two settings run in turn, ROUNDS times, so the machine's load drifts
 * over both alike; reported: writes per second and µs per write (median of rounds, and the
 * p50/p99 of single writes over all rounds), and the FULL/NORMAL ratio.
 *
 * With `--http` each write is instead a real `POST /v1/accounts` to the app (test harness:
 * SQLite file, embedded Account, demo seed), one at a time, so the sync is seen against a whole
 * request.
 *
 *   node --import tsx bench/sqlite-synchronous.ts [--writes 2000] [--rounds 5] [--dir /path/on/the/disk/to/measure] [--http]
 *
 * `--dir` must be on the file system the data folder will live on: a tmpfs syncs for free
 * (with `--http` the app's data folder is under the system's temporary folder).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { buildTestConfig } from '../test/helpers/database.js';
import { startTestApp } from '../test/helpers/test-app.js';
import { openDatabase } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { seedDemoData } from '../src/seed/index.js';
import { DEMO } from '../src/seed/ids.js';
import type { Database } from '../src/store/schema.js';

const { values } = parseArgs({
  options: {
    writes: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '5' },
    dir: { type: 'string', default: os.tmpdir() },
    http: { type: 'boolean', default: false },
  },
});
const writes = Number(values.writes);
const rounds = Number(values.rounds);

type Setting = 'NORMAL' | 'FULL';

/** One create's transaction: the record and its activity entry (src/api/audit.ts). */
async function writeOnce(db: Kysely<Database>, index: number): Promise<void> {
  const now = new Date().toISOString();
  const id = randomUUID();
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('accounts').values({
      id, workspace_id: DEMO.workspaces.matriz, name: `Bench ${index}`, type: 'checking', bank_code: null, agency: null, account_number: null, active: 1,
      created_at: now, updated_at: now, created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'api', updated_via: 'api', version: 1,
    }).execute();
    await trx.insertInto('activity').values({
      id: randomUUID(), workspace_id: DEMO.workspaces.matriz, person_id: DEMO.persons.ana, channel: 'api',
      operation: 'accounts.create', resource: 'accounts', record_id: id, created_at: now,
    }).execute();
  });
}

interface Round { readonly writesPerSecond: number; readonly latenciesUs: number[] }

type Write = (index: number) => Promise<void>;

async function runRound(db: Kysely<Database>, write: Write, setting: Setting, offset: number): Promise<Round> {
  await sql.raw(`pragma synchronous = ${setting}`).execute(db);
  const latenciesUs: number[] = [];
  const started = performance.now();
  for (let i = 0; i < writes; i += 1) {
    const before = performance.now();
    await write(offset + i);
    latenciesUs.push((performance.now() - before) * 1_000);
  }
  return { writesPerSecond: writes / ((performance.now() - started) / 1_000), latenciesUs };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** The database to write to, how one write is made, and how to let go of both. */
interface Target { readonly db: Kysely<Database>; readonly write: Write; readonly where: string; close(): Promise<void> }

async function openStore(): Promise<Target> {
  const dataDir = fs.mkdtempSync(path.join(values.dir, 'kobana-bench-sync-'));
  const store = await openDatabase(buildTestConfig({ dataDir, databaseUrl: null }));
  await migrateToLatest(store.db);
  await seedDemoData(store.db);
  return {
    db: store.db, write: (index) => writeOnce(store.db, index), where: `in process, data folder ${dataDir}`,
    async close() {
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function openApp(): Promise<Target> {
  // The bench process is the server: no Redis, no PostgreSQL, whatever the environment says.
  const app = await startTestApp({ config: { databaseUrl: null, redisUrl: null } });
  const token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', aud: 'api' });
  const headers = { authorization: `Bearer ${token}`, 'x-workspace-id': DEMO.workspaces.matriz, 'content-type': 'application/json' };
  return {
    db: app.services.db,
    where: `POST /v1/accounts to ${app.url}`,
    async write(index) {
      const response = await fetch(`${app.url}/v1/accounts`, { method: 'POST', headers, body: JSON.stringify({ name: `Bench ${index}`, type: 'checking' }) });
      if (response.status !== 201) throw new Error(`POST /v1/accounts answered ${response.status}`);
      await response.arrayBuffer();
    },
    close: () => app.close(),
  };
}

async function main(): Promise<void> {
  const target = await (values.http ? openApp() : openStore());
  const { db, write } = target;
  try {
    const results: Record<Setting, Round[]> = { NORMAL: [], FULL: [] };
    let offset = 0;
    // Warm-up (statements prepared, pages cached) on both settings.
    for (const setting of ['NORMAL', 'FULL'] as const) await runRound(db, write, setting, (offset += writes));
    for (let round = 0; round < rounds; round += 1) {
      for (const setting of ['NORMAL', 'FULL'] as const) results[setting].push(await runRound(db, write, setting, (offset += writes)));
    }
    console.log(`${new Date().toISOString()}, Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`${target.where}; ${writes} writes per round, ${rounds} rounds per setting, settings in turn\n`);
    console.log('| synchronous | writes/s (median of rounds) | µs per write (median of rounds) | p50 µs | p99 µs |');
    console.log('|---|---:|---:|---:|---:|');
    const medians: Record<Setting, number> = { NORMAL: 0, FULL: 0 };
    for (const setting of ['NORMAL', 'FULL'] as const) {
      const perRound = results[setting].map((r) => r.writesPerSecond);
      const all = results[setting].flatMap((r) => r.latenciesUs);
      medians[setting] = percentile(perRound, 50);
      console.log(`| ${setting} | ${medians[setting].toFixed(0)} | ${(1e6 / medians[setting]).toFixed(0)} | ${percentile(all, 50).toFixed(0)} | ${percentile(all, 99).toFixed(0)} |`);
    }
    const ratios = results.FULL.map((full, i) => (results.NORMAL[i]?.writesPerSecond ?? 0) / full.writesPerSecond);
    console.log(`\nNORMAL/FULL writes per second, per round: ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${percentile(ratios, 50).toFixed(2)})`);
  } finally {
    await target.close();
  }
}

await main();
