/**
 * Settle and cancel of up to 50 payables or receivables in one call (docs/domain.md#batches):
 * one transaction, all or nothing. Built on the single settle and cancel (settlement.ts): each
 * title is checked with `assertTitleAction` and planned with `planSettlement`, and written with
 * `writeSettlement` / `writeCancel`. The plan (`prepareBatch`) is the same for the handler (under
 * the titles' locks, taken in id order), the confirmation sentence (src/api/confirmation/describe-titles.ts)
 * and the money measure (`payable-batch-settlement`, src/api/money/measures.ts), so what the person is told, what the limits count
 * and what is written never differ. A batch with any title that cannot run is refused whole with
 * the title's own error code and every failing title in `details.failed` (`{index, id, code, message}`).
 *
 *   readBatchItems(action, body): BatchItem[]                      // VALIDATION_ERROR: not 1–50 items, an id given twice (the later index named)
 *   prepareBatch(ctx, v, action, input, {lock}): Promise<PreparedBatch> // throws the batch refusal
 *   buildBatchHandlers(v): {settleBatch, cancelBatch}
 */
import type { Selectable } from 'kysely';
import type { TitlesTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler, OperationInput } from '../context.js';
import { ApiError, validationError, type ApiErrorCode } from '../errors.js';
import { formatCents } from '../money.js';
import { readBody } from '../records.js';
import { assertBalancesWithinBound } from './account-balance.js';
import { requireAccountReference } from './references.js';
import {
  assertTitleAction, findTitlesForUpdate, planSettlement, writeCancel, writeSettlement, type SettlementPlan,
} from './settlement.js';
import type { TitleVocabulary } from './title-records.js';

/** Titles one batch call settles or cancels at most (the contract's `maxItems`). */
export const MAX_BATCH_TITLES = 50;

export type BatchAction = 'settle' | 'cancel';

/** One title of the call: its place in the list, its id and (a settle) its own payment arguments. */
export interface BatchItem {
  readonly index: number;
  readonly id: string;
  readonly body: Readonly<Record<string, unknown>>;
}

/** A title that cannot run, as `details.failed` lists it. */
export interface BatchFailure {
  readonly index: number;
  readonly id: string;
  readonly code: ApiErrorCode;
  readonly message: string;
}

/** What the fields of `input.body` hold the titles under, and how an issue names one. */
function listOf(action: BatchAction, body: Record<string, unknown>): { list: unknown; at: (index: number) => string } {
  return action === 'settle'
    ? { list: body['items'], at: (index) => `items[${index}].id` }
    : { list: body['ids'], at: (index) => `ids[${index}]` };
}

/**
 * The call's titles, in the order given. The contract bounds the list (1–50) and each entry's
 * shape; an id given twice is refused here, naming the later entry and the earlier one's index
 * (never the value), so one title is never settled twice in one call.
 */
export function readBatchItems(action: BatchAction, rawBody: unknown): BatchItem[] {
  const body = readBody(rawBody);
  const { list, at } = listOf(action, body);
  const field = action === 'settle' ? 'items' : 'ids';
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_BATCH_TITLES) {
    throw validationError([{ path: field, message: `must list from 1 to ${MAX_BATCH_TITLES} titles` }]);
  }
  const first = new Map<string, number>();
  const issues: { path: string; message: string }[] = [];
  const items = list.map((entry: unknown, index): BatchItem => {
    const item = action === 'settle' ? readBody(entry) : {};
    const id = action === 'settle' ? item['id'] : entry;
    if (typeof id !== 'string') {
      issues.push({ path: at(index), message: 'is required' });
      return { index, id: '', body: item };
    }
    const earlier = first.get(id.toLowerCase());
    if (earlier === undefined) first.set(id.toLowerCase(), index);
    else issues.push({ path: at(index), message: `repeats the title of entry ${earlier}` });
    return { index, id, body: item };
  });
  if (issues.length > 0) throw validationError(issues.slice(0, MAX_BATCH_TITLES));
  return items;
}

const PAST: Readonly<Record<BatchAction, string>> = { settle: 'settled', cancel: 'cancelled' };

/** The refusal of a whole batch: the first failing title's code, every failing title named (bounded: at most one per entry). */
export function batchRefusal(v: TitleVocabulary, action: BatchAction, count: number, failures: readonly BatchFailure[]): ApiError {
  const failed = [...failures].sort((a, b) => a.index - b.index).slice(0, MAX_BATCH_TITLES);
  const code = failed[0]?.code ?? 'UNPROCESSABLE_ENTITY';
  const noun = count === 1 ? v.label.toLowerCase() : `${v.resource}`;
  const message = `${failed.length} of the ${count} ${noun} cannot be ${PAST[action]}; nothing was changed (see details.failed).`;
  return new ApiError(code, message, { failed: failed.map((f) => ({ index: f.index, id: f.id, code: f.code, message: f.message })) });
}

function failureOf(item: BatchItem, error: unknown): BatchFailure {
  if (!(error instanceof ApiError)) throw error;
  // A validation error of the item's own arguments says which one (its path under the entry).
  const issue = error.code === 'VALIDATION_ERROR' ? (error.details?.['issues'] as readonly { path: string; message: string }[] | undefined)?.[0] : undefined;
  const message = issue ? `items[${item.index}].${issue.path} ${issue.message}.` : error.message;
  return { index: item.index, id: item.id, code: error.code, message };
}

/** One title of a batch that can run: the title read (under its lock in a write) and, for a settle, its plan. */
export interface PlannedTitle {
  readonly item: BatchItem;
  readonly title: Selectable<TitlesTable>;
  /** The settlement the title gets (null for a cancel). */
  readonly plan: SettlementPlan | null;
}

export interface PreparedBatch {
  readonly action: BatchAction;
  /** In the call's order. */
  readonly titles: readonly PlannedTitle[];
  /** The accounts the settlements use (id → name), read in id order; empty for a cancel. */
  readonly accounts: ReadonlyMap<string, string>;
  /** Sum of the paid amounts (a settle) or of the amounts (a cancel), exact cents. */
  readonly totalCents: number;
}

/** Each title checked and planned as the single settle or cancel checks and plans it; the titles that cannot run are collected, not thrown. */
function planTitles(
  v: TitleVocabulary, action: BatchAction, items: readonly BatchItem[], found: ReadonlyMap<string, Selectable<TitlesTable>>,
): { planned: PlannedTitle[]; failures: BatchFailure[] } {
  const planned: PlannedTitle[] = [];
  const failures: BatchFailure[] = [];
  for (const item of items) {
    const title = found.get(item.id.toLowerCase()) ?? found.get(item.id);
    try {
      if (title === undefined) throw new ApiError('NOT_FOUND', `${v.label} not found.`);
      assertTitleAction(v, action, title);
      planned.push({ item, title, plan: action === 'settle' ? planSettlement(title, { ...item.body }, v.label) : null });
    } catch (error) {
      failures.push(failureOf(item, error));
    }
  }
  return { planned, failures };
}

/** The settlements' accounts, checked as the single settle checks its one (in id order: their FOR SHARE locks are taken in a stable order too). */
async function checkAccounts(
  ctx: Pick<OperationContext, 'db' | 'workspaceId'>, planned: readonly PlannedTitle[],
): Promise<{ accounts: Map<string, string>; failures: BatchFailure[] }> {
  const accounts = new Map<string, string>();
  const failures: BatchFailure[] = [];
  const ids = [...new Set(planned.flatMap((p) => (p.plan ? [p.plan.accountId] : [])))].sort();
  for (const id of ids) {
    try {
      accounts.set(id, (await requireAccountReference(ctx, id)).name);
    } catch (error) {
      for (const p of planned) if (p.plan?.accountId === id) failures.push(failureOf(p.item, error));
    }
  }
  return { accounts, failures };
}

/**
 * The batch as it would run now: every title found (locked FOR UPDATE in id order with `lock`),
 * its status allowing the action, its settlement planned and its account there. Throws
 * `batchRefusal` naming every title that cannot run, or the validation error of the list itself.
 */
export async function prepareBatch(
  ctx: Pick<OperationContext, 'db' | 'workspaceId'>, v: TitleVocabulary, action: BatchAction, input: OperationInput, options: { readonly lock: boolean },
): Promise<PreparedBatch> {
  const items = readBatchItems(action, input.body);
  const found = await findTitlesForUpdate(ctx, v, items.map((item) => item.id.toLowerCase()), options);
  const { planned, failures } = planTitles(v, action, items, found);
  const checked = await checkAccounts(ctx, planned);
  const all = [...failures, ...checked.failures];
  if (all.length > 0) throw batchRefusal(v, action, items.length, all);
  const totalCents = planned.reduce((sum, p) => sum + (p.plan ? p.plan.paidCents : Number(p.title.amount_cents)), 0);
  return { action, titles: planned, accounts: checked.accounts, totalCents };
}

/** Runs one title's write; an error it throws (a race lost on SQLite's serialised writer cannot happen under the lock, but a bound can) names the title. */
async function writeItem(v: TitleVocabulary, batch: PreparedBatch, p: PlannedTitle, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    throw batchRefusal(v, batch.action, batch.titles.length, [failureOf(p.item, error)]);
  }
}

function buildSettleBatch(v: TitleVocabulary): OperationHandler {
  return async (ctx, input) => {
    const batch = await prepareBatch(ctx, v, 'settle', input, { lock: true });
    const operation = `${v.resource}.settle_batch`;
    const items: Record<string, unknown>[] = [];
    for (const p of batch.titles) {
      const plan = p.plan as SettlementPlan;
      let transactionId = '';
      await writeItem(v, batch, p, async () => { transactionId = await writeSettlement(ctx, v, p.title, plan, operation); });
      items.push({
        id: p.title.id, description: p.title.description, status: v.settledStatus, amount: formatCents(p.title.amount_cents),
        paid_amount: formatCents(plan.paidCents), payment_date: plan.paymentDate, financial_account_id: plan.accountId, transaction_id: transactionId,
      });
    }
    // Each account's balance must stay renderable after every settlement of the batch.
    await assertBalancesWithinBound(ctx, [...batch.accounts.keys()]);
    // `status` tells the report from an approval request (`pending_approval`) in the tool's output union.
    return { body: { status: 'settled', items, count: items.length, total: formatCents(batch.totalCents) } };
  };
}

function buildCancelBatch(v: TitleVocabulary): OperationHandler {
  return async (ctx, input) => {
    const batch = await prepareBatch(ctx, v, 'cancel', input, { lock: true });
    const operation = `${v.resource}.cancel_batch`;
    const items: Record<string, unknown>[] = [];
    for (const p of batch.titles) {
      await writeItem(v, batch, p, () => writeCancel(ctx, v, p.title, operation));
      items.push({ id: p.title.id, description: p.title.description, status: 'cancelled', amount: formatCents(p.title.amount_cents) });
    }
    return { body: { items, count: items.length, total: formatCents(batch.totalCents) } };
  };
}

/** `<resource>.settle_batch` and `<resource>.cancel_batch` of one title kind. */
export function buildBatchHandlers(v: TitleVocabulary): Record<string, OperationHandler> {
  return { [`${v.resource}.settle_batch`]: buildSettleBatch(v), [`${v.resource}.cancel_batch`]: buildCancelBatch(v) };
}
