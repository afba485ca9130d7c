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
 *
 * A batch (settle_batch, cancel_batch) is one sentence over the batch's own plan (`prepareBatch`,
 * src/api/rules/settlement-batch.ts): the count, the total (paid amounts for a settle), the
 * account(s), the payment date(s) and the three largest titles with their counterparties; a batch
 * with a title that cannot run is refused with the handler's own error before anyone is asked.
 *
 *   Settle 30 payables totalling R$ 12.345,67 from account "Itaú" on 2026-03-09 (largest: "Aluguel" R$ 5.000,00 to "Imobiliária X", …)?
 */
import { notFound } from '../errors.js';
import { readBody } from '../records.js';
import { isUuid } from '../../runtime/values.js';
import { assertTitleAction, planSettlement, type SettlementPlan } from '../rules/settlement.js';
import { PAYABLES, RECEIVABLES } from '../rules/title-records.js';
import { describeTitleForConfirmation, type TitleConfirmationSummary } from '../rules/titles.js';
import { formatBrl } from './brl.js';
import { nameIfReadable, quoteName, readPathId, type DescribeRequest, type DescribeTarget } from './target.js';
import type { TITLE_BATCH_DESCRIBER_ACTIONS, TITLE_DESCRIBER_ACTIONS } from '../../runtime/describers.js';
import { prepareBatch, type PlannedTitle, type PreparedBatch } from '../rules/settlement-batch.js';

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

export type TitleBatchAction = (typeof TITLE_BATCH_DESCRIBER_ACTIONS)[number];

/** The titles a batch sentence names one by one: the largest. */
const LARGEST_NAMED = 3;

function countOf(count: number, kind: TitleKind): string {
  return `${count} ${kind}${count === 1 ? '' : 's'}`;
}

/** `from account "Itaú"` / `from 3 accounts` (into, for receivables). */
function describeBatchAccounts(request: DescribeRequest, kind: TitleKind, accounts: ReadonlyMap<string, string>): string {
  const preposition = kind === 'payable' ? 'from' : 'into';
  const names = [...accounts.values()];
  if (names.length !== 1) return ` ${preposition} ${names.length} accounts`;
  const named = nameIfReadable(request, 'accounts', names[0]);
  return named === null ? ` ${preposition} one account` : ` ${preposition} account ${named}`;
}

/** `on 2026-03-09` / `between 2026-03-01 and 2026-03-09`. */
function describeBatchDates(titles: readonly PlannedTitle[]): string {
  const dates = [...new Set(titles.flatMap((t) => (t.plan ? [t.plan.paymentDate] : [])))].sort();
  if (dates.length === 0) return '';
  return dates.length === 1 ? ` on ${dates[0]}` : ` between ${dates[0]} and ${dates[dates.length - 1]}`;
}

function centsOf(title: PlannedTitle): number {
  return title.plan ? title.plan.paidCents : Number(title.title.amount_cents);
}

/** `largest: "Aluguel" R$ 5.000,00 to "Imobiliária X", …`: the three largest by the amount the batch moves (ties: the earlier entry). */
async function describeLargest(request: DescribeRequest, kind: TitleKind, batch: PreparedBatch): Promise<string> {
  const largest = [...batch.titles].sort((a, b) => centsOf(b) - centsOf(a) || a.item.index - b.item.index).slice(0, LARGEST_NAMED);
  const personIds = [...new Set(largest.flatMap((t) => (t.title.person_id ? [t.title.person_id] : [])))];
  const people = personIds.length === 0 ? [] : await request.db.selectFrom('people').select(['id', 'name'])
    .where('workspace_id', '=', request.workspaceId).where('id', 'in', personIds).execute();
  const names = new Map(people.map((p) => [p.id, p.name]));
  const parts = largest.map((t) => {
    const counterparty = nameIfReadable(request, 'people', t.title.person_id ? names.get(t.title.person_id) : null);
    const party = counterparty === null ? '' : ` ${kind === 'payable' ? 'to' : 'from'} ${counterparty}`;
    return `${quoteName(t.title.description)} ${formatBrl(centsOf(t))}${party}`;
  });
  return `${batch.titles.length > LARGEST_NAMED ? 'largest: ' : ''}${parts.join(', ')}`;
}

export function buildTitleBatchDescriber(kind: TitleKind, action: TitleBatchAction): DescribeTarget {
  const vocabulary = kind === 'payable' ? PAYABLES : RECEIVABLES;
  const batchAction = action === 'settle_batch' ? 'settle' : 'cancel';
  return async (request) => {
    // The handler's own plan, without its locks: a batch that cannot run is refused here with its error.
    const batch = await prepareBatch(request, vocabulary, batchAction, request.input, { lock: false });
    const where = batchAction === 'settle' ? `${describeBatchAccounts(request, kind, batch.accounts)}${describeBatchDates(batch.titles)}` : '';
    return {
      // Versions only grow: any change to any title of the batch changes the sum, so the proof refuses a batch changed since it was asked.
      version: batch.titles.reduce((sum, t) => sum + Number(t.title.version), 0),
      message: `${batchAction === 'settle' ? 'Settle' : 'Cancel'} ${countOf(batch.titles.length, kind)} totalling ${formatBrl(batch.totalCents)}${where} (${await describeLargest(request, kind, batch)})?`,
    };
  };
}
