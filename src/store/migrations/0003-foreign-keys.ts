/**
 * Foreign keys between finance records, so the database itself refuses an orphan (a title whose
 * person, category or account is gone, an apportionment of a deleted title, …) on SQLite and
 * PostgreSQL alike. The operations still check references first and answer CONFLICT/422
 * themselves; these keys are the backstop for code paths that forget, and for raw SQL.
 * docs/data-model.md lists every key.
 *
 * Decisions:
 * - Keys stay inside one workspace: every key is composite, `(workspace_id, x_id) REFERENCES
 *   parent (workspace_id, id)`, so a row can never point at another workspace's record. Parents
 *   get a UNIQUE index on `(workspace_id, id)` for that (both dialects accept a non-partial
 *   unique index as a key target), and every child column set gets an index so deleting a
 *   parent does not scan the child table.
 * - Polymorphic columns become real keys through derived columns: a generated column per target
 *   that holds the id only when the type column names that target, NULL otherwise (a key with a
 *   NULL column is not checked, MATCH SIMPLE on both dialects). `allocations` and
 *   `attachment_links` get `fk_title_id` (parent_type payable/receivable; the key includes the
 *   type, `(workspace_id, parent_type, fk_title_id) → titles (workspace_id, kind, id)`, so a
 *   payable's row cannot point at a receivable) and `fk_transaction_id` (parent_type
 *   transaction); `transactions` gets `fk_title_id` (source settlement) and `fk_transfer_id`
 *   (source transfer). They are GENERATED ALWAYS (STORED on PostgreSQL; VIRTUAL on SQLite,
 *   whose ALTER TABLE adds no other kind): the application never writes them and schema.ts
 *   leaves them out.
 * - On delete: NO ACTION everywhere (the delete is refused while a row refers to the record;
 *   nothing cascades, the operations delete dependants themselves, children first).
 * - Timing: immediate (checked at the end of each statement) unless the application writes in
 *   an order that is consistent only at commit; those are DEFERRABLE INITIALLY DEFERRED:
 *   `titles.transaction_id` (settle sets it before inserting the transaction; deleting a title
 *   deletes its settlement transaction first) and `transactions.fk_transfer_id` (a transfer
 *   inserts its two transactions before the transfer row). Keys whose parent an operation
 *   deletes after its own "in use?" check (accounts, categories, cost centers) stay immediate,
 *   so a missed reference still reaches translateConstraintError as CONFLICT.
 * - Soft-deleted people and companies, and inactive accounts and cost centers, are ordinary rows:
 *   they stay referenced.
 * - Left out: `activity.record_id` (the log outlives the records it names), the audit columns'
 *   persons (identity, not finance), `attachments.sha256 → blobs` (the metadata row is written
 *   before its bytes and the bytes are dropped separately by the blob store).
 *
 * PostgreSQL runs migrations in a transaction: the keys are added with ALTER TABLE, validated
 * there. SQLite cannot add a constraint to a table, so each child table is rebuilt (SQLite's
 * "making other kinds of table schema changes" procedure): the stored CREATE TABLE text gets the
 * key clauses appended, the rows are copied into the new table, the old one is dropped, the new
 * one renamed, its indexes re-created from their stored text, then `PRAGMA foreign_key_check`
 * must find nothing. Kysely's Migrator runs SQLite migrations outside a transaction
 * (supportsTransactionalDdl is false), so `PRAGMA foreign_keys = OFF` takes effect here (it is
 * a no-op inside one) and the rebuild runs in its own transaction. With the keys off, dropping
 * a parent table is not an implicit delete, so `PRAGMA defer_foreign_keys` is not needed; and
 * since only the new table is renamed (nothing refers to its temporary name), the value of
 * `legacy_alter_table` does not matter. Existing orphans stop the migration (nothing changes)
 * with the tables named; fix or remove those rows and start again.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './column-types.js';

interface DerivedColumn {
  readonly table: string;
  readonly name: string;
  /** SQL over the row's own columns; static text. */
  readonly expression: string;
}

interface ForeignKey {
  readonly name: string;
  readonly table: string;
  readonly columns: readonly string[];
  readonly parent: string;
  readonly parentColumns: readonly string[];
  readonly deferred?: boolean;
}

interface KeyIndex {
  readonly table: string;
  readonly columns: readonly string[];
  readonly unique?: boolean;
}

const TITLE_PARENT = `case when "parent_type" in ('payable', 'receivable') then "parent_id" end`;
const TRANSACTION_PARENT = `case when "parent_type" = 'transaction' then "parent_id" end`;

const DERIVED_COLUMNS: readonly DerivedColumn[] = [
  { table: 'allocations', name: 'fk_title_id', expression: TITLE_PARENT },
  { table: 'allocations', name: 'fk_transaction_id', expression: TRANSACTION_PARENT },
  { table: 'attachment_links', name: 'fk_title_id', expression: TITLE_PARENT },
  { table: 'attachment_links', name: 'fk_transaction_id', expression: TRANSACTION_PARENT },
  { table: 'transactions', name: 'fk_title_id', expression: `case when "source" = 'settlement' then "source_id" end` },
  { table: 'transactions', name: 'fk_transfer_id', expression: `case when "source" = 'transfer' then "source_id" end` },
];

const WS = 'workspace_id';
const BY_ID = [WS, 'id'];

const INDEXES: readonly KeyIndex[] = [
  // Key targets.
  ...['accounts', 'categories', 'cost_centers', 'people', 'titles', 'transactions', 'transfers', 'attachments']
    .map((table): KeyIndex => ({ table, columns: BY_ID, unique: true })),
  { table: 'titles', columns: [WS, 'kind', 'id'], unique: true },
  // Child columns 0002 did not index yet.
  { table: 'titles', columns: [WS, 'transaction_id'] },
  { table: 'allocations', columns: [WS, 'fk_title_id'] },
  { table: 'allocations', columns: [WS, 'fk_transaction_id'] },
  { table: 'transactions', columns: [WS, 'fk_title_id'] },
  { table: 'transactions', columns: [WS, 'fk_transfer_id'] },
  { table: 'transfers', columns: [WS, 'from_account_id'] },
  { table: 'transfers', columns: [WS, 'to_account_id'] },
  { table: 'transfers', columns: [WS, 'debit_transaction_id'] },
  { table: 'transfers', columns: [WS, 'credit_transaction_id'] },
  { table: 'attachment_links', columns: [WS, 'fk_title_id'] },
  { table: 'attachment_links', columns: [WS, 'fk_transaction_id'] },
];

function key(name: string, table: string, column: string, parent: string, deferred = false): ForeignKey {
  return { name, table, columns: [WS, column], parent, parentColumns: BY_ID, deferred };
}

const FOREIGN_KEYS: readonly ForeignKey[] = [
  key('categories_parent_fk', 'categories', 'parent_id', 'categories'),
  key('titles_person_fk', 'titles', 'person_id', 'people'),
  key('titles_category_fk', 'titles', 'category_id', 'categories'),
  key('titles_account_fk', 'titles', 'financial_account_id', 'accounts'),
  key('titles_transaction_fk', 'titles', 'transaction_id', 'transactions', true),
  key('allocations_cost_center_fk', 'allocations', 'cost_center_id', 'cost_centers'),
  { name: 'allocations_title_fk', table: 'allocations', columns: [WS, 'parent_type', 'fk_title_id'], parent: 'titles', parentColumns: [WS, 'kind', 'id'] },
  key('allocations_transaction_fk', 'allocations', 'fk_transaction_id', 'transactions'),
  key('transactions_account_fk', 'transactions', 'financial_account_id', 'accounts'),
  key('transactions_category_fk', 'transactions', 'category_id', 'categories'),
  key('transactions_person_fk', 'transactions', 'person_id', 'people'),
  key('transactions_title_fk', 'transactions', 'fk_title_id', 'titles'),
  key('transactions_transfer_fk', 'transactions', 'fk_transfer_id', 'transfers', true),
  key('transfers_from_account_fk', 'transfers', 'from_account_id', 'accounts'),
  key('transfers_to_account_fk', 'transfers', 'to_account_id', 'accounts'),
  key('transfers_debit_transaction_fk', 'transfers', 'debit_transaction_id', 'transactions'),
  key('transfers_credit_transaction_fk', 'transfers', 'credit_transaction_id', 'transactions'),
  key('attachment_links_attachment_fk', 'attachment_links', 'attachment_id', 'attachments'),
  { name: 'attachment_links_title_fk', table: 'attachment_links', columns: [WS, 'parent_type', 'fk_title_id'], parent: 'titles', parentColumns: [WS, 'kind', 'id'] },
  key('attachment_links_transaction_fk', 'attachment_links', 'fk_transaction_id', 'transactions'),
];

const quote = (name: string): string => `"${name}"`;
const list = (names: readonly string[]): string => names.map(quote).join(', ');
const indexName = (index: KeyIndex): string => `${index.table}_${index.columns.join('_')}${index.unique ? '_key' : ''}`;

/** The constraint clause, identical in ALTER TABLE (PostgreSQL) and CREATE TABLE (SQLite). */
function constraintClause(fk: ForeignKey): string {
  const timing = fk.deferred ? ' deferrable initially deferred' : '';
  return `constraint ${quote(fk.name)} foreign key (${list(fk.columns)}) references ${quote(fk.parent)} (${list(fk.parentColumns)})${timing}`;
}

async function run(db: Kysely<unknown>, text: string): Promise<void> {
  await sql.raw(text).execute(db);
}

async function addDerivedColumns(db: Kysely<unknown>, storage: 'stored' | 'virtual'): Promise<void> {
  for (const c of DERIVED_COLUMNS) {
    await run(db, `alter table ${quote(c.table)} add column ${quote(c.name)} text generated always as (${c.expression}) ${storage}`);
  }
}

async function createIndexes(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) {
    const builder = db.schema.createIndex(indexName(index)).on(index.table).columns([...index.columns]);
    await (index.unique ? builder.unique() : builder).execute();
  }
}

async function dropIndexes(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) await db.schema.dropIndex(indexName(index)).ifExists().execute();
}

const REBUILT_TABLES = [...new Set(FOREIGN_KEYS.map((fk) => fk.table))];

/**
 * Rebuilds one SQLite table from its stored CREATE TABLE text with `rewrite` applied to the part
 * between the outer parentheses (columns and table constraints), keeping every row and index.
 */
async function rebuildSqliteTable(db: Kysely<unknown>, table: string, rewrite: (definition: string) => string): Promise<void> {
  const { rows: [created] } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = ${table}`.execute(db);
  if (!created) throw new Error(`Table ${table} is missing`);
  const { rows: indexes } = await sql<{ sql: string }>`
    select sql from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db);
  const { rows: columns } = await sql<{ name: string }>`select name from pragma_table_xinfo(${table}) where hidden = 0`.execute(db);
  const open = created.sql.indexOf('(');
  const close = created.sql.lastIndexOf(')');
  const temporary = `${table}__rebuild`;
  const names = list(columns.map((c) => c.name));
  await run(db, `create table ${quote(temporary)} (${rewrite(created.sql.slice(open + 1, close))})${created.sql.slice(close + 1)}`);
  await run(db, `insert into ${quote(temporary)} (${names}) select ${names} from ${quote(table)}`);
  await run(db, `drop table ${quote(table)}`);
  await run(db, `alter table ${quote(temporary)} rename to ${quote(table)}`);
  for (const index of indexes) await run(db, index.sql);
}

/** Every row of a rebuilt table must still find its parents; names tables, never values. */
async function checkSqliteKeys(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ table: string; parent: string; n: number }>`
    select "table", "parent", count(*) as n from pragma_foreign_key_check group by "table", "parent" order by "table", "parent"`.execute(db);
  if (rows.length === 0) return;
  const found = rows.map((r) => `${r.n} row(s) of ${r.table} refer to missing ${r.parent}`).join('; ');
  throw new Error(`Foreign keys cannot be added: ${found}. Fix or remove those rows, then migrate again.`);
}

/**
 * Runs `work` with SQLite's key enforcement off, in one transaction, and turns it back on.
 * Refuses to run inside an open transaction, where `PRAGMA foreign_keys` cannot change.
 */
async function withSqliteKeysOff(db: Kysely<unknown>, work: (trx: Kysely<unknown>) => Promise<void>): Promise<void> {
  await run(db, 'pragma foreign_keys = off');
  try {
    const { rows: [state] } = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
    if (Number(state?.foreign_keys) !== 0) throw new Error('Migration 0003-foreign-keys must run outside a transaction on SQLite');
    await db.transaction().execute(work);
  } finally {
    await run(db, 'pragma foreign_keys = on');
  }
}

function appendKeys(table: string): (definition: string) => string {
  const clauses = FOREIGN_KEYS.filter((fk) => fk.table === table).map(constraintClause);
  return (definition) => [definition, ...clauses].join(', ');
}

function removeKeys(table: string): (definition: string) => string {
  const clauses = FOREIGN_KEYS.filter((fk) => fk.table === table).map(constraintClause);
  return (definition) => clauses.reduce((text, clause) => {
    if (!text.includes(`, ${clause}`)) throw new Error(`Table ${table} does not hold the key clause this migration added`);
    return text.replace(`, ${clause}`, '');
  }, definition);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await addDerivedColumns(db, 'stored');
    await createIndexes(db);
    for (const fk of FOREIGN_KEYS) await run(db, `alter table ${quote(fk.table)} add ${constraintClause(fk)}`);
    return;
  }
  await withSqliteKeysOff(db, async (trx) => {
    await addDerivedColumns(trx, 'virtual');
    await createIndexes(trx);
    for (const table of REBUILT_TABLES) await rebuildSqliteTable(trx, table, appendKeys(table));
    await checkSqliteKeys(trx);
  });
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const dropColumns = async (target: Kysely<unknown>): Promise<void> => {
    for (const c of DERIVED_COLUMNS) await run(target, `alter table ${quote(c.table)} drop column ${quote(c.name)}`);
  };
  if (isPostgres(db)) {
    for (const fk of FOREIGN_KEYS) await run(db, `alter table ${quote(fk.table)} drop constraint ${quote(fk.name)}`);
    await dropIndexes(db);
    await dropColumns(db);
    return;
  }
  await withSqliteKeysOff(db, async (trx) => {
    await dropIndexes(trx);
    for (const table of REBUILT_TABLES) await rebuildSqliteTable(trx, table, removeKeys(table));
    await dropColumns(trx);
  });
}
