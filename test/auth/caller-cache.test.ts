/**
 * The per-process caller cache (src/auth/caller.ts) and the queries of one read: a `*_get` call
 * is one finance query plus one identity-version lookup once the caller is cached, and the cache
 * never serves a membership the database no longer holds — changed through this app's database
 * handle (SQLite and PostgreSQL) or through another replica on the same PostgreSQL database.
 * Queries are counted with the store's query observer (Kysely's log hook): SQL text only.
 */
import { expect } from 'chai';
import { observeQueries } from '../../src/store/db.js';
import { BRUNO_MEMBERSHIP_ID } from '../../src/seed/ids.js';
import { skipWithReason } from '../helpers/mocha.js';
import { createTestSchema, startTestApp, DEMO, type TestApp, type TestSchema } from '../helpers/index.js';
import { modernRequest, postMcp } from '../mcp/support/wire.js';

interface ToolAnswer { readonly isError: boolean; readonly body: Record<string, unknown> }

async function callTool(app: TestApp, token: string, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const { body, headers } = modernRequest(1, 'tools/call', { name, arguments: args });
  const res = await postMcp(`${app.url}/mcp`, body, { authorization: `Bearer ${token}`, ...headers });
  expect(res.status, res.text).to.equal(200);
  const result = (res.json as { result: { isError?: boolean; content: { text: string }[] } }).result;
  return { isError: result.isError === true, body: JSON.parse(result.content[0]?.text ?? 'null') as Record<string, unknown> };
}

/** The SQL texts `run` sent, in order. */
async function recordQueries(app: TestApp, run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const stop = observeQueries(app.services.db, (sqlText) => seen.push(sqlText));
  try {
    await run();
  } finally {
    stop();
  }
  return seen;
}

/** The table of the statement's own FROM (subqueries in parentheses are skipped). */
function firstTable(sqlText: string): string {
  let flat = sqlText;
  for (let prev = ''; prev !== flat;) {
    prev = flat;
    flat = flat.replace(/\([^()]*\)/g, '');
  }
  return /\bfrom\s+"?(\w+)"?/i.exec(flat)?.[1] ?? sqlText;
}

async function findPayableId(app: TestApp): Promise<string> {
  const row = await app.services.db.selectFrom('titles').select('id')
    .where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable').orderBy('id').executeTakeFirstOrThrow();
  return row.id;
}

async function setBrunoPermissions(app: TestApp, permissions: string[]): Promise<void> {
  await app.services.db.updateTable('memberships').set({ permissions: JSON.stringify(permissions) })
    .where('organization_id', '=', DEMO.organizationId).where('person_id', '=', DEMO.persons.bruno).execute();
}

describe('caller cache and the queries of one read', () => {
  let app: TestApp;
  let payableId: string;
  let admin: string;
  let bruno: string;

  before(async () => {
    app = await startTestApp({ config: { logLevel: 'silent' } });
    payableId = await findPayableId(app);
    admin = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
    bruno = await app.mintToken({ person: DEMO.emails.bruno, scope: 'finance.payables' });
  });
  after(async () => {
    await app?.close();
  });

  it('a cached caller\'s finance_payables_get (2026-07-28) is one identity-version lookup and one finance query', async () => {
    const args = { workspace_id: DEMO.workspaces.matriz, id: payableId };
    const first = await callTool(app, admin, 'finance_payables_get', args);
    expect(first.isError, JSON.stringify(first.body)).to.equal(false);
    const queries = await recordQueries(app, async () => {
      const again = await callTool(app, admin, 'finance_payables_get', args);
      expect(again.body).to.deep.equal(first.body);
    });
    expect(queries.map(firstTable)).to.deep.equal(['identity_versions', 'titles']);
  });

  it('REST GET /v1/payables/{id} of a cached caller runs the same two queries', async () => {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', aud: 'api' });
    const get = () => fetch(`${app.url}/v1/payables/${payableId}`, { headers: { authorization: `Bearer ${token}`, 'x-workspace-id': DEMO.workspaces.matriz } });
    expect((await get()).status).to.equal(200);
    const queries = await recordQueries(app, async () => expect((await get()).status).to.equal(200));
    expect(queries.map(firstTable)).to.deep.equal(['identity_versions', 'titles']);
  });

  it('a caller not yet cached is loaded in one query (membership, workspaces and version together)', async () => {
    app.services.auth.clearCaches();
    const queries = await recordQueries(app, () => callTool(app, admin, 'finance_payables_get', { workspace_id: DEMO.workspaces.matriz, id: payableId }));
    // persons and organizations: the token subject check (cached 5 s), cleared with the caches above.
    expect(queries.map(firstTable).filter((t) => t !== 'persons' && t !== 'organizations')).to.deep.equal(['memberships', 'titles']);
  });

  it('never serves a revoked permission, a removed workspace grant or an inactive membership from the cache', async () => {
    const args = { workspace_id: DEMO.workspaces.matriz, id: payableId };
    try {
      expect((await callTool(app, bruno, 'finance_payables_get', args)).isError).to.equal(false);
      await setBrunoPermissions(app, ['receivables.view']);
      const refused = await callTool(app, bruno, 'finance_payables_get', args);
      expect(refused.isError).to.equal(true);
      expect(JSON.stringify(refused.body)).to.contain('insufficient_permission');

      await setBrunoPermissions(app, ['payables.view']);
      expect((await callTool(app, bruno, 'finance_payables_get', args)).isError).to.equal(false);
      await app.services.db.deleteFrom('membership_workspaces').where('membership_id', '=', BRUNO_MEMBERSHIP_ID).execute();
      const ungranted = await callTool(app, bruno, 'finance_payables_get', args);
      expect(JSON.stringify(ungranted.body)).to.contain('workspace_access_denied');

      await app.services.db.insertInto('membership_workspaces').values({ membership_id: BRUNO_MEMBERSHIP_ID, workspace_id: DEMO.workspaces.matriz }).execute();
      expect((await callTool(app, bruno, 'finance_payables_get', args)).isError).to.equal(false);
      await app.services.db.updateTable('memberships').set({ status: 'inactive' }).where('id', '=', BRUNO_MEMBERSHIP_ID).execute();
      expect(JSON.stringify((await callTool(app, bruno, 'finance_payables_get', args)).body)).to.contain('membership_inactive');
    } finally {
      await app.services.db.updateTable('memberships').set({ status: 'active', permissions: JSON.stringify(['payables.view', 'receivables.view']) })
        .where('id', '=', BRUNO_MEMBERSHIP_ID).execute();
      await app.services.db.insertInto('membership_workspaces').values({ membership_id: BRUNO_MEMBERSHIP_ID, workspace_id: DEMO.workspaces.matriz })
        .onConflict((oc) => oc.doNothing()).execute();
    }
  });
});

describe('caller cache across replicas (PostgreSQL)', function () {
  const cleanups: Array<() => Promise<void>> = [];

  beforeEach(function () {
    if (!process.env.DATABASE_URL) skipWithReason(this, 'DATABASE_URL is unset; replicas share one database on PostgreSQL only');
  });
  afterEach(async () => {
    // Apps before the schema they share: the last registered closes first.
    while (cleanups.length > 0) await (cleanups.pop() as () => Promise<void>)();
  });

  async function startReplica(schema: TestSchema): Promise<TestApp> {
    // Replicas behind one load balancer share PUBLIC_URL, so a token of one is valid on the other.
    const app = await startTestApp({
      config: { databaseUrl: schema.databaseUrl, publicUrl: 'http://finance.replicas.test', accountIssuer: null, accountJwksUrl: null, logLevel: 'silent' },
    });
    cleanups.push(() => app.close());
    return app;
  }

  it('a permission revoked through replica A is refused by replica B at its next call', async () => {
    const schema = await createTestSchema();
    cleanups.push(() => schema.drop());
    const a = await startReplica(schema);
    const b = await startReplica(schema);
    const token = await a.mintToken({ person: DEMO.emails.bruno, scope: 'finance.payables' });
    const args = { workspace_id: DEMO.workspaces.matriz, id: await findPayableId(a) };

    // B caches Bruno's membership (two calls: the second one is served from the cache).
    expect((await callTool(b, token, 'finance_payables_get', args)).isError).to.equal(false);
    const cachedQueries = await recordQueries(b, () => callTool(b, token, 'finance_payables_get', args));
    expect(cachedQueries.map(firstTable)).to.deep.equal(['identity_versions', 'titles']);

    await setBrunoPermissions(a, ['receivables.view']);
    const refused = await callTool(b, token, 'finance_payables_get', args);
    expect(refused.isError).to.equal(true);
    expect(JSON.stringify(refused.body)).to.contain('insufficient_permission');

    await setBrunoPermissions(a, ['payables.view']);
    expect((await callTool(b, token, 'finance_payables_get', args)).isError).to.equal(false);
  });
});
