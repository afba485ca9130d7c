/**
 * Confirmation sentences for payables and receivables (settle, reopen, cancel, delete), built
 * on `describeTitleForConfirmation` (src/api/rules/titles.ts) so the record, counterparty,
 * amount, due date and account come from the same reads the API uses, and a settle's payment
 * (date, amount paid, interest, discount) from `planSettlement` (src/api/rules/settlement.ts),
 * the computation the handler writes. Business rules stay in the API (a status that does not allow
 * the action is refused with the handler's own error before the person is asked); no argument is shown verbatim.
 *
 *   Settle payable "Aluguel" of R$ 1.000,00 to "Imobiliária" from account "Itaú", paying R$ 1.002,30 on 2026-03-09 (interest R$ 12,30, discount R$ 10,00)?
 *   Cancel receivable "Venda 42" of R$ 600,00 from "Cliente" on account "Itaú", due 2026-03-10?
 */
import { notFound } from '../errors.js';
import { readBody } from '../records.js';
import { isUuid } from '../../runtime/values.js';
import { assertTitleAction, planSettlement, type SettlementPlan } from '../rules/settlement.js';
import { PAYABLES, RECEIVABLES } from '../rules/title-records.js';
import { describeTitleForConfirmation, type TitleConfirmationSummary } from '../rules/titles.js';
import { formatBrl } from './brl.js';
import { nameIfReadable, quoteName, readPathId, type DescribeRequest, type DescribeTarget } from './target.js';
import type { TITLE_DESCRIBER_ACTIONS } from '../../runtime/describers.js';

type TitleKind = 'payable' | 'receivable';
export type TitleAction = (typeof TITLE_DESCRIBER_ACTIONS)[number];

const VERBS: Readonly<Record<TitleAction, string>> = { settle: 'Settle', reopen: 'Reopen', cancel: 'Cancel', delete: 'Delete' };

async function readAccountName(request: DescribeRequest, id: unknown): Promise<string | null> {
  if (!isUuid(id)) return null;
  const row = await request.db.selectFrom('accounts').select('name')
    .where('workspace_id', '=', request.workspaceId).where('id', '=', id).executeTakeFirst();
  return row?.name ?? null;
}

/** `payable "X" of R$ 1,00 to "Vendor"` / `receivable "X" of R$ 1,00 from "Customer"`. */
function describeTitle(request: DescribeRequest, kind: TitleKind, title: TitleConfirmationSummary): string {
  const counterparty = nameIfReadable(request, 'people', title.counterparty);
  const party = counterparty === null ? '' : ` ${kind === 'payable' ? 'to' : 'from'} ${counterparty}`;
  return `${kind} ${quoteName(title.description)} of ${formatBrl(title.amountCents)}${party}`;
}

function describeAccount(request: DescribeRequest, kind: TitleKind, action: TitleAction, accountName: string | null): string {
  const preposition = action === 'settle' ? (kind === 'payable' ? 'from' : 'into') : 'on';
  // A settle always names an account (planSettlement refuses none): one not found is named so; the call answers the error.
  if (accountName === null) return action === 'settle' ? ` ${preposition} an unknown account` : '';
  const named = nameIfReadable(request, 'accounts', accountName);
  return named === null ? ` ${preposition} an account` : ` ${preposition} account ${named}`;
}

/** `, paying R$ 1.002,30 on 2026-03-09 (interest R$ 12,30, discount R$ 10,00)`: the settle's own plan (planSettlement), what the handler writes. */
function describePayment(kind: TitleKind, plan: SettlementPlan): string {
  const verb = kind === 'payable' ? 'paying' : 'receiving';
  return `, ${verb} ${formatBrl(plan.paidCents)} on ${plan.paymentDate} (interest ${formatBrl(plan.interestCents)}, discount ${formatBrl(plan.discountCents)})`;
}

/** Settle: the account the call names (else the title's) and the payment planned as the handler plans it. */
async function describeSettlement(request: DescribeRequest, kind: TitleKind, title: TitleConfirmationSummary): Promise<string> {
  const plan = planSettlement({ amount_cents: title.amountCents, financial_account_id: title.accountId }, readBody(request.input.body), kind);
  const accountName = plan.accountId === title.accountId ? title.accountName : await readAccountName(request, plan.accountId);
  return `${describeAccount(request, kind, 'settle', accountName)}${describePayment(kind, plan)}`;
}

/** What follows the record: for a settle the account and the payment, for a cancel the due date, else the account. */
async function describeDetails(request: DescribeRequest, kind: TitleKind, action: TitleAction, title: TitleConfirmationSummary): Promise<string> {
  if (action === 'settle') return describeSettlement(request, kind, title);
  const account = describeAccount(request, kind, action, title.accountName);
  return action === 'cancel' ? `${account}, due ${title.dueDate}` : account;
}

export function buildTitleDescriber(kind: TitleKind, action: TitleAction): DescribeTarget {
  return async (request) => {
    const title = await describeTitleForConfirmation(request.db, request.workspaceId, kind, readPathId(request.input));
    if (title === null) throw notFound(kind === 'payable' ? 'Payable' : 'Receivable');
    // What the handler would refuse for the title's status is refused before anyone is asked.
    if (action !== 'delete') assertTitleAction(kind === 'payable' ? PAYABLES : RECEIVABLES, action, { status: title.status, transaction_id: title.transactionId });
    return {
      version: title.version,
      message: `${VERBS[action]} ${describeTitle(request, kind, title)}${await describeDetails(request, kind, action, title)}?`,
    };
  };
}
