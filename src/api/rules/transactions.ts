/**
 * Manual account movements (docs/domain.md#resources): list, get, create, update, delete with
 * category and cost-center polarity by `type` (debit → debit category, cost|both centers;
 * credit → credit category, revenue|both). Transactions created by a settlement or a transfer
 * belong to that record: they cannot be deleted, and their money fields cannot be edited here.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { TransactionsTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { ApiError } from '../errors.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import { listColumns, listRecords, readListSpec, type ListDefinition } from '../list.js';
import { formatCents, parseMoneyInput } from '../money.js';
import { auditJson, findInWorkspace, lockRow, readBody, requireWorkspace } from '../records.js';
import { assertBalancesWithinBound } from './account-balance.js';
import { deleteAllocations, loadAllocations, planAllocationUpdate, prepareAllocations, replaceAllocations } from './allocations.js';
import { deleteAttachmentLinks } from './attachment-links.js';
import { readOptionalReference, requireAccountReference, requireCategoryReference, requirePersonReference } from './references.js';

const LABEL = 'Transaction';
type Direction = 'debit' | 'credit';

const polarityOf = (type: Direction) => (type === 'debit' ? 'cost' : 'revenue') as 'cost' | 'revenue';

async function toTransactionJsonBatch(ctx: OperationContext, rows: readonly Selectable<TransactionsTable>[]): Promise<Record<string, unknown>[]> {
  const allocations = await loadAllocations(ctx, 'transaction', rows.map((r) => r.id));
  return rows.map((row) => ({
    id: row.id, financial_account_id: row.financial_account_id, type: row.type, amount: formatCents(row.amount_cents),
    occurred_at: row.occurred_at, description: row.description, category_id: row.category_id, person_id: row.person_id,
    cost_center_allocations: allocations.get(row.id) ?? [], source: row.source, source_id: row.source_id,
    ...auditJson(row), version: Number(row.version),
  }));
}

async function readTransactionJson(ctx: OperationContext, id: string): Promise<Record<string, unknown>> {
  const [json] = await toTransactionJsonBatch(ctx, [await findInWorkspace(ctx, 'transactions', id, LABEL)]);
  return json as Record<string, unknown>;
}

function buildListDefinition(ctx: OperationContext): ListDefinition<'transactions'> {
  return {
    table: 'transactions',
    resourceLabel: LABEL,
    columns: listColumns({
      id: 'uuid', financial_account_id: 'uuid', type: 'string', occurred_at: 'date',
      amount: { column: 'amount_cents', kind: 'money' }, category_id: 'uuid', person_id: 'uuid', source: 'string',
      created_at: 'timestamp',
    }),
    toJson: (rows) => toTransactionJsonBatch(ctx, rows),
  };
}

const listTransactions: OperationHandler = async (ctx, input) => ({
  body: await listRecords(ctx, input.list, readListSpec(ctx), buildListDefinition(ctx)),
});

const getTransaction: OperationHandler = async (ctx, input) => ({ body: await readTransactionJson(ctx, input.path['id'] ?? '') });

const createTransaction: OperationHandler = async (ctx, input) => {
  const body = readBody(input.body);
  const type = body['type'] as Direction;
  const amount = parseMoneyInput(body['amount'], 'amount');
  await requireAccountReference(ctx, body['financial_account_id']);
  const categoryId = await readOptionalReference(body['category_id'], (id) => requireCategoryReference(ctx, id, type));
  const personId = await readOptionalReference(body['person_id'], (id) => requirePersonReference(ctx, id));
  const shares = body['cost_center_allocations'] === undefined ? [] : await prepareAllocations(ctx, body['cost_center_allocations'], amount, polarityOf(type));
  const id = randomUUID();
  await ctx.db.insertInto('transactions').values({
    id, workspace_id: requireWorkspace(ctx), financial_account_id: body['financial_account_id'] as string, type, amount_cents: amount,
    occurred_at: String(body['occurred_at']), description: body['description'] === undefined || body['description'] === null ? null : String(body['description']),
    category_id: categoryId ?? null, person_id: personId ?? null, source: 'manual', source_id: null, ...insertAudit(ctx),
  }).execute();
  await assertBalancesWithinBound(ctx, [body['financial_account_id'] as string]);
  await replaceAllocations(ctx, 'transaction', id, shares);
  await recordActivity(ctx, { operation: 'transactions.create', resource: 'transactions', recordId: id });
  return { outcome: 'created', body: await readTransactionJson(ctx, id) };
};

/** Fields that carry the money of a settlement/transfer; only the owning record may change them. */
const OWNED_FIELDS = ['financial_account_id', 'type', 'amount', 'occurred_at'] as const;

async function readTransactionChanges(ctx: OperationContext, current: Selectable<TransactionsTable>, body: Record<string, unknown>): Promise<Partial<TransactionsTable>> {
  if (current.source !== 'manual' && OWNED_FIELDS.some((f) => body[f] !== undefined)) {
    throw new ApiError('UNPROCESSABLE_ENTITY', `This transaction was created by a ${current.source}; change it through that record.`);
  }
  const changes: Partial<TransactionsTable> = {};
  const type = (body['type'] ?? current.type) as Direction;
  if (body['type'] !== undefined) changes.type = type;
  if (body['amount'] !== undefined) changes.amount_cents = parseMoneyInput(body['amount'], 'amount');
  if (body['occurred_at'] !== undefined) changes.occurred_at = String(body['occurred_at']);
  if (body['financial_account_id'] !== undefined) changes.financial_account_id = (await requireAccountReference(ctx, body['financial_account_id'])).id;
  if (body['description'] !== undefined) changes.description = body['description'] === null ? null : String(body['description']);
  const personId = await readOptionalReference(body['person_id'], (id) => requirePersonReference(ctx, id));
  if (personId !== undefined) changes.person_id = personId;
  // A new type must still fit the kept category.
  const categoryValue = body['category_id'] !== undefined ? body['category_id'] : changes.type ? current.category_id : undefined;
  const categoryId = await readOptionalReference(categoryValue, (id) => requireCategoryReference(ctx, id, type));
  if (categoryId !== undefined) changes.category_id = categoryId;
  return changes;
}

const updateTransaction: OperationHandler = async (ctx, input) => {
  // PostgreSQL: lock before reading, so the split is planned against the amount and type this
  // update will overwrite — not one a concurrent update is about to replace (the titles' rule too).
  await lockRow(ctx, 'transactions', input.path['id'] ?? '', 'update');
  const current = await findInWorkspace(ctx, 'transactions', input.path['id'] ?? '', LABEL);
  const body = readBody(input.body);
  const changes = await readTransactionChanges(ctx, current, body);
  const total = changes.amount_cents ?? Number(current.amount_cents);
  const shares = await planAllocationUpdate(ctx, 'transaction', current.id, {
    raw: body['cost_center_allocations'], totalCents: total, polarity: polarityOf(changes.type ?? current.type),
    amountOrPolarityChanged: total !== Number(current.amount_cents) || (changes.type !== undefined && changes.type !== current.type),
  });
  await ctx.db.updateTable('transactions').set({ ...changes, ...updateAudit(ctx) })
    .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
  // A new amount or type changes the account's balance; a move changes both accounts'.
  if (changes.amount_cents !== undefined || changes.type !== undefined || changes.financial_account_id !== undefined) {
    await assertBalancesWithinBound(ctx, [current.financial_account_id, changes.financial_account_id ?? current.financial_account_id]);
  }
  if (shares) await replaceAllocations(ctx, 'transaction', current.id, shares);
  await recordActivity(ctx, { operation: 'transactions.update', resource: 'transactions', recordId: current.id });
  return { body: await readTransactionJson(ctx, current.id) };
};

const deleteTransaction: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'transactions', input.path['id'] ?? '', LABEL);
  if (current.source !== 'manual') {
    throw new ApiError('UNPROCESSABLE_ENTITY', `This transaction was created by a ${current.source}; reopen or undo that record instead.`);
  }
  // PostgreSQL: hold the row so a concurrent attachment link (FOR SHARE) cannot outlive it.
  await lockRow(ctx, 'transactions', current.id, 'update');
  // Conditional on `manual` too, so a row can never be removed behind its settlement's back.
  await deleteAllocations(ctx, 'transaction', current.id);
  await deleteAttachmentLinks(ctx, 'transaction', current.id);
  await ctx.db.deleteFrom('transactions').where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).where('source', '=', 'manual').execute();
  // Removing a debit raises the balance (and a credit lowers it): the bound holds both ways.
  await assertBalancesWithinBound(ctx, [current.financial_account_id]);
  await recordActivity(ctx, { operation: 'transactions.delete', resource: 'transactions', recordId: current.id });
  return { outcome: 'deleted' };
};

export const transactionHandlers: Record<string, OperationHandler> = {
  'transactions.list': listTransactions,
  'transactions.get': getTransaction,
  'transactions.create': createTransaction,
  'transactions.update': updateTransaction,
  'transactions.delete': deleteTransaction,
};
