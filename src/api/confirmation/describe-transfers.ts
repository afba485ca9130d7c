/**
 * The confirmation sentence of a transfer: `Transfer R$ 1.234,56 from account "A" to account
 * "B"?`. A transfer has no target record yet, so no version is bound. The accounts are read
 * with the API's own reference check, so an unknown account fails as the operation would.
 */
import { parseMoneyInput } from '../money.js';
import { readBody } from '../records.js';
import { requireAccountReference } from '../rules/references.js';
import { formatBrl } from './brl.js';
import { nameIfReadable, type DescribeTarget } from './target.js';

export const describeTransfer: DescribeTarget = async (request) => {
  const { db, workspaceId, input } = request;
  const body = readBody(input.body);
  const cents = parseMoneyInput(body['amount'], 'amount');
  // The reference check needs the database and the workspace only (no caller is involved).
  const scope = { db, workspaceId };
  const from = await requireAccountReference(scope, body['from_account_id'], 'from_account_id');
  const to = await requireAccountReference(scope, body['to_account_id'], 'to_account_id');
  const account = (name: string) => { const named = nameIfReadable(request, 'accounts', name); return named === null ? 'an account' : `account ${named}`; };
  return { version: null, message: `Transfer ${formatBrl(cents)} from ${account(from.name)} to ${account(to.name)}?` };
};
