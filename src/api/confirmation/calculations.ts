/**
 * The server's own computations a confirmation template shows (`{calc.<name>.<value>}`,
 * src/runtime/confirm-template.ts `CALCULATIONS`), each the function the operation's handler
 * writes with, so the sentence and the write never differ. Computed over the target record (as
 * its GET answers it) and the call's arguments; a computation the call would fail throws the
 * operation's own error, answered before the person is asked.
 *
 *   computeCalculations(names, record, input) → { settlement: { payment_date, paid_amount, … } }
 */
import type { CalculationName } from '../../runtime/confirm-template.js';
import { isPlainObject } from '../../runtime/values.js';
import type { OperationInput } from '../context.js';
import { formatCents, parseMoneyInputAllowZero } from '../money.js';
import { readBody } from '../records.js';
import { planSettlement } from '../rules/settlement.js';

type Values = Readonly<Record<string, string>>;

const COMPUTE: Readonly<Record<CalculationName, (record: Record<string, unknown>, input: OperationInput) => Values>> = {
  /** A settle of the target title: planSettlement over its amount and account and the call's payment. */
  settlement: (record, input) => {
    const account = record['financial_account_id'];
    const plan = planSettlement(
      { amount_cents: parseMoneyInputAllowZero(record['amount'], 'amount'), financial_account_id: typeof account === 'string' ? account : null },
      readBody(input.body), 'record',
    );
    return {
      payment_date: plan.paymentDate, paid_amount: formatCents(plan.paidCents),
      interest_amount: formatCents(plan.interestCents), discount_amount: formatCents(plan.discountCents),
    };
  },
};

export function computeCalculations(names: readonly CalculationName[], record: unknown, input: OperationInput): Record<string, Values> {
  const target = isPlainObject(record) ? record : {};
  return Object.fromEntries(names.map((name) => [name, COMPUTE[name](target, input)]));
}
