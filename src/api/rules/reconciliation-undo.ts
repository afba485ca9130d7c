/**
 * What undoing a reconciliation undoes (docs/domain.md#reconciliation), computed once for the
 * handler (what it reopens and frees) and the confirmation sentence (what the person is told),
 * so the two never differ: the reconciliation's statement lines, and the titles it settled whose
 * settlement is still that one (a title reopened or re-settled by hand since is left as it is).
 *
 *   planReconciliationUndo(db, workspaceId, id) → { version, lines, reopens }  // NOT_FOUND when absent
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import { isUuid } from '../../runtime/values.js';
import { notFound } from '../errors.js';

export interface UndoneLine {
  readonly id: string;
  readonly postedOn: string;
  readonly type: 'credit' | 'debit';
  readonly amountCents: number;
  /** The bank's memo. */
  readonly description: string;
}

export interface ReopenedTitle {
  readonly type: 'payable' | 'receivable';
  readonly id: string;
  readonly description: string;
  /** The title's face amount (what is owed again once reopened). */
  readonly amountCents: number;
}

export interface ReconciliationUndoPlan {
  readonly version: number;
  /** By date, then id. */
  readonly lines: readonly UndoneLine[];
  /** By due date, then description, then id (the items carry no order of their own: a stable one for the sentence and the answer alike). */
  readonly reopens: readonly ReopenedTitle[];
}

type TitleItem = { readonly item_type: 'payable' | 'receivable'; readonly item_id: string; readonly settlement_transaction_id: string };

const isSettledTitle = (item: { item_type: string; settlement_transaction_id: string | null }): item is TitleItem =>
  item.settlement_transaction_id !== null && (item.item_type === 'payable' || item.item_type === 'receivable');

export async function planReconciliationUndo(db: Kysely<Database>, workspaceId: string, id: string): Promise<ReconciliationUndoPlan> {
  if (!isUuid(id)) throw notFound('Reconciliation');
  const row = await db.selectFrom('reconciliations').select('version').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Reconciliation');
  const items = await db.selectFrom('reconciliation_items').select(['item_type', 'item_id', 'settlement_transaction_id'])
    .where('workspace_id', '=', workspaceId).where('reconciliation_id', '=', id).execute();
  const lines = await db.selectFrom('statement_lines').select(['id', 'posted_on', 'type', 'amount_cents', 'description'])
    .where('workspace_id', '=', workspaceId).where('reconciliation_id', '=', id).orderBy('posted_on').orderBy('id').execute();
  const settled = items.filter(isSettledTitle);
  const titles = settled.length === 0 ? [] : await db.selectFrom('titles').select(['id', 'kind', 'description', 'amount_cents', 'transaction_id'])
    .where('workspace_id', '=', workspaceId).where('id', 'in', settled.map((item) => item.item_id))
    .orderBy('due_date').orderBy('description').orderBy('id').execute();
  const byId = new Map(settled.map((item) => [item.item_id, item]));
  const reopens = titles.flatMap((title): ReopenedTitle[] => {
    const item = byId.get(title.id);
    // Reopened (or deleted) by hand since: there is nothing of this reconciliation's left to undo.
    if (!item || title.kind !== item.item_type || title.transaction_id !== item.settlement_transaction_id) return [];
    return [{ type: item.item_type, id: title.id, description: title.description, amountCents: Number(title.amount_cents) }];
  });
  return {
    version: Number(row.version),
    lines: lines.map((l) => ({ id: l.id, postedOn: l.posted_on, type: l.type, amountCents: Number(l.amount_cents), description: l.description })),
    reopens,
  };
}
