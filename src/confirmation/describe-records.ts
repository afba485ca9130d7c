/**
 * Confirmation sentences for deleting reference records (accounts, categories, cost centers,
 * people, taxes) and manual transactions. Reads only the target in the caller's workspace; the
 * API decides whether the delete is allowed (in use → CONFLICT, settlement rows → 422).
 */
import type { Kysely } from 'kysely';
import { notFound } from '../api/errors.js';
import { isUuid } from '../api/records.js';
import { formatBrl } from './brl.js';
import { quoteName, readPathId, type DescribeTarget } from './target.js';

type NamedTable = 'accounts' | 'categories' | 'cost_centers' | 'people' | 'taxes';

/** `Delete <noun> "<name>"?` for a table whose rows carry `name` and `version`. */
export function buildNamedRecordDescriber(table: NamedTable, noun: string, label: string): DescribeTarget {
  return async ({ db, workspaceId, input }) => {
    const id = readPathId(input);
    if (!isUuid(id)) throw notFound(label);
    // Table names are a closed union; Kysely cannot type a query over a union of tables.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let query = (db as unknown as Kysely<any>).selectFrom(table).select(['name', 'version'])
      .where('workspace_id', '=', workspaceId).where('id', '=', id);
    // People are soft-deleted; a deleted person is as absent here as it is to the API.
    if (table === 'people') query = query.where('deleted_at', 'is', null);
    const row = (await query.executeTakeFirst()) as { name: string; version: number } | undefined;
    if (!row) throw notFound(label);
    return { version: Number(row.version), message: `Delete ${noun} ${quoteName(row.name)}?` };
  };
}

export const describeTransactionDelete: DescribeTarget = async ({ db, workspaceId, input }) => {
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
  const party = row.person_name ? ` with ${quoteName(row.person_name)}` : '';
  const account = row.account_name ? ` on account ${quoteName(row.account_name)}` : '';
  return {
    version: Number(row.version),
    message: `Delete ${row.type} transaction${what} of ${formatBrl(Number(row.amount_cents))}${party}${account} dated ${row.occurred_at}?`,
  };
};
