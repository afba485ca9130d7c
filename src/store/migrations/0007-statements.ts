/**
 * Bank statements, reconciliation and classification rules (issue 20; docs/domain.md#bank-statements):
 * - `statement_lines`: one line of an imported OFX statement, unique per (workspace, account, FITID)
 *   so importing the same file again adds nothing; `reconciliation_id` set while it is reconciled;
 *   `category_id`/`cost_center_id`/`person_id`/`rule_id` what a classification rule set.
 * - `reconciliations` and `reconciliation_items`: n statement lines ↔ m titles or transactions;
 *   `settlement_transaction_id` is the transaction a reconciliation created to settle a title, so
 *   undoing it removes exactly that.
 * - `classification_rules`: criteria and actions, evaluated in `position` order.
 * References are unenforced like the other finance tables (migration 0002): the operations answer.
 */
import type { CreateTableBuilder, Kysely } from 'kysely';

type Builder = CreateTableBuilder<string, string>;

function start(db: Kysely<unknown>, name: string): Builder {
  return (db.schema.createTable(name).addColumn('id', 'text', (c) => c.primaryKey()) as Builder)
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'));
}

function audit(b: Builder): Builder {
  return b
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .addColumn('created_via', 'text', (c) => c.notNull())
    .addColumn('updated_via', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1));
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await audit(start(db, 'statement_lines')
    .addColumn('financial_account_id', 'text', (c) => c.notNull())
    .addColumn('fitid', 'text', (c) => c.notNull())
    .addColumn('posted_on', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('counterparty', 'text')
    .addColumn('category_id', 'text')
    .addColumn('cost_center_id', 'text')
    .addColumn('person_id', 'text')
    .addColumn('rule_id', 'text')
    .addColumn('reconciliation_id', 'text')).execute();
  await db.schema.createIndex('statement_lines_ws_account_fitid_unique').on('statement_lines')
    .columns(['workspace_id', 'financial_account_id', 'fitid']).unique().execute();
  await db.schema.createIndex('statement_lines_workspace_id_posted_on_id').on('statement_lines').columns(['workspace_id', 'posted_on', 'id']).execute();

  await audit(start(db, 'reconciliations')).execute();
  await start(db, 'reconciliation_items')
    .addColumn('reconciliation_id', 'text', (c) => c.notNull())
    .addColumn('item_type', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('settlement_transaction_id', 'text')
    .execute();
  await db.schema.createIndex('reconciliation_items_ws_reconciliation').on('reconciliation_items').columns(['workspace_id', 'reconciliation_id']).execute();
  // A title or transaction is in at most one reconciliation: the database refuses a second.
  await db.schema.createIndex('reconciliation_items_ws_item_unique').on('reconciliation_items').columns(['workspace_id', 'item_type', 'item_id']).unique().execute();

  await audit(start(db, 'classification_rules')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('description_contains', 'text')
    .addColumn('counterparty_contains', 'text')
    .addColumn('min_amount_cents', 'bigint')
    .addColumn('max_amount_cents', 'bigint')
    .addColumn('financial_account_id', 'text')
    .addColumn('set_category_id', 'text')
    .addColumn('set_cost_center_id', 'text')
    .addColumn('set_person_id', 'text')).execute();
  await db.schema.createIndex('classification_rules_ws_position').on('classification_rules').columns(['workspace_id', 'position', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['classification_rules', 'reconciliation_items', 'reconciliations', 'statement_lines']) {
    await db.schema.dropTable(table).execute();
  }
}
