/**
 * The named measures of `x-kobana-moves-money: {outflow: <name>}` (openapi/README.md): what one
 * call moves **out**, computed with the operation's own rules (the settle's `planSettlement`,
 * the transfer's amount), so the limits count exactly what the operation then writes.
 *
 *   MONEY_MEASURES: Readonly<Record<string, MoneyMeasure>>
 *   findMeasure(name): MoneyMeasure                       // throws for a name no measure has (start-up refuses it)
 *   measureMove(ctx, operation, input, {lock}): Promise<MeasuredMove | null>
 */
import type { OperationContext, OperationInput } from '../context.js';
import type { OperationRef } from '../../runtime/types.js';
import { MAX_BALANCE_CENTS, parseMoneyInput } from '../money.js';
import { ApiError } from '../errors.js';
import { readBody, requireWorkspace } from '../records.js';
import { assertTitleAction, findTitleForUpdate, planSettlement, type SettlementPlan } from '../rules/settlement.js';
import { prepareBatch } from '../rules/settlement-batch.js';
import { findTitle, PAYABLES } from '../rules/title-records.js';
import type { MeasuredMove, MoneyItem, MoneyMeasure } from './types.js';

/** `payables.settle`: the amount paid (amount + interest − discount) to the payable's person, from the account it is paid from. */
const payableSettlement: MoneyMeasure = async (ctx, input, { lock }) => {
  const id = input.path['id'];
  const title = lock ? await findTitleForUpdate(ctx, PAYABLES, id) : await findTitle(ctx, PAYABLES, id);
  assertTitleAction(PAYABLES, 'settle', title);
  const plan = planSettlement(title, readBody(input.body), PAYABLES.label);
  return [{
    kind: 'payable', recordId: title.id, cents: plan.paidCents, payeePersonId: title.person_id, accountId: plan.accountId,
    version: Number(title.version), label: `payable ${JSON.stringify(title.description)}`,
  }];
};

/**
 * `payables.settle_batch`: one item per payable, planned as the batch runs (`prepareBatch`): its
 * paid amount, its person, its account, its version; with `lock` the payables are locked in id order.
 */
const payableBatchSettlement: MoneyMeasure = async (ctx, input, options) => {
  const batch = await prepareBatch(ctx, PAYABLES, 'settle', input, options);
  return batch.titles.map(({ title, plan }): MoneyItem => {
    const { paidCents, accountId } = plan as SettlementPlan;
    return {
      kind: 'payable', recordId: title.id, cents: paidCents, payeePersonId: title.person_id, accountId,
      version: Number(title.version), label: `payable ${JSON.stringify(title.description)}`,
    };
  });
};

/** `transfers.create`: the amount leaving the source account; the destination is the workspace's own account, so no payee. */
const transfer: MoneyMeasure = async (_ctx, input) => {
  const body = readBody(input.body);
  const cents = parseMoneyInput(body['amount'], 'amount');
  const from = typeof body['from_account_id'] === 'string' ? body['from_account_id'] : null;
  return [{ kind: 'transfer', recordId: null, cents, payeePersonId: null, accountId: from, version: null, label: 'transfer' }];
};

/**
 * `reconciliations.create`: the open payables it settles (each at its amount, as the
 * reconciliation settles it, to the payable's person, from the statement lines' account). A
 * reconciliation records a bank movement, but its lines can come from any imported file, so the
 * payables it marks paid are held to the money controls like a settle. Items already settled,
 * receivables and transactions move nothing out.
 */
const reconciliationSettlement: MoneyMeasure = async (ctx, input, { lock }) => {
  const body = readBody(input.body);
  const items = Array.isArray(body['items']) ? (body['items'] as Record<string, unknown>[]) : [];
  const payableIds = items.filter((item) => item['type'] === 'payable').map((item) => String(item['id']));
  if (payableIds.length === 0) return [];
  const lineIds = Array.isArray(body['statement_line_ids']) ? (body['statement_line_ids'] as unknown[]).map(String) : [];
  const line = lineIds.length === 0 ? undefined : await ctx.db.selectFrom('statement_lines').select('financial_account_id')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', 'in', lineIds).orderBy('id').limit(1).executeTakeFirst();
  const measured: MoneyItem[] = [];
  for (const id of payableIds) {
    const title = await ctx.db.selectFrom('titles').selectAll().where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', id).where('kind', '=', 'payable').executeTakeFirst();
    // A payable that does not exist, or one not open, is the reconciliation's own refusal or moves nothing.
    if (!title || title.status !== 'pending') continue;
    const locked = lock ? await findTitleForUpdate(ctx, PAYABLES, id) : title;
    if (locked.status !== 'pending') continue;
    measured.push({
      kind: 'payable', recordId: locked.id, cents: Number(locked.amount_cents), payeePersonId: locked.person_id,
      accountId: line?.financial_account_id ?? locked.financial_account_id, version: Number(locked.version), label: `payable ${JSON.stringify(locked.description)}`,
    });
  }
  return measured;
};

export const MONEY_MEASURES: Readonly<Record<string, MoneyMeasure>> = Object.freeze({
  'payable-settlement': payableSettlement,
  'payable-batch-settlement': payableBatchSettlement,
  'reconciliation-settlement': reconciliationSettlement,
  transfer,
});

export function findMeasure(name: string): MoneyMeasure {
  const measure = MONEY_MEASURES[name];
  if (!measure) throw new Error(`x-kobana-moves-money names the measure "${name}", which src/api/money/measures.ts does not have`);
  return measure;
}

/** The call's outflows, or null when its operation moves nothing out. */
export async function measureMove(ctx: OperationContext, operation: OperationRef, input: OperationInput, options: { readonly lock: boolean }): Promise<MeasuredMove | null> {
  if (operation.outflow === null) return null;
  const items: readonly MoneyItem[] = await findMeasure(operation.outflow)(ctx, input, options);
  const totalCents = items.reduce((sum, item) => sum + item.cents, 0);
  // A total no amount of the API can render (Money: 12 integer digits) could never run: refused before any limit or request names it.
  if (BigInt(totalCents) > MAX_BALANCE_CENTS) throw new ApiError('UNPROCESSABLE_ENTITY', 'The move\'s total is over 999999999999.99; nothing was changed.');
  return { operationId: operation.operationId, items, totalCents };
}
