/**
 * The confirmation sentences of reconciliations.create and reconciliations.delete (below). Create: the statement lines and the records they
 * will be linked to, e.g. `Reconcile 1 statement line (R$ 1.200,00 in) with receivable "Venda 42"
 * (R$ 1.200,00), settling it?`. Read in the caller's workspace; unknown ids are named as such
 * (the operation itself answers the error). At most five records are named.
 */
import { readBody } from '../records.js';
import { formatBrl } from './brl.js';
import { quoteName, readPathId, type DescribeTarget } from './target.js';
import { planReconciliationUndo, type UndoneLine } from '../rules/reconciliation-undo.js';
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

/** `2026-03-09 R$ 1.200,00 in "PIX VENDA 42"`: a statement line by its date, amount and direction, and memo. */
function describeLine(line: UndoneLine): string {
  const memo = line.description.trim() === '' ? '(no memo)' : quoteName(line.description);
  return `${line.postedOn} ${formatBrl(line.amountCents)} ${line.type === 'credit' ? 'in' : 'out'} ${memo}`;
}

/** `a, b and c` of at most NAMED items, then `and N more`. */
function joinNamed(names: readonly string[]): string {
  const shown = names.slice(0, NAMED);
  const more = names.length - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${more} more`;
  return shown.length <= 1 ? shown.join('') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1) ?? ''}`;
}

/**
 * The confirmation sentence of reconciliations.delete, from the undo's own plan
 * (src/api/rules/reconciliation-undo.ts): each statement line freed (date, amount, memo) and each
 * title reopened with its amount, e.g. `Undo the reconciliation of statement line 2026-03-09
 * R$ 1.200,00 in "PIX VENDA", reopening receivable "Venda 42" (R$ 600,00) and receivable
 * "Venda 43" (R$ 600,00)?`. A title of a kind the caller may not read is named by its kind alone.
 */
export const describeReconciliationUndo: DescribeTarget = async (request) => {
  const plan = await planReconciliationUndo(request.db, request.workspaceId, readPathId(request.input));
  const lines = `statement line${plan.lines.length === 1 ? '' : 's'} ${joinNamed(plan.lines.map(describeLine))}`;
  const titles = plan.reopens.map((t) => (mayRead(request.caller, kindOfType(t.type))
    ? `${t.type} ${quoteName(t.description)} (${formatBrl(t.amountCents)})`
    : `a ${t.type}`));
  const reopening = titles.length === 0 ? 'reopening no title' : `reopening ${joinNamed(titles)}`;
  return { version: plan.version, message: `Undo the reconciliation of ${lines}, ${reopening}?` };
};
