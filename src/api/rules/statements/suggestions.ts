/**
 * Suggested matches for unreconciled statement lines (docs/domain.md#reconciliation): open titles
 * and unreconciled transactions on the line's account of the same direction (credit ↔ receivable
 * or credit transaction, debit ↔ payable or debit transaction) and the same amount, dated within
 * WINDOW_DAYS of the line. Score 1 on the same day, falling linearly to 1/(WINDOW_DAYS + 1) at the
 * edge. Two queries per page of lines (titles, transactions), whatever the page size, each reading
 * at most MAX_CANDIDATES rows (the page's lines may span the whole calendar; docs/domain.md#bounded-work);
 * a kind the caller may not read (`ctx.omitted`) is never queried. Dates are stepped as day numbers,
 * clamped to the calendar (src/api/dates.ts).
 */
import { sql, type Selectable } from 'kysely';
import type { StatementLinesTable } from '../../../store/schema.js';
import type { OperationContext } from '../../context.js';
import { formatCents } from '../../money.js';
import { kindOfType, shows } from '../../omitted.js';
import { requireWorkspace } from '../../records.js';
import { dayNumber, FIRST_DAY, LAST_DAY, toDate } from '../../dates.js';

const WINDOW_DAYS = 7;
const MAX_SUGGESTIONS = 3;
/** Rows of each kind a page of lines weighs at most. */
const MAX_CANDIDATES = 2_000;
const TITLE_KINDS = ['payable', 'receivable'] as const;

export interface Suggestion {
  readonly type: 'payable' | 'receivable' | 'transaction';
  readonly id: string;
  readonly description: string | null;
  readonly amount: string;
  readonly date: string;
  readonly score: number;
}

interface Candidate {
  readonly type: Suggestion['type'];
  readonly id: string;
  readonly description: string | null;
  readonly cents: number;
  readonly date: string;
  readonly direction: 'credit' | 'debit';
  readonly accountId: string | null;
}

const shift = (date: string, days: number) => toDate(Math.min(LAST_DAY, Math.max(FIRST_DAY, dayNumber(date) + days)));
const distance = (a: string, b: string) => Math.abs(dayNumber(a) - dayNumber(b));

/** What the candidates are searched among: the lines' amounts, and their dates widened by the window. */
interface Search {
  readonly workspaceId: string;
  readonly amounts: readonly number[];
  readonly from: string;
  readonly to: string;
}

function readSearch(ctx: OperationContext, open: readonly Selectable<StatementLinesTable>[]): Search {
  const dates = open.map((l) => l.posted_on).sort();
  return {
    workspaceId: requireWorkspace(ctx),
    amounts: [...new Set(open.map((l) => Number(l.amount_cents)))],
    from: shift(dates[0] as string, -WINDOW_DAYS),
    to: shift(dates[dates.length - 1] as string, WINDOW_DAYS),
  };
}

/** Pending titles of the kinds the caller may read (docs/security.md#resources-touched), due within the search. */
async function findTitleCandidates(ctx: OperationContext, search: Search): Promise<Candidate[]> {
  const titleKinds = TITLE_KINDS.filter((kind) => shows(ctx, kindOfType(kind)));
  if (titleKinds.length === 0) return [];
  const titles = await ctx.db.selectFrom('titles as t').select(['t.id', 't.kind', 't.description', 't.amount_cents', 't.due_date', 't.financial_account_id'])
    .where('t.workspace_id', '=', search.workspaceId).where('t.kind', 'in', titleKinds).where('t.status', '=', 'pending').where('t.amount_cents', 'in', [...search.amounts])
    .where('t.due_date', '>=', search.from).where('t.due_date', '<=', search.to).limit(MAX_CANDIDATES).execute();
  return titles.map((t) => ({
    type: t.kind, id: t.id, description: t.description, cents: Number(t.amount_cents), date: t.due_date,
    direction: t.kind === 'receivable' ? 'credit' : 'debit', accountId: t.financial_account_id,
  }) as const);
}

/** Transactions not reconciled yet within the search, when the caller may read transactions. */
async function findTransactionCandidates(ctx: OperationContext, search: Search): Promise<Candidate[]> {
  if (!shows(ctx, kindOfType('transaction'))) return [];
  const reconciled = sql<boolean>`not exists (select 1 from reconciliation_items ri where ri.workspace_id = ${search.workspaceId} and ri.item_type = ${'transaction'} and ri.item_id = ${sql.ref('x.id')})`;
  const moves = await ctx.db.selectFrom('transactions as x').select(['x.id', 'x.type', 'x.description', 'x.amount_cents', 'x.occurred_at', 'x.financial_account_id'])
    .where('x.workspace_id', '=', search.workspaceId).where('x.amount_cents', 'in', [...search.amounts])
    .where('x.occurred_at', '>=', search.from).where('x.occurred_at', '<=', search.to).where(reconciled).limit(MAX_CANDIDATES).execute();
  return moves.map((x) => ({
    type: 'transaction', id: x.id, description: x.description, cents: Number(x.amount_cents), date: x.occurred_at, direction: x.type, accountId: x.financial_account_id,
  }) as const);
}

/** The best candidates of one line: same direction and amount, within the window, closest first. */
function rankFor(line: Selectable<StatementLinesTable>, candidates: readonly Candidate[]): Suggestion[] {
  return candidates
    .filter((c) => c.direction === line.type && c.cents === Number(line.amount_cents) && distance(c.date, line.posted_on) <= WINDOW_DAYS
      // A transaction is on an account already; a title may be settled on any.
      && (c.type !== 'transaction' || c.accountId === line.financial_account_id))
    .map((c) => ({
      type: c.type, id: c.id, description: c.description, amount: formatCents(c.cents), date: c.date,
      score: Math.round((1 - distance(c.date, line.posted_on) / (WINDOW_DAYS + 1)) * 100) / 100,
    }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, MAX_SUGGESTIONS);
}

/** The suggestions of each unreconciled line of `lines`, by line id. */
export async function suggestMatches(ctx: OperationContext, lines: readonly Selectable<StatementLinesTable>[]): Promise<Map<string, Suggestion[]>> {
  const open = lines.filter((l) => l.reconciliation_id === null);
  const result = new Map<string, Suggestion[]>();
  if (open.length === 0) return result;
  const search = readSearch(ctx, open);
  const candidates: Candidate[] = [...await findTitleCandidates(ctx, search), ...await findTransactionCandidates(ctx, search)];
  for (const line of open) result.set(line.id, rankFor(line, candidates));
  return result;
}
