/**
 * Transfers between two accounts of the workspace (docs/domain.md#resources): one debit on the
 * source, one credit on the destination and the transfer record, all written in the
 * operation's transaction so a failure leaves nothing half done. The two transactions carry
 * `source: transfer` and cannot be deleted or re-priced through transactions.*.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { TransfersTable } from '../../store/schema.js';
import type { OperationHandler } from '../context.js';
import { ApiError } from '../errors.js';
import { insertAudit, recordActivity } from '../audit.js';
import { formatCents, parseMoneyInput } from '../money.js';
import { auditJson, findInWorkspace, readBody, requireWorkspace } from '../records.js';
import { assertBalancesWithinBound } from './account-balance.js';
import { requireAccountReference } from './references.js';

const LABEL = 'Transfer';

function toTransferJson(row: Selectable<TransfersTable>): Record<string, unknown> {
  return {
    id: row.id, from_account_id: row.from_account_id, to_account_id: row.to_account_id, amount: formatCents(row.amount_cents),
    occurred_at: row.occurred_at, description: row.description, debit_transaction_id: row.debit_transaction_id,
    credit_transaction_id: row.credit_transaction_id, ...auditJson(row), version: Number(row.version),
  };
}

const createTransfer: OperationHandler = async (ctx, input) => {
  const body = readBody(input.body);
  const workspaceId = requireWorkspace(ctx);
  const amount = parseMoneyInput(body['amount'], 'amount');
  if (body['from_account_id'] === body['to_account_id']) {
    throw new ApiError('UNPROCESSABLE_ENTITY', 'A transfer needs two different accounts.');
  }
  const from = await requireAccountReference(ctx, body['from_account_id'], 'from_account_id');
  const to = await requireAccountReference(ctx, body['to_account_id'], 'to_account_id');
  const occurredAt = String(body['occurred_at']);
  const description = body['description'] === undefined || body['description'] === null ? null : String(body['description']);
  const audit = insertAudit(ctx);
  const row: Selectable<TransfersTable> = {
    id: randomUUID(), workspace_id: workspaceId, from_account_id: from.id, to_account_id: to.id, amount_cents: amount,
    occurred_at: occurredAt, description, debit_transaction_id: randomUUID(), credit_transaction_id: randomUUID(), ...audit,
  };
  const leg = { workspace_id: workspaceId, amount_cents: amount, occurred_at: occurredAt, description, category_id: null, person_id: null, source: 'transfer' as const, source_id: row.id, ...audit };
  await ctx.db.insertInto('transactions').values([
    { ...leg, id: row.debit_transaction_id, financial_account_id: from.id, type: 'debit' },
    { ...leg, id: row.credit_transaction_id, financial_account_id: to.id, type: 'credit' },
  ]).execute();
  await ctx.db.insertInto('transfers').values(row).execute();
  await assertBalancesWithinBound(ctx, [from.id, to.id]);
  await recordActivity(ctx, { operation: 'transfers.create', resource: 'transfers', recordId: row.id });
  return { outcome: 'created', body: toTransferJson(row) };
};

const getTransfer: OperationHandler = async (ctx, input) => ({
  body: toTransferJson(await findInWorkspace(ctx, 'transfers', input.path['id'] ?? '', LABEL)),
});

export const transferHandlers: Record<string, OperationHandler> = {
  'transfers.create': createTransfer,
  'transfers.get': getTransfer,
};
