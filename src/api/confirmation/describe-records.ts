/**
 * The confirmation sentence for deleting a manual transaction (`x-kobana-confirm: {describer:
 * transaction}`): type, amount, party, account and date. Reads only the target in the caller's
 * workspace; the API decides whether the delete is allowed (settlement rows → 422).
 */
import { notFound } from '../errors.js';
import { isUuid } from '../../runtime/values.js';
import { formatBrl } from './brl.js';
import { nameIfReadable, quoteName, readPathId, type DescribeTarget } from './target.js';

export const describeTransactionDelete: DescribeTarget = async (request) => {
  const { db, workspaceId, input } = request;
  const id = readPathId(input);
  if (!isUuid(id)) throw notFound('Transaction');
  const row = await db.selectFrom('transactions as t')
    .leftJoin('accounts as a', (join) => join.onRef('a.id', '=', 't.financial_account_id').onRef('a.workspace_id', '=', 't.workspace_id'))
    .leftJoin('people as p', (join) => join.onRef('p.id', '=', 't.person_id').onRef('p.workspace_id', '=', 't.workspace_id'))
    .select(['t.version', 't.type', 't.description', 't.amount_cents', 't.occurred_at', 'a.name as account_name', 'p.name as person_name'])
    .where('t.workspace_id', '=', workspaceId).where('t.id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound('Transaction');
  const what = row.description ? ` ${quoteName(row.description)}` : '';
  const person = nameIfReadable(request, 'people', row.person_name);
  const party = person === null ? '' : ` with ${person}`;
  const accountName = nameIfReadable(request, 'accounts', row.account_name);
  const account = accountName === null ? '' : ` on account ${accountName}`;
  return {
    version: Number(row.version),
    message: `Delete ${row.type} transaction${what} of ${formatBrl(Number(row.amount_cents))}${party}${account} dated ${row.occurred_at}?`,
  };
};
