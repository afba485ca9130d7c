/**
 * The confirmation sentence of reconciliations.create: the statement lines and the records they
 * will be linked to, e.g. `Reconcile 1 statement line (R$ 1.200,00 in) with receivable "Venda 42"
 * (R$ 1.200,00), settling it?`. Read in the caller's workspace; unknown ids are named as such
 * (the operation itself answers the error). At most five records are named.
 */
import { readBody } from '../records.js';
import { formatBrl } from './brl.js';
import { quoteName, type DescribeTarget } from './target.js';
import { mayRead } from '../authorize.js';
import { kindOfType } from '../omitted.js';

const NAMED = 5;

export const describeReconciliation: DescribeTarget = async (request) => {
  const { db, workspaceId, input } = request;
  const body = readBody(input.body);
  const lineIds = Array.isArray(body['statement_line_ids']) ? body['statement_line_ids'].map(String) : [];
  const items = Array.isArray(body['items']) ? (body['items'] as Record<string, unknown>[]).map((i) => ({ type: String(i['type']), id: String(i['id']) })) : [];
  const lines = lineIds.length === 0 ? [] : await db.selectFrom('statement_lines').select(['type', 'amount_cents'])
    .where('workspace_id', '=', workspaceId).where('id', 'in', lineIds).execute();
  const inCents = lines.filter((l) => l.type === 'credit').reduce((s, l) => s + Number(l.amount_cents), 0);
  const outCents = lines.filter((l) => l.type === 'debit').reduce((s, l) => s + Number(l.amount_cents), 0);
  const titleIds = items.filter((i) => i.type !== 'transaction').map((i) => i.id);
  const txIds = items.filter((i) => i.type === 'transaction').map((i) => i.id);
  const titles = titleIds.length === 0 ? [] : await db.selectFrom('titles').select(['id', 'description', 'amount_cents', 'status'])
    .where('workspace_id', '=', workspaceId).where('id', 'in', titleIds).execute();
  const moves = txIds.length === 0 ? [] : await db.selectFrom('transactions').select(['id', 'description', 'amount_cents'])
    .where('workspace_id', '=', workspaceId).where('id', 'in', txIds).execute();
  const byId = new Map<string, { description: string | null; amount_cents: number; status?: string }>([...titles, ...moves].map((r) => [r.id, r]));
  const named = items.slice(0, NAMED).map((i) => {
    // A record of a kind the caller may not read is named by its kind alone (the call itself is refused).
    if (!mayRead(request.caller, kindOfType(i.type))) return `a ${i.type}`;
    const row = byId.get(i.id);
    return row ? `${i.type} ${quoteName(row.description ?? '(no description)')} (${formatBrl(Number(row.amount_cents))})` : `an unknown ${i.type}`;
  });
  const more = items.length > NAMED ? ` and ${items.length - NAMED} more` : '';
  const typeOf = new Map(items.map((i) => [i.id, i.type]));
  const settling = titles.filter((t) => t.status === 'pending' && mayRead(request.caller, kindOfType(typeOf.get(t.id) ?? ''))).length;
  const money = [inCents > 0 ? `${formatBrl(inCents)} in` : null, outCents > 0 ? `${formatBrl(outCents)} out` : null].filter(Boolean).join(', ');
  const count = `${lineIds.length} statement line${lineIds.length === 1 ? '' : 's'}`;
  const settles = settling > 0 ? `, settling ${settling} open title${settling === 1 ? '' : 's'}` : '';
  return { version: null, message: `Reconcile ${count}${money ? ` (${money})` : ''} with ${named.join(', ')}${more}${settles}?` };
};
