/**
 * Settle, reopen and cancel of payables/receivables (DOMAIN.md "Settle", "Reopen", "Cancel").
 * Each status change is a conditional UPDATE on the expected status, checked before any money
 * row is written, so among concurrent calls exactly one wins on SQLite and PostgreSQL alike
 * (PostgreSQL re-evaluates the WHERE after the winner commits). All inside ctx.db's transaction.
 */
import { randomUUID } from 'node:crypto';
import type { OperationContext, OperationHandler } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import { parseMoneyInputAllowZero } from '../money.js';
import { readBody, requireWorkspace } from '../records.js';
import { deleteAllocations } from './allocations.js';
import { deleteAttachmentLinks } from './attachment-links.js';
import { requireAccountReference } from './references.js';
import { findTitle, readTitleJson, type TitleVocabulary } from './title-records.js';

/** Removes a settlement transaction and what hangs off it (its split and attachment links). */
export async function deleteSettlementTransaction(ctx: OperationContext, transactionId: string | null): Promise<void> {
  if (!transactionId) return;
  await deleteAllocations(ctx, 'transaction', transactionId);
  await deleteAttachmentLinks(ctx, 'transaction', transactionId);
  await ctx.db.deleteFrom('transactions')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', transactionId).where('source', '=', 'settlement')
    .execute();
}

function readOptionalCents(value: unknown, path: string): number {
  return value === undefined || value === null ? 0 : parseMoneyInputAllowZero(value, path);
}

function buildSettle(v: TitleVocabulary): OperationHandler {
  const notPending = `Only a pending ${v.label.toLowerCase()} can be settled.`;
  return async (ctx, input) => {
    const title = await findTitle(ctx, v, input.path['id']);
    if (title.status !== 'pending') throw new ApiError('UNPROCESSABLE_ENTITY', notPending);
    const body = readBody(input.body);
    if (typeof body['payment_date'] !== 'string') {
      throw validationError([{ path: 'payment_date', message: 'is required' }]);
    }
    const accountId = body['financial_account_id'] ?? title.financial_account_id;
    if (accountId === null || accountId === undefined) {
      throw new ApiError('UNPROCESSABLE_ENTITY', `The ${v.label.toLowerCase()} has no account; give financial_account_id.`);
    }
    await requireAccountReference(ctx, accountId);
    const interest = readOptionalCents(body['interest_amount'], 'interest_amount');
    const discount = readOptionalCents(body['discount_amount'], 'discount_amount');
    const paid = Number(title.amount_cents) + interest - discount;
    if (paid <= 0) throw new ApiError('UNPROCESSABLE_ENTITY', 'The discount must be smaller than the amount plus interest.');

    const transactionId = randomUUID();
    const claimed = await ctx.db.updateTable('titles').set({
      status: v.settledStatus, payment_date: body['payment_date'], financial_account_id: accountId as string,
      paid_amount_cents: paid, interest_cents: interest, discount_cents: discount, transaction_id: transactionId, ...updateAudit(ctx),
    }).where('workspace_id', '=', title.workspace_id).where('id', '=', title.id).where('status', '=', 'pending').executeTakeFirst();
    // The loser of a race sees 0 rows here and writes no transaction.
    if (Number(claimed.numUpdatedRows) === 0) throw new ApiError('UNPROCESSABLE_ENTITY', notPending);

    await ctx.db.insertInto('transactions').values({
      id: transactionId, workspace_id: title.workspace_id, financial_account_id: accountId as string, type: v.transactionType,
      amount_cents: paid, occurred_at: body['payment_date'], description: title.description, category_id: title.category_id,
      person_id: title.person_id, source: 'settlement', source_id: title.id, ...insertAudit(ctx),
    }).execute();
    await recordActivity(ctx, { operation: `${v.resource}.settle`, resource: v.resource, recordId: title.id });
    return { status: 200, body: await readTitleJson(ctx, v, title.id) };
  };
}

function buildReopen(v: TitleVocabulary): OperationHandler {
  const notSettled = `Only a ${v.settledStatus} ${v.label.toLowerCase()} can be reopened.`;
  return async (ctx, input) => {
    const title = await findTitle(ctx, v, input.path['id']);
    if (title.status !== v.settledStatus) throw new ApiError('UNPROCESSABLE_ENTITY', notSettled);
    const reopened = await ctx.db.updateTable('titles').set({
      status: 'pending', payment_date: null, paid_amount_cents: null, interest_cents: null, discount_cents: null,
      transaction_id: null, ...updateAudit(ctx),
    }).where('workspace_id', '=', title.workspace_id).where('id', '=', title.id).where('status', '=', v.settledStatus).executeTakeFirst();
    if (Number(reopened.numUpdatedRows) === 0) throw new ApiError('UNPROCESSABLE_ENTITY', notSettled);
    await deleteSettlementTransaction(ctx, title.transaction_id);
    await recordActivity(ctx, { operation: `${v.resource}.reopen`, resource: v.resource, recordId: title.id });
    return { status: 200, body: await readTitleJson(ctx, v, title.id) };
  };
}

function buildCancel(v: TitleVocabulary): OperationHandler {
  const notPending = `Only a pending ${v.label.toLowerCase()} can be cancelled.`;
  return async (ctx, input) => {
    const title = await findTitle(ctx, v, input.path['id']);
    const cancelled = await ctx.db.updateTable('titles').set({ status: 'cancelled', ...updateAudit(ctx) })
      .where('workspace_id', '=', title.workspace_id).where('id', '=', title.id).where('status', '=', 'pending').executeTakeFirst();
    if (Number(cancelled.numUpdatedRows) === 0) throw new ApiError('UNPROCESSABLE_ENTITY', notPending);
    await recordActivity(ctx, { operation: `${v.resource}.cancel`, resource: v.resource, recordId: title.id });
    return { status: 200, body: await readTitleJson(ctx, v, title.id) };
  };
}

export function buildSettlementHandlers(v: TitleVocabulary): { settle: OperationHandler; reopen: OperationHandler; cancel: OperationHandler } {
  return { settle: buildSettle(v), reopen: buildReopen(v), cancel: buildCancel(v) };
}
