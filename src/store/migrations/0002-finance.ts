/**
 * Finance tables (docs/domain.md#resources): every one carries `workspace_id` (a foreign key to workspaces)
 * and list indexes on (workspace_id, sort column, id) for keyset pagination. Cross-record
 * references stay unenforced here on purpose: the operations answer CONFLICT/422 themselves,
 * and a foreign-key failure would surface as a 500.
 */
import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { readBytesType } from './column-types.js';

type Builder = CreateTableBuilder<string, string>;

function addWorkspaceColumn(b: Builder): Builder {
  return b.addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'));
}

function addAuditColumns(b: Builder): Builder {
  return b
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('created_via', 'text', (c) => c.notNull())
    .addColumn('updated_via', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1));
}

/** A record table: text id primary key, workspace column, its own columns, audit columns. */
function startRecordTable(db: Kysely<unknown>, name: string): Builder {
  const base = db.schema.createTable(name).addColumn('id', 'text', (c) => c.primaryKey()) as Builder;
  return addWorkspaceColumn(base);
}

async function createIndexes(db: Kysely<unknown>, table: string, lists: readonly (readonly string[])[]): Promise<void> {
  for (const columns of lists) {
    await db.schema.createIndex(`${table}_${columns.join('_')}`).on(table).columns([...columns]).execute();
  }
}

async function createReferenceTables(db: Kysely<unknown>): Promise<void> {
  await addAuditColumns(startRecordTable(db, 'companies')
    .addColumn('cnpj', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('trade_name', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('deleted_at', 'text')).execute();
  await db.schema.createIndex('companies_ws_cnpj_unique').on('companies').columns(['workspace_id', 'cnpj']).unique()
    .where(sql.ref('deleted_at'), 'is', null).execute();
  await createIndexes(db, 'companies', [['workspace_id', 'name', 'id'], ['workspace_id', 'created_at', 'id']]);

  await addAuditColumns(startRecordTable(db, 'accounts')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('bank_code', 'text')
    .addColumn('agency', 'text')
    .addColumn('account_number', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))).execute();
  await createIndexes(db, 'accounts', [['workspace_id', 'name', 'id'], ['workspace_id', 'created_at', 'id']]);

  await addAuditColumns(startRecordTable(db, 'categories')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text')
    .addColumn('level', 'integer', (c) => c.notNull())).execute();
  await createIndexes(db, 'categories', [['workspace_id', 'name', 'id'], ['workspace_id', 'parent_id'], ['workspace_id', 'created_at', 'id']]);

  await addAuditColumns(startRecordTable(db, 'cost_centers')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))).execute();
  await createIndexes(db, 'cost_centers', [['workspace_id', 'name', 'id'], ['workspace_id', 'created_at', 'id']]);

  await addAuditColumns(startRecordTable(db, 'people')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('document_number', 'text')
    .addColumn('is_customer', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_supplier', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('emails', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('deleted_at', 'text')).execute();
  // Partial unique index: both SQLite (3.8+) and PostgreSQL support `WHERE` on an index.
  await db.schema.createIndex('people_ws_document_unique').on('people').columns(['workspace_id', 'document_number']).unique()
    .where((eb) => eb.and([eb(sql.ref('deleted_at'), 'is', null), eb(sql.ref('document_number'), 'is not', null)]))
    .execute();
  await createIndexes(db, 'people', [['workspace_id', 'name', 'id'], ['workspace_id', 'created_at', 'id']]);

  await addAuditColumns(startRecordTable(db, 'taxes')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('default_rate', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addUniqueConstraint('taxes_ws_name_unique', ['workspace_id', 'name'])).execute();
  await createIndexes(db, 'taxes', [['workspace_id', 'created_at', 'id']]);
}

async function createMoneyTables(db: Kysely<unknown>): Promise<void> {
  await addAuditColumns(startRecordTable(db, 'titles')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('due_date', 'text', (c) => c.notNull())
    .addColumn('competence_date', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('category_id', 'text')
    .addColumn('financial_account_id', 'text')
    .addColumn('document_number', 'text')
    .addColumn('notes', 'text')
    .addColumn('payment_date', 'text')
    .addColumn('paid_amount_cents', 'bigint')
    .addColumn('interest_cents', 'bigint')
    .addColumn('discount_cents', 'bigint')
    .addColumn('transaction_id', 'text')).execute();
  await createIndexes(db, 'titles', [
    ['workspace_id', 'kind', 'due_date', 'id'], ['workspace_id', 'kind', 'created_at', 'id'],
    ['workspace_id', 'kind', 'amount_cents', 'id'], ['workspace_id', 'kind', 'competence_date', 'id'],
    ['workspace_id', 'person_id'], ['workspace_id', 'category_id'], ['workspace_id', 'financial_account_id'],
  ]);

  await db.schema.createTable('allocations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('parent_type', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text', (c) => c.notNull())
    .addColumn('cost_center_id', 'text', (c) => c.notNull())
    .addColumn('percentage', 'text')
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await createIndexes(db, 'allocations', [['workspace_id', 'parent_type', 'parent_id', 'position'], ['workspace_id', 'cost_center_id']]);

  await addAuditColumns(startRecordTable(db, 'transactions')
    .addColumn('financial_account_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('category_id', 'text')
    .addColumn('person_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text')).execute();
  await createIndexes(db, 'transactions', [
    ['workspace_id', 'occurred_at', 'id'], ['workspace_id', 'created_at', 'id'], ['workspace_id', 'amount_cents', 'id'],
    ['workspace_id', 'financial_account_id'], ['workspace_id', 'category_id'], ['workspace_id', 'person_id'],
  ]);

  await addAuditColumns(startRecordTable(db, 'transfers')
    .addColumn('from_account_id', 'text', (c) => c.notNull())
    .addColumn('to_account_id', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('debit_transaction_id', 'text', (c) => c.notNull())
    .addColumn('credit_transaction_id', 'text', (c) => c.notNull())).execute();
  await createIndexes(db, 'transfers', [['workspace_id', 'occurred_at', 'id']]);
}

async function createFileTables(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('blobs')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('bytes', readBytesType(db), (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('blobs_pk', ['workspace_id', 'sha256'])
    .execute();
  await addAuditColumns(startRecordTable(db, 'attachments')
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())).execute();
  await createIndexes(db, 'attachments', [['workspace_id', 'created_at', 'id'], ['workspace_id', 'file_name', 'id'], ['workspace_id', 'sha256']]);
  await db.schema.createTable('attachment_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('attachment_id', 'text', (c) => c.notNull())
    .addColumn('parent_type', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addUniqueConstraint('attachment_links_unique', ['workspace_id', 'attachment_id', 'parent_type', 'parent_id'])
    .execute();
  await createIndexes(db, 'attachment_links', [['workspace_id', 'parent_type', 'parent_id']]);
}

async function createControlTables(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('activity')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('record_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await createIndexes(db, 'activity', [['workspace_id', 'created_at', 'id'], ['workspace_id', 'person_id', 'created_at']]);
  await db.schema.createTable('idempotency_keys')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'person_id', 'key'])
    .execute();
  await createIndexes(db, 'idempotency_keys', [['expires_at']]);
  await db.schema.createTable('security_settings')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id'))
    .addColumn('blocked', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.createTable('confirmation_nonces')
    .addColumn('nonce', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('consumed_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await createIndexes(db, 'confirmation_nonces', [['expires_at']]);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await createReferenceTables(db);
  await createMoneyTables(db);
  await createFileTables(db);
  await createControlTables(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const tables = [
    'confirmation_nonces', 'security_settings', 'idempotency_keys', 'activity', 'attachment_links', 'attachments',
    'blobs', 'transfers', 'transactions', 'allocations', 'titles', 'taxes', 'people', 'cost_centers', 'categories',
    'accounts', 'companies',
  ];
  for (const table of tables) await db.schema.dropTable(table).ifExists().execute();
}
