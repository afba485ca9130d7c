/**
 * reconciliations.create / get / delete (docs/domain.md#reconciliation): n statement lines of one
 * account ↔ m payables, receivables or transactions whose signed amounts balance. Everything in
 * the operation's one database transaction:
 * - the lines are claimed first with a conditional UPDATE (`reconciliation_id is null`), after
 *   locking them in id order (PostgreSQL), so of concurrent attempts on a line exactly one wins and
 *   the others answer CONFLICT before touching any title;
 * - every item is recorded in `reconciliation_items`, unique per record, so a record is in at most
 *   one reconciliation even when two reconciliations name different lines;
 * - open titles are settled with the settle operation's own rules (payables.settle /
 *   receivables.settle: lock, conditional status change, settlement transaction, activity) on the
 *   lines' account at the latest line date; the settlement transaction is remembered per item.
 * Undoing reopens exactly the titles it settled (when their settlement is still that one), frees
 * the lines and removes the reconciliation, so balances return to the cent; it answers what it
 * undid (the lines and the reopened titles), planned by src/api/rules/reconciliation-undo.ts as
 * its confirmation sentence is.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { ReconciliationItemsTable, StatementLinesTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { insertAudit, recordActivity } from '../audit.js';
import { defineOperations } from '../define-operations.js';
import { ApiError, validationError } from '../errors.js';
import { formatCents } from '../money.js';
import { kindOfType, shows } from '../omitted.js';
import { findInWorkspace, isUniqueViolation, lockRow, readBody, requireWorkspace } from '../records.js';
import { buildSettlementHandlers } from '../rules/settlement.js';
import { planReconciliationUndo, type ReconciliationUndoPlan } from '../rules/reconciliation-undo.js';
import { PAYABLES, RECEIVABLES } from '../rules/title-records.js';

type ItemType = 'payable' | 'receivable' | 'transaction';
interface ItemRef { readonly type: ItemType; readonly id: string }

const LABEL = 'Reconciliation';
const SETTLE = { payable: buildSettlementHandlers(PAYABLES), receivable: buildSettlementHandlers(RECEIVABLES) };
const ALREADY = 'A statement line or record is already reconciled.';

function readRequest(body: Record<string, unknown>): { lineIds: string[]; items: ItemRef[] } {
  const lineIds = (body['statement_line_ids'] as unknown[]).map(String);
  const items = (body['items'] as Record<string, unknown>[]).map((i) => ({ type: i['type'] as ItemType, id: String(i['id']) }));
  const keys = new Set(items.map((i) => `${i.type}:${i.id}`));
  if (keys.size !== items.length) throw validationError([{ path: 'items', message: 'must not name a record twice' }]);
  return { lineIds, items };
}

/** Locks (PostgreSQL) and reads the lines; all must exist in the workspace, on one account, unreconciled. */
async function claimLines(ctx: OperationContext, lineIds: readonly string[]): Promise<Selectable<StatementLinesTable>[]> {
  const workspaceId = requireWorkspace(ctx);
  // Id order: two reconciliations over overlapping lines lock them in the same order (no deadlock).
  for (const id of [...lineIds].sort()) await lockRow(ctx, 'statement_lines', id, 'update');
  const lines = await ctx.db.selectFrom('statement_lines').selectAll().where('workspace_id', '=', workspaceId).where('id', 'in', lineIds).execute();
  if (lines.length !== lineIds.length) throw new ApiError('UNPROCESSABLE_ENTITY', 'A statement line does not exist in this workspace.');
  if (new Set(lines.map((l) => l.financial_account_id)).size !== 1) throw new ApiError('UNPROCESSABLE_ENTITY', 'The statement lines must all be of one account.');
  if (lines.some((l) => l.reconciliation_id !== null)) throw new ApiError('CONFLICT', ALREADY);
  return lines;
}

interface ResolvedItem extends ItemRef {
  readonly cents: number;
  /** Signed: receivables and credit transactions positive, payables and debit transactions negative. */
  readonly signed: number;
  readonly open: boolean;
}

async function resolveItems(ctx: OperationContext, items: readonly ItemRef[], accountId: string): Promise<ResolvedItem[]> {
  const workspaceId = requireWorkspace(ctx);
  const resolved: ResolvedItem[] = [];
  for (const item of items) {
    if (item.type === 'transaction') {
      const row = await ctx.db.selectFrom('transactions').select(['id', 'type', 'amount_cents', 'financial_account_id'])
        .where('workspace_id', '=', workspaceId).where('id', '=', item.id).executeTakeFirst();
      if (!row) throw new ApiError('UNPROCESSABLE_ENTITY', 'A transaction does not exist in this workspace.');
      if (row.financial_account_id !== accountId) throw new ApiError('UNPROCESSABLE_ENTITY', 'A transaction is not on the statement lines\' account.');
      const cents = Number(row.amount_cents);
      resolved.push({ ...item, cents, signed: row.type === 'credit' ? cents : -cents, open: false });
      continue;
    }
    const row = await ctx.db.selectFrom('titles').select(['id', 'status', 'amount_cents', 'paid_amount_cents'])
      .where('workspace_id', '=', workspaceId).where('id', '=', item.id).where('kind', '=', item.type).executeTakeFirst();
    if (!row) throw new ApiError('UNPROCESSABLE_ENTITY', `A ${item.type} does not exist in this workspace.`);
    if (row.status === 'cancelled') throw new ApiError('UNPROCESSABLE_ENTITY', `A cancelled ${item.type} cannot be reconciled.`);
    const open = row.status === 'pending';
    const cents = Number(open ? row.amount_cents : row.paid_amount_cents);
    resolved.push({ ...item, cents, signed: item.type === 'receivable' ? cents : -cents, open });
  }
  return resolved;
}

async function readReconciliation(ctx: OperationContext, id: string | undefined): Promise<Record<string, unknown>> {
  const workspaceId = requireWorkspace(ctx);
  const row = await findInWorkspace(ctx, 'reconciliations', id ?? '', LABEL);
  const items = await ctx.db.selectFrom('reconciliation_items').selectAll().where('workspace_id', '=', workspaceId).where('reconciliation_id', '=', row.id).orderBy('id').execute();
  const lineIds = items.filter((i) => i.item_type === 'statement_line').map((i) => i.item_id);
  const lines = lineIds.length === 0 ? [] : await ctx.db.selectFrom('statement_lines').selectAll().where('workspace_id', '=', workspaceId).where('id', 'in', lineIds)
    .orderBy('posted_on').orderBy('id').execute();
  // The records of kinds the caller may not read are left out, names and amounts alike (docs/security.md#resources-touched).
  const records = items.filter((i) => i.item_type !== 'statement_line' && shows(ctx, kindOfType(i.item_type)));
  const titleIds = records.filter((i) => i.item_type !== 'transaction').map((i) => i.item_id);
  const titles = titleIds.length === 0 ? [] : await ctx.db.selectFrom('titles').select(['id', 'description']).where('workspace_id', '=', workspaceId).where('id', 'in', titleIds).execute();
  const names = new Map(titles.map((t) => [t.id, t.description]));
  const total = signedTotal(lines);
  const named = records.slice(0, 3).map((r) => (names.has(r.item_id) ? `${r.item_type} ${names.get(r.item_id)}` : r.item_type));
  const more = records.length > 3 ? ` and ${records.length - 3} more` : '';
  const withRecords = records.length === 0 ? '' : ` with ${named.join(', ')}${more}`;
  return {
    id: row.id, financial_account_id: lines[0]?.financial_account_id ?? null, total: formatCents(total),
    summary: `${lines.length} statement line${lines.length === 1 ? '' : 's'} (${formatCents(total)})${withRecords}`,
    statement_lines: lines.map((l) => ({ id: l.id, posted_on: l.posted_on, type: l.type, amount: formatCents(l.amount_cents), description: l.description })),
    items: records.map((r) => ({ type: r.item_type, id: r.item_id, amount: formatCents(r.amount_cents), settled_here: r.settlement_transaction_id !== null })),
    created_at: row.created_at, created_by: row.created_by, created_via: row.created_via, version: Number(row.version),
  };
}

const signedTotal = (lines: readonly Selectable<StatementLinesTable>[]): number =>
  lines.reduce((sum, l) => sum + (l.type === 'credit' ? 1 : -1) * Number(l.amount_cents), 0);

function assertBalanced(lines: readonly Selectable<StatementLinesTable>[], resolved: readonly ResolvedItem[]): void {
  const linesTotal = signedTotal(lines);
  const itemsTotal = resolved.reduce((sum, i) => sum + i.signed, 0);
  if (linesTotal !== itemsTotal) {
    throw new ApiError('UNPROCESSABLE_ENTITY', `The amounts do not balance: the lines total ${formatCents(linesTotal)}, the records ${formatCents(itemsTotal)}.`);
  }
}

/** Inserts the reconciliation and claims its lines: of concurrent attempts on a line exactly one claims it. */
async function insertClaimingLines(ctx: OperationContext, id: string, lineIds: readonly string[]): Promise<void> {
  const workspaceId = requireWorkspace(ctx);
  await ctx.db.insertInto('reconciliations').values({ id, workspace_id: workspaceId, ...insertAudit(ctx) }).execute();
  const claimed = await ctx.db.updateTable('statement_lines').set({ reconciliation_id: id })
    .where('workspace_id', '=', workspaceId).where('id', 'in', [...lineIds]).where('reconciliation_id', 'is', null).executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== lineIds.length) throw new ApiError('CONFLICT', ALREADY);
}

/** Settles an open title with the settle operation's own rules; answers its settlement transaction (null when nothing was settled). */
async function settleItem(ctx: OperationContext, item: ResolvedItem, paymentDate: string, accountId: string): Promise<string | null> {
  if (!item.open || item.type === 'transaction') return null;
  // The settle operation's own rules; it locks the title and refuses one settled meanwhile.
  await SETTLE[item.type].settle(ctx, { path: { id: item.id }, query: {}, body: { payment_date: paymentDate, financial_account_id: accountId } });
  const title = await ctx.db.selectFrom('titles').select('transaction_id').where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', item.id).executeTakeFirstOrThrow();
  return title.transaction_id;
}

/** The items of reconciliation `id`: its lines, then its records (open titles settled on the lines' account at the latest line date). */
async function buildItemRows(
  ctx: OperationContext, id: string, lines: readonly Selectable<StatementLinesTable>[], resolved: readonly ResolvedItem[], accountId: string,
): Promise<ReconciliationItemsTable[]> {
  const workspaceId = requireWorkspace(ctx);
  const paymentDate = lines.map((l) => l.posted_on).sort().at(-1) as string;
  const rows: ReconciliationItemsTable[] = lines.map((l) => ({
    id: randomUUID(), workspace_id: workspaceId, reconciliation_id: id, item_type: 'statement_line', item_id: l.id,
    amount_cents: Number(l.amount_cents), settlement_transaction_id: null,
  }));
  for (const item of resolved) {
    const settlement = await settleItem(ctx, item, paymentDate, accountId);
    rows.push({ id: randomUUID(), workspace_id: workspaceId, reconciliation_id: id, item_type: item.type, item_id: item.id, amount_cents: item.cents, settlement_transaction_id: settlement });
  }
  return rows;
}

/** Records the items, unique per record: a record already in another reconciliation → CONFLICT. */
async function insertItems(ctx: OperationContext, rows: readonly ReconciliationItemsTable[]): Promise<void> {
  try {
    await ctx.db.insertInto('reconciliation_items').values([...rows]).execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError('CONFLICT', ALREADY);
    throw err;
  }
}

const createReconciliation: OperationHandler = async (ctx, input) => {
  const { lineIds, items } = readRequest(readBody(input.body));
  const lines = await claimLines(ctx, lineIds);
  const accountId = (lines[0] as Selectable<StatementLinesTable>).financial_account_id;
  const resolved = await resolveItems(ctx, items, accountId);
  assertBalanced(lines, resolved);
  const id = randomUUID();
  await insertClaimingLines(ctx, id, lineIds);
  await insertItems(ctx, await buildItemRows(ctx, id, lines, resolved, accountId));
  await recordActivity(ctx, { operation: 'reconciliations.create', resource: 'reconciliations', recordId: id });
  return { outcome: 'created', body: await readReconciliation(ctx, id) };
};

/** What the undo answers: the lines it freed and the titles it reopened (those of kinds the caller may not read left out). */
function renderUndone(ctx: OperationContext, id: string, plan: ReconciliationUndoPlan): Record<string, unknown> {
  return {
    id,
    statement_lines: plan.lines.map((l) => ({ id: l.id, posted_on: l.postedOn, type: l.type, amount: formatCents(l.amountCents), description: l.description })),
    reopened: plan.reopens.filter((t) => shows(ctx, kindOfType(t.type))).map((t) => ({ type: t.type, id: t.id, description: t.description, amount: formatCents(t.amountCents) })),
  };
}

const deleteReconciliation: OperationHandler = async (ctx, input) => {
  const workspaceId = requireWorkspace(ctx);
  const id = input.path['id'] ?? '';
  await lockRow(ctx, 'reconciliations', id, 'update');
  // The plan the confirmation sentence showed: the same lines and the same titles to reopen.
  const plan = await planReconciliationUndo(ctx.db, workspaceId, id);
  for (const title of plan.reopens) await SETTLE[title.type].reopen(ctx, { path: { id: title.id }, query: {} });
  await ctx.db.updateTable('statement_lines').set({ reconciliation_id: null }).where('workspace_id', '=', workspaceId).where('reconciliation_id', '=', id).execute();
  await ctx.db.deleteFrom('reconciliation_items').where('workspace_id', '=', workspaceId).where('reconciliation_id', '=', id).execute();
  await ctx.db.deleteFrom('reconciliations').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
  await recordActivity(ctx, { operation: 'reconciliations.delete', resource: 'reconciliations', recordId: id });
  return { outcome: 'deleted', body: renderUndone(ctx, id, plan) };
};

export const handlers = defineOperations({
  'reconciliations.create': createReconciliation,
  'reconciliations.get': async (ctx, input) => ({ body: await readReconciliation(ctx, input.path['id']) }),
  'reconciliations.delete': deleteReconciliation,
});
