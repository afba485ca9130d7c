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
import { parseMoneyInput } from '../money.js';
import { readBody } from '../records.js';
import { assertTitleAction, findTitleForUpdate, planSettlement } from '../rules/settlement.js';
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

/** `transfers.create`: the amount leaving the source account; the destination is the workspace's own account, so no payee. */
const transfer: MoneyMeasure = async (_ctx, input) => {
  const body = readBody(input.body);
  const cents = parseMoneyInput(body['amount'], 'amount');
  const from = typeof body['from_account_id'] === 'string' ? body['from_account_id'] : null;
  return [{ kind: 'transfer', recordId: null, cents, payeePersonId: null, accountId: from, version: null, label: 'transfer' }];
};

export const MONEY_MEASURES: Readonly<Record<string, MoneyMeasure>> = Object.freeze({
  'payable-settlement': payableSettlement,
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
  return { operationId: operation.operationId, items, totalCents: items.reduce((sum, item) => sum + item.cents, 0) };
}
