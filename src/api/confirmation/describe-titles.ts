/**
 * Confirmation sentences for payables and receivables (settle, reopen, cancel, delete), built
 * on `describeTitleForConfirmation` (src/api/rules/titles.ts) so the record, counterparty,
 * amount and account come from the same reads the API uses. Business rules stay in the API.
 */
import { notFound } from '../errors.js';
import { parseMoneyInputAllowZero } from '../money.js';
import { readBody } from '../records.js';
import { isUuid } from '../../runtime/values.js';
import { describeTitleForConfirmation, type TitleConfirmationSummary } from '../rules/titles.js';
import { formatBrl } from './brl.js';
import { nameIfReadable, quoteName, readPathId, type DescribeRequest, type DescribeTarget } from './target.js';
import type { TITLE_DESCRIBER_ACTIONS } from '../../runtime/describers.js';

type TitleKind = 'payable' | 'receivable';
export type TitleAction = (typeof TITLE_DESCRIBER_ACTIONS)[number];

const VERBS: Readonly<Record<TitleAction, string>> = { settle: 'Settle', reopen: 'Reopen', cancel: 'Cancel', delete: 'Delete' };

function readCents(value: unknown, path: string): number {
  return value === undefined || value === null ? 0 : parseMoneyInputAllowZero(value, path);
}

async function readAccountName(request: DescribeRequest, id: unknown): Promise<string | null> {
  if (!isUuid(id)) return null;
  const row = await request.db.selectFrom('accounts').select('name')
    .where('workspace_id', '=', request.workspaceId).where('id', '=', id).executeTakeFirst();
  return row?.name ?? null;
}

/** `payable "X" of R$ 1,00 to "Vendor"` / `receivable "X" of R$ 1,00 from "Customer"`. */
function describeTitle(request: DescribeRequest, kind: TitleKind, title: TitleConfirmationSummary, cents: number): string {
  const counterparty = nameIfReadable(request, 'people', title.counterparty);
  const party = counterparty === null ? '' : ` ${kind === 'payable' ? 'to' : 'from'} ${counterparty}`;
  return `${kind} ${quoteName(title.description)} of ${formatBrl(cents)}${party}`;
}

function describeAccount(request: DescribeRequest, kind: TitleKind, action: TitleAction, accountName: string | null): string {
  if (accountName === null) return action === 'settle' ? ' with no account set' : '';
  const preposition = action === 'settle' ? (kind === 'payable' ? 'from' : 'into') : 'on';
  const named = nameIfReadable(request, 'accounts', accountName);
  return named === null ? ` ${preposition} an account` : ` ${preposition} account ${named}`;
}

/** Settle shows what will move: amount + interest − discount, on the account the call names (else the title's). */
async function describeSettlement(request: DescribeRequest, title: TitleConfirmationSummary): Promise<{ cents: number; accountName: string | null }> {
  const body = readBody(request.input.body);
  const cents = title.amountCents + readCents(body['interest_amount'], 'interest_amount') - readCents(body['discount_amount'], 'discount_amount');
  const named = body['financial_account_id'];
  return { cents, accountName: named === undefined || named === null ? title.accountName : await readAccountName(request, named) };
}

export function buildTitleDescriber(kind: TitleKind, action: TitleAction): DescribeTarget {
  return async (request) => {
    const title = await describeTitleForConfirmation(request.db, request.workspaceId, kind, readPathId(request.input));
    if (title === null) throw notFound(kind === 'payable' ? 'Payable' : 'Receivable');
    const { cents, accountName } = action === 'settle'
      ? await describeSettlement(request, title)
      : { cents: title.amountCents, accountName: title.accountName };
    return {
      version: title.version,
      message: `${VERBS[action]} ${describeTitle(request, kind, title, cents)}${describeAccount(request, kind, action, accountName)}?`,
    };
  };
}
