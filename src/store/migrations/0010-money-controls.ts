/**
 * Money controls (issue 29; docs/security.md#money-controls):
 * - `security_settings.money_controls`: JSON of the workspace's spending limits, payee-allowlist
 *   requirement and approval thresholds (src/api/money/config.ts parses it defensively).
 * - `money_moves`: one row per outflow that ran (a payable settled, a transfer), written in the
 *   move's own transaction, so only successful moves count; never deleted by an undo (a reopen
 *   does not give its allowance back). The rolling windows are counted over it with the
 *   application's clock passed into the SQL.
 * - `payee_allowlist`: the payment destinations (document number, Pix key, bank account) of a
 *   person that someone approved in Seguridad; a destination edited since no longer matches.
 * - `approval_requests`: a confirmed money move above the approval threshold, waiting for a
 *   second person (maker-checker), with the original arguments and the versions it was measured at.
 * - `people` gains its payment details (Pix key, bank account); `activity` gains `details` (JSON:
 *   e.g. a configuration change's old → new, the approver of a move).
 * References are unenforced like the other finance tables (migration 0002): the operations answer.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('security_settings').addColumn('money_controls', 'text').execute();
  await db.schema.alterTable('activity').addColumn('details', 'text').execute();
  for (const column of ['pix_key', 'bank_code', 'agency', 'account_number']) {
    await db.schema.alterTable('people').addColumn(column, 'text').execute();
  }

  await db.schema.createTable('money_moves')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('token_type', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('record_id', 'text')
    .addColumn('approval_request_id', 'text')
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('money_moves_workspace_occurred').on('money_moves').columns(['workspace_id', 'occurred_at']).execute();

  await db.schema.createTable('payee_allowlist')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('approved_by', 'text', (c) => c.notNull())
    .addColumn('approved_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('payee_allowlist_unique').on('payee_allowlist').columns(['workspace_id', 'person_id', 'kind', 'value']).unique().execute();

  await db.schema.createTable('approval_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('operation_id', 'text', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('sentence', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'bigint', (c) => c.notNull())
    .addColumn('items', 'text', (c) => c.notNull())
    .addColumn('person_id', 'text')
    .addColumn('financial_account_id', 'text')
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('requested_via', 'text', (c) => c.notNull())
    .addColumn('token_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('decided_by', 'text')
    .addColumn('decided_via', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('decision_reason', 'text')
    .addColumn('result', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema.createIndex('approval_requests_workspace_status').on('approval_requests').columns(['workspace_id', 'status', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['approval_requests', 'payee_allowlist', 'money_moves']) await db.schema.dropTable(table).ifExists().execute();
  for (const column of ['pix_key', 'bank_code', 'agency', 'account_number']) await sql`alter table people drop column ${sql.ref(column)}`.execute(db);
  await sql`alter table activity drop column details`.execute(db);
  await sql`alter table security_settings drop column money_controls`.execute(db);
}
