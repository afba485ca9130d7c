import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { FINANCE_TABLES, WorkspaceGuardError, withoutWorkspaceGuard } from '../../src/store/workspace-guard.js';
import { openTestDatabase, DEMO, type TestDatabase } from '../helpers/index.js';

const WS = DEMO.workspaces.matriz;

async function expectGuarded(run: () => Promise<unknown>, table: string): Promise<void> {
  // Kysely transforms a subquery when it is built, so the guard may throw before execute().
  const caught = await Promise.resolve().then(run).then(() => undefined, (err: unknown) => err);
  expect(caught, `a query on ${table} without workspace_id ran`).to.be.instanceOf(WorkspaceGuardError);
  expect((caught as WorkspaceGuardError).table).to.equal(table);
}

function auditValues(now: string) {
  return { created_at: now, updated_at: now, created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'api' as const, updated_via: 'api' as const, version: 1 };
}

describe('workspace guard (every finance query is scoped by workspace_id)', () => {
  let store: TestDatabase;
  before(async () => {
    store = await openTestDatabase({ seed: true });
  });
  after(async () => {
    await store?.close();
  });

  it('guards every table that has a workspace_id column, but for the identity tables that say who reaches a workspace', async () => {
    // A new table with rows of one workspace is guarded only once it is named in FINANCE_TABLES:
    // this fails until it is, instead of leaving it open.
    const IDENTITY = new Set(['membership_workspaces']);
    const tables = await withoutWorkspaceGuard(store.db).introspection.getTables();
    const withWorkspace = tables.filter((t) => t.columns.some((c) => c.name === 'workspace_id')).map((t) => t.name);
    expect(withWorkspace.length).to.be.greaterThan(10);
    expect(withWorkspace.filter((name) => !FINANCE_TABLES.has(name) && !IDENTITY.has(name)).sort()).to.deep.equal([]);
  });

  it('refuses a select on every finance table without workspace_id', async () => {
    for (const table of FINANCE_TABLES) {
      await expectGuarded(() => store.db.selectFrom(table as 'titles').selectAll().execute(), table);
    }
  });

  it('runs a select on every finance table scoped by workspace_id', async () => {
    for (const table of FINANCE_TABLES) {
      const rows = await store.db.selectFrom(table as 'titles').select(sql<number>`1`.as('one')).where('workspace_id', '=', WS).limit(1).execute();
      expect(rows).to.be.an('array');
    }
  });

  it('refuses a select filtered only by id, and accepts it with a qualified workspace_id', async () => {
    await expectGuarded(() => store.db.selectFrom('titles').selectAll().where('id', '=', randomUUID()).execute(), 'titles');
    const rows = await store.db.selectFrom('titles as t').selectAll().where('t.id', '=', randomUUID()).where('t.workspace_id', '=', WS).execute();
    expect(rows).to.deep.equal([]);
  });

  it('refuses a join whose where lacks workspace_id', async () => {
    await expectGuarded(() => store.db.selectFrom('workspaces').innerJoin('titles', 'titles.workspace_id', 'workspaces.id')
      .select('titles.id').where('workspaces.name', '=', 'Matriz').execute(), 'titles');
  });

  it('refuses an unscoped subquery inside a scoped query', async () => {
    await expectGuarded(() => store.db.selectFrom('titles').select('id').where('workspace_id', '=', WS)
      .where('person_id', 'in', store.db.selectFrom('people').select('id').where('name', '=', 'x'))
      .execute(), 'people');
  });

  it('refuses update and delete without workspace_id and runs them with it', async () => {
    const id = randomUUID();
    await expectGuarded(() => store.db.updateTable('taxes').set({ active: 0 }).where('id', '=', id).execute(), 'taxes');
    await expectGuarded(() => store.db.deleteFrom('taxes').where('id', '=', id).execute(), 'taxes');
    await store.db.updateTable('taxes').set({ active: 0 }).where('workspace_id', '=', WS).where('id', '=', id).execute();
    await store.db.deleteFrom('taxes').where('workspace_id', '=', WS).where('id', '=', id).execute();
  });

  it('refuses an insert without a workspace_id column and runs it with one', async () => {
    const now = new Date().toISOString();
    const values = { id: randomUUID(), name: `ISS ${randomUUID()}`, default_rate: '5.00', active: 1, ...auditValues(now) };
    await expectGuarded(() => store.db.insertInto('taxes').values(values as never).execute(), 'taxes');
    await store.db.insertInto('taxes').values({ ...values, workspace_id: WS }).execute();
    const row = await store.db.selectFrom('taxes').select('name').where('workspace_id', '=', WS).where('id', '=', values.id).executeTakeFirst();
    expect(row?.name).to.equal(values.name);
  });

  it('leaves identity tables alone', async () => {
    const rows = await store.db.selectFrom('workspaces').select('id').execute();
    expect(rows.map((r) => r.id)).to.include.members([DEMO.workspaces.matriz, DEMO.workspaces.filial]);
  });

  it('guards inside transactions too', async () => {
    await expectGuarded(() => store.db.transaction().execute((trx) => trx.selectFrom('activity').selectAll().execute()), 'activity');
  });

  it('lets maintenance through the explicit escape hatch only', async () => {
    const purged = await withoutWorkspaceGuard(store.db).deleteFrom('idempotency_keys').where('expires_at', '<', '1970-01-02').execute();
    expect(purged).to.be.an('array');
  });
});
