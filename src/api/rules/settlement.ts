/**
 * Settle, reopen and cancel of payables/receivables (docs/domain.md#settle, docs/domain.md#reopen, docs/domain.md#cancel).
 * Every state-changing title operation (these and titles.ts's update/delete) starts with
 * findTitleForUpdate: on PostgreSQL the title row is locked before it is read, so concurrent
 * changes to one title run one after the other and each decides on what the previous one
 * committed (never on a value read before it — a reopen deleting a settlement it had read
 * while another reopen + settle replaced it left that new settlement orphaned). The status
 * change itself stays a conditional UPDATE on what was read, checked before any money row is
 * written. SQLite serialises write transactions. All inside ctx.db's transaction.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { TitlesTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import { MAX_BALANCE_CENTS, parseMoneyInputAllowZero } from '../money.js';
import { lockRow, readBody, requireWorkspace } from '../records.js';
import { isPostgres } from '../../store/migrations/column-types.js';
import { isUuid } from '../../runtime/values.js';
import { assertBalancesWithinBound } from './account-balance.js';
import { deleteAllocations } from './allocations.js';
import { deleteAttachmentLinks } from './attachment-links.js';
import { requireAccountReference } from './references.js';
import { findTitle, readTitleJson, type TitleVocabulary } from './title-records.js';

/** The title, read after its row is locked FOR UPDATE (PostgreSQL) until the operation's transaction ends. */
export async function findTitleForUpdate(ctx: OperationContext, v: TitleVocabulary, id: string | undefined): Promise<Selectable<TitlesTable>> {
  await lockRow(ctx, 'titles', id ?? '', 'update');
  return findTitle(ctx, v, id);
}

/**
 * The titles of `ids` of kind `v` in the workspace, keyed by id (an id that is not there is
 * absent). With `lock` (PostgreSQL), their rows are first locked FOR UPDATE in one query ordered
 * by id — rows are locked in the order the sort yields them — so two calls locking overlapping
 * sets always take the locks in the same order and cannot deadlock. At most a batch of ids (bounded by the caller).
 */
export async function findTitlesForUpdate(
  ctx: Pick<OperationContext, 'db' | 'workspaceId'>, v: TitleVocabulary, ids: readonly string[], options: { readonly lock: boolean } = { lock: true },
): Promise<ReadonlyMap<string, Selectable<TitlesTable>>> {
  const sorted = [...new Set(ids.filter(isUuid))].sort();
  if (sorted.length === 0) return new Map();
  const workspaceId = requireWorkspace(ctx);
  if (options.lock && isPostgres(ctx.db as unknown as Kysely<unknown>)) {
    await ctx.db.selectFrom('titles').select('id').where('workspace_id', '=', workspaceId).where('id', 'in', sorted).orderBy('id').forUpdate().execute();
  }
  const rows = await ctx.db.selectFrom('titles').selectAll()
    .where('workspace_id', '=', workspaceId).where('kind', '=', v.kind).where('id', 'in', sorted).execute();
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Removes a settlement transaction and what hangs off it (its split and attachment links). The
 * row is locked first: a link being written holds it FOR SHARE, so it either commits before and
 * is removed here, or waits and then finds the transaction gone.
 */
export async function deleteSettlementTransaction(ctx: OperationContext, transactionId: string | null): Promise<void> {
  if (!transactionId) return;
  await lockRow(ctx, 'transactions', transactionId, 'update');
  await deleteAllocations(ctx, 'transaction', transactionId);
  await deleteAttachmentLinks(ctx, 'transaction', transactionId);
  const removed = await ctx.db.deleteFrom('transactions')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', transactionId).where('source', '=', 'settlement')
    .returning('financial_account_id').executeTakeFirst();
  // Removing a credit (or debit) moves the balance too: it must stay renderable.
  if (removed) await assertBalancesWithinBound(ctx, [removed.financial_account_id]);
}

function readOptionalCents(value: unknown, path: string): number {
  return value === undefined || value === null ? 0 : parseMoneyInputAllowZero(value, path);
}

/** What a settle will write, computed once from the title and the call's arguments. */
export interface SettlementPlan {
  readonly paymentDate: string;
  /** The account the call names, else the title's. */
  readonly accountId: string;
  readonly interestCents: number;
  readonly discountCents: number;
  /** amount + interest − discount: the settlement transaction's amount. */
  readonly paidCents: number;
}

/**
 * The settlement a settle call makes of a pending title: the same computation for the handler
 * (what it writes) and the confirmation sentence (what the person is told), so the two never
 * differ. Throws the settle's own errors (no payment date, no account, a discount too large).
 * The account's existence is the caller's check (`requireAccountReference`).
 */
export function planSettlement(
  title: { readonly amount_cents: number | string; readonly financial_account_id: string | null }, body: Record<string, unknown>, label: string,
): SettlementPlan {
  const paymentDate = body['payment_date'];
  if (typeof paymentDate !== 'string') throw validationError([{ path: 'payment_date', message: 'is required' }]);
  const accountId = body['financial_account_id'] ?? title.financial_account_id;
  if (typeof accountId !== 'string') throw new ApiError('UNPROCESSABLE_ENTITY', `The ${label.toLowerCase()} has no account; give financial_account_id.`);
  const interestCents = readOptionalCents(body['interest_amount'], 'interest_amount');
  const discountCents = readOptionalCents(body['discount_amount'], 'discount_amount');
  const paidCents = Number(title.amount_cents) + interestCents - discountCents;
  if (paidCents <= 0) throw new ApiError('UNPROCESSABLE_ENTITY', 'The discount must be smaller than the amount plus interest.');
  // The paid amount is rendered as Money (12 integer digits), like every amount the API stores.
  if (BigInt(paidCents) > MAX_BALANCE_CENTS) throw validationError([{ path: 'interest_amount', message: 'makes the paid amount exceed 999999999999.99' }]);
  return { paymentDate, accountId, interestCents, discountCents, paidCents };
}

/** The status changes a title allows: settle and cancel a pending one, reopen a settled one. */
export type TitleStatusAction = 'settle' | 'reopen' | 'cancel';

/** The refusal of `action` on a title whose status does not allow it (the same words from the handler and the confirmation). */
export function titleActionRefusal(v: TitleVocabulary, action: TitleStatusAction): ApiError {
  const label = v.label.toLowerCase();
  const message = action === 'reopen' ? `Only a ${v.settledStatus} ${label} can be reopened.` : `Only a pending ${label} can be ${action === 'settle' ? 'settled' : 'cancelled'}.`;
  return new ApiError('UNPROCESSABLE_ENTITY', message);
}

/**
 * Refuses `action` when the title's status does not allow it. The handler asks it under its lock;
 * the confirmation asks it before the person is asked (src/api/confirmation/describe-titles.ts),
 * so nobody confirms a cancel of a paid bill only to be told it cannot be done.
 */
export function assertTitleAction(v: TitleVocabulary, action: TitleStatusAction, title: { readonly status: string; readonly transaction_id: string | null }): void {
  const allowed = action === 'reopen' ? title.status === v.settledStatus && title.transaction_id !== null : title.status === 'pending';
  if (!allowed) throw titleActionRefusal(v, action);
}

/**
 * Writes the settlement `plan` of a pending title read under its lock: the conditional status
 * change, then its transaction and activity entry. The account is the caller's check
 * (`requireAccountReference`), and so is the balance bound (`assertBalancesWithinBound`, once for
 * every account a call touches). Answers the settlement transaction's id.
 */
export async function writeSettlement(
  ctx: OperationContext, v: TitleVocabulary, title: Selectable<TitlesTable>, plan: SettlementPlan, operation = `${v.resource}.settle`,
): Promise<string> {
  const { accountId, paidCents: paid, interestCents: interest, discountCents: discount } = plan;
  const transactionId = randomUUID();
  const claimed = await ctx.db.updateTable('titles').set({
    status: v.settledStatus, payment_date: plan.paymentDate, financial_account_id: accountId,
    paid_amount_cents: paid, interest_cents: interest, discount_cents: discount, transaction_id: transactionId, ...updateAudit(ctx),
  }).where('workspace_id', '=', title.workspace_id).where('id', '=', title.id).where('status', '=', 'pending').executeTakeFirst();
  // The loser of a race sees 0 rows here and writes no transaction.
  if (Number(claimed.numUpdatedRows) === 0) throw titleActionRefusal(v, 'settle');

  await ctx.db.insertInto('transactions').values({
    id: transactionId, workspace_id: title.workspace_id, financial_account_id: accountId, type: v.transactionType,
    amount_cents: paid, occurred_at: plan.paymentDate, description: title.description, category_id: title.category_id,
    person_id: title.person_id, source: 'settlement', source_id: title.id, ...insertAudit(ctx),
  }).execute();
  await recordActivity(ctx, { operation, resource: v.resource, recordId: title.id });
  return transactionId;
}

function buildSettle(v: TitleVocabulary): OperationHandler {
  return async (ctx, input) => {
    const title = await findTitleForUpdate(ctx, v, input.path['id']);
    assertTitleAction(v, 'settle', title);
    const plan = planSettlement(title, readBody(input.body), v.label);
    await requireAccountReference(ctx, plan.accountId);
    await writeSettlement(ctx, v, title, plan);
    await assertBalancesWithinBound(ctx, [plan.accountId]);
    return { body: await readTitleJson(ctx, v, title.id) };
  };
}

function buildReopen(v: TitleVocabulary): OperationHandler {
  return async (ctx, input) => {
    const title = await findTitleForUpdate(ctx, v, input.path['id']);
    assertTitleAction(v, 'reopen', title);
    const settlementId = title.transaction_id as string;
    // Conditional on the settlement read above too: only the transaction this call cleared is deleted.
    const reopened = await ctx.db.updateTable('titles').set({
      status: 'pending', payment_date: null, paid_amount_cents: null, interest_cents: null, discount_cents: null,
      transaction_id: null, ...updateAudit(ctx),
    }).where('workspace_id', '=', title.workspace_id).where('id', '=', title.id).where('status', '=', v.settledStatus)
      .where('transaction_id', '=', settlementId).executeTakeFirst();
    if (Number(reopened.numUpdatedRows) === 0) throw titleActionRefusal(v, 'reopen');
    await deleteSettlementTransaction(ctx, settlementId);
    await recordActivity(ctx, { operation: `${v.resource}.reopen`, resource: v.resource, recordId: title.id });
    return { body: await readTitleJson(ctx, v, title.id) };
  };
}

/** Cancels a pending title read under its lock (the conditional status change and its activity entry). */
export async function writeCancel(ctx: OperationContext, v: TitleVocabulary, title: Selectable<TitlesTable>, operation = `${v.resource}.cancel`): Promise<void> {
  const cancelled = await ctx.db.updateTable('titles').set({ status: 'cancelled', ...updateAudit(ctx) })
    .where('workspace_id', '=', title.workspace_id).where('id', '=', title.id).where('status', '=', 'pending').executeTakeFirst();
  if (Number(cancelled.numUpdatedRows) === 0) throw titleActionRefusal(v, 'cancel');
  await recordActivity(ctx, { operation, resource: v.resource, recordId: title.id });
}

function buildCancel(v: TitleVocabulary): OperationHandler {
  return async (ctx, input) => {
    const title = await findTitleForUpdate(ctx, v, input.path['id']);
    assertTitleAction(v, 'cancel', title);
    await writeCancel(ctx, v, title);
    return { body: await readTitleJson(ctx, v, title.id) };
  };
}

export function buildSettlementHandlers(v: TitleVocabulary): { settle: OperationHandler; reopen: OperationHandler; cancel: OperationHandler } {
  return { settle: buildSettle(v), reopen: buildReopen(v), cancel: buildCancel(v) };
}
