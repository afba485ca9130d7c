/**
 * Migration 0003-foreign-keys on a database that already holds data: a database migrated to
 * 0002 and filled with the demo data plus rows of every kind the seed does not write is
 * migrated to the latest schema (on SQLite a rebuild of every child table) and keeps every row
 * of every table, column for column; down to 0002 keeps them too. Existing orphans stop the
 * migration with the table named and leave the schema as it was.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Migrator, sql, type Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.js';
import { openDatabase, type OpenedDatabase } from '../../src/store/db.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { isPostgres } from '../../src/store/migrations/column-types.js';
import { seedDemoData } from '../../src/seed/index.js';
import { withoutWorkspaceGuard } from '../../src/store/workspace-guard.js';
import { isForeignKeyViolation } from '../../src/api/records.js';
import { buildTestConfig, createTestSchema, DEMO, type TestSchema } from '../helpers/index.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;
const BEFORE = '0002-finance';

type Row = Record<string, unknown>;
type Snapshot = Record<string, { columns: string[]; rows: Row[] }>;

/** The Migrator of migrate.ts, pinned the same way to the connection's schema on PostgreSQL. */
async function migrateTo(db: Kysely<Database>, target: string): Promise<void> {
  const plain = db.withoutPlugins() as Kysely<unknown>;
  const schema = isPostgres(plain) ? (await sql<{ s: string }>`select current_schema() as s`.execute(plain)).rows[0]?.s : undefined;
  const migrator = new Migrator({
    db: plain, provider: { getMigrations: async () => ({ ...MIGRATIONS }) }, ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error } = await migrator.migrateTo(target);
  if (error) throw error;
}

async function listTables(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = isPostgres(db)
    ? await sql<{ name: string }>`select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
    : await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db);
  return rows.map((r) => r.name).filter((name) => !name.startsWith('kysely_')).sort();
}

const byContent = (a: Row, b: Row): number => {
  const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Every row of every table, in the columns `columns` names (all columns when absent). */
async function takeSnapshot(db: Kysely<Database>, columnsOf?: Snapshot): Promise<Snapshot> {
  // The snapshot reads every workspace's rows at once: a cross-workspace read by design.
  const plain = withoutWorkspaceGuard(db) as unknown as Kysely<unknown>;
  const snapshot: Snapshot = {};
  for (const table of columnsOf ? Object.keys(columnsOf) : await listTables(plain)) {
    const wanted = columnsOf?.[table]?.columns;
    const selection = wanted ? sql.join(wanted.map((c) => sql.ref(c))) : sql`*`;
    const { rows } = await sql<Row>`select ${selection} from ${sql.table(table)}`.execute(plain);
    snapshot[table] = { columns: wanted ?? Object.keys(rows[0] ?? {}), rows: [...rows].sort(byContent) };
  }
  return snapshot;
}

function audit() {
  const now = new Date().toISOString();
  return { created_at: now, updated_at: now, created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'api' as const, updated_via: 'api' as const, version: 1 };
}

/** Rows of the kinds the demo seed does not write, so every reference shape crosses the rebuild. */
async function addExtraRows(db: Kysely<Database>): Promise<void> {
  const now = new Date().toISOString();
  const transaction = await db.selectFrom('transactions').select(['id', 'workspace_id']).where('workspace_id', '=', M).where('source', '=', 'manual').executeTakeFirstOrThrow();
  const center = await db.selectFrom('cost_centers').select('id').where('workspace_id', '=', M).executeTakeFirstOrThrow();
  const receivable = await db.selectFrom('titles').select('id').where('workspace_id', '=', M).where('kind', '=', 'receivable').executeTakeFirstOrThrow();
  const attachment = await db.selectFrom('attachments').select('id').where('workspace_id', '=', M).executeTakeFirstOrThrow();
  await db.insertInto('allocations').values({
    id: randomUUID(), workspace_id: M, parent_type: 'transaction', parent_id: transaction.id, cost_center_id: center.id,
    percentage: '100.00', amount_cents: 1, position: 0,
  }).execute();
  for (const [parentType, parentId] of [['transaction', transaction.id], ['receivable', receivable.id]] as const) {
    await db.insertInto('attachment_links').values({
      id: randomUUID(), workspace_id: M, attachment_id: attachment.id, parent_type: parentType, parent_id: parentId, created_at: now, created_by: DEMO.persons.ana,
    }).execute();
  }
  // A soft-deleted person still referenced by a title, and a soft-deleted company.
  const person = randomUUID();
  await db.insertInto('people').values({
    id: person, workspace_id: M, name: 'Antigo', kind: 'natural', document_number: null, is_customer: 0, is_supplier: 1, emails: '[]', deleted_at: now, ...audit(),
  }).execute();
  await db.insertInto('titles').values({
    id: randomUUID(), workspace_id: M, kind: 'payable', description: 'Old supplier', amount_cents: 500, due_date: '2026-01-05', competence_date: '2026-01-05',
    status: 'cancelled', person_id: person, category_id: null, financial_account_id: null, document_number: null, notes: null, payment_date: null,
    paid_amount_cents: null, interest_cents: null, discount_cents: null, transaction_id: null, ...audit(),
  }).execute();
  await db.insertInto('companies').values({ id: randomUUID(), workspace_id: F, cnpj: '11222333000181', name: 'Fechada', trade_name: null, active: 0, deleted_at: now, ...audit() }).execute();
  await db.insertInto('activity').values({ id: randomUUID(), workspace_id: M, person_id: DEMO.persons.ana, channel: 'api', operation: 'payables.create', resource: 'payables', record_id: receivable.id, created_at: now }).execute();
  await db.insertInto('idempotency_keys').values({
    workspace_id: M, person_id: DEMO.persons.ana, key: 'k', operation_id: 'payables.create', request_hash: 'h', response_status: 201, response_body: '{}', created_at: now, expires_at: now,
  }).execute();
  await db.insertInto('security_settings').values({ workspace_id: F, blocked: '{"api":[],"mcp":["delete"]}', updated_at: now, updated_by: DEMO.persons.ana, version: 2 }).execute();
  await db.insertInto('confirmation_nonces').values({ nonce: randomUUID(), workspace_id: M, person_id: DEMO.persons.ana, tool: 't', consumed_at: now, expires_at: now }).execute();
  await db.insertInto('revoked_tokens').values({ jti: randomUUID(), revoked_at: now, expires_at: now }).execute();
}

describe('migration 0003-foreign-keys on a populated database', function () {
  this.timeout(120_000);
  let schema: TestSchema;
  let store: OpenedDatabase;

  beforeEach(async () => {
    schema = await createTestSchema();
    store = await openDatabase(buildTestConfig({ databaseUrl: schema.databaseUrl }));
    // The demo seed writes the latest schema's tables: seed there, then step down to the schema
    // before 0003 with the rows on board (the later migrations' downs keep them).
    await migrateToLatest(store.db);
    await seedDemoData(store.db);
    await migrateTo(store.db, BEFORE);
  });
  afterEach(async () => {
    await store?.close();
    await schema?.drop();
  });

  it('keeps every row of every table, up to the latest schema and down again', async () => {
    await addExtraRows(store.db);
    const before = await takeSnapshot(store.db);
    const empty = Object.entries(before).filter(([, t]) => t.rows.length === 0).map(([name]) => name);
    expect(empty, 'tables left empty by the fixture').to.deep.equal([]);

    await migrateToLatest(store.db);
    expect(await takeSnapshot(store.db, before)).to.deep.equal(before);
    // The keys are in force on the migrated data.
    const allocated = await store.db.selectFrom('allocations').select('parent_id').where('workspace_id', '=', M).where('parent_type', '=', 'payable').executeTakeFirstOrThrow();
    const refused = await store.db.deleteFrom('titles').where('workspace_id', '=', M).where('id', '=', allocated.parent_id).execute()
      .then(() => undefined, (err: unknown) => err);
    expect(isForeignKeyViolation(refused), String(refused)).to.equal(true);

    await migrateTo(store.db, BEFORE);
    expect(await takeSnapshot(store.db, before)).to.deep.equal(before);
    await migrateToLatest(store.db);
    expect(await takeSnapshot(store.db, before)).to.deep.equal(before);
  });

  it('stops on an existing orphan, names its table and leaves the schema as it was', async () => {
    const title = await store.db.selectFrom('titles').select('id').where('workspace_id', '=', M).executeTakeFirstOrThrow();
    await store.db.insertInto('allocations').values({
      id: randomUUID(), workspace_id: M, parent_type: 'payable', parent_id: title.id, cost_center_id: randomUUID(), percentage: null, amount_cents: 1, position: 9,
    }).execute();
    const before = await takeSnapshot(store.db);

    const caught = await migrateToLatest(store.db).then(() => undefined, (err: unknown) => err);
    expect(caught).to.be.instanceOf(Error);
    expect((caught as Error).message).to.match(/0003-foreign-keys/).and.to.match(/allocations/);
    expect(await takeSnapshot(store.db)).to.deep.equal(before);
    if (store.dialect === 'sqlite') {
      const { rows } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(store.db);
      expect(rows[0]?.foreign_keys, 'enforcement is back on after the failed migration').to.equal(1);
    }
  });
});
