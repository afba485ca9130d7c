/**
 * cash_flow.get: money in and out per day, week or month (docs/domain.md#cash-flow). Realised
 * amounts are transactions; projected amounts are open titles by due date from "today" on;
 * open titles due before today are overdue (src/api/rules/title-status.ts), reported apart.
 * "Today" is the date on the operation's clock in the call's `tz` (default the workspace's, as
 * everywhere), so the same clock can give two answers in two zones. Two aggregate queries
 * (transactions by day, open titles by day) feed the buckets; no row list is read. Amounts are
 * integer cents (BigInt) until formatted. Days are day numbers (src/api/dates.ts), never compared
 * as strings, so the calendar's last day ends the walk; the window's span is the contract's
 * (x-kobana-bounds), at most 367 buckets.
 */
import { sql, type Kysely } from 'kysely';
import type { OperationContext } from '../context.js';
import { defineOperations } from '../define-operations.js';
import { validationError } from '../errors.js';
import { formatCents } from '../money.js';
import { findInWorkspace, requireWorkspace } from '../records.js';
import type { AnySelect } from '../list.js';
import { checkSpan } from '../bounds.js';
import { dayNumber, isTimeZone, LAST_DAY, toDate, weekday } from '../dates.js';
import { OPEN_STATUS, overdueCondition, readWorkspaceTimeZone, todayIn } from '../rules/title-status.js';
import type { DateSpanBound } from '../../runtime/types.js';

type Granularity = 'day' | 'week' | 'month';

const DEFAULT_DAYS = 30;

/** The last day of the bucket that starts on day `start` (before clipping to `to`). */
function bucketEnd(start: number, granularity: Granularity): number {
  if (granularity === 'day') return start;
  if (granularity === 'week') return start + 6 - weekday(start);
  const [year, month] = toDate(start).split('-').map(Number) as [number, number];
  // Day 0 of the next month is the last of this one; December 9999 ends on LAST_DAY.
  return month === 12 ? dayNumber(`${String(year).padStart(4, '0')}-12-31`) : dayNumber(`${String(year).padStart(4, '0')}-${String(month + 1).padStart(2, '0')}-01`) - 1;
}

interface Bucket {
  readonly start: string;
  readonly end: string;
  readonly startDay: number;
  readonly endDay: number;
  realisedIncome: bigint;
  realisedExpenses: bigint;
  projectedIncome: bigint;
  projectedExpenses: bigint;
}

/** The buckets of `from`..`to` (day numbers, at most MAX_DAYS + 1 days: one bucket per day at most). */
function buildBuckets(from: number, to: number, granularity: Granularity): Bucket[] {
  const buckets: Bucket[] = [];
  for (let start = from; start <= to;) {
    const end = Math.min(bucketEnd(start, granularity), to);
    buckets.push({ start: toDate(start), end: toDate(end), startDay: start, endDay: end, realisedIncome: 0n, realisedExpenses: 0n, projectedIncome: 0n, projectedExpenses: 0n });
    start = end + 1;
  }
  return buckets;
}

function readDate(value: unknown): string | undefined {
  return value === undefined || value === '' ? undefined : String(value);
}

interface Window {
  readonly from: string;
  readonly to: string;
  readonly today: string;
  readonly tz: string;
  readonly granularity: Granularity;
  readonly accountId: string | null;
}

/** The contract's `from`..`to` bound (x-kobana-bounds). */
function readSpan(ctx: OperationContext): DateSpanBound {
  const span = ctx.bounds?.spans.find((s) => s.from === 'from' && s.to === 'to');
  if (!span) throw new Error('cash_flow.get: the contract declares no from..to span');
  return span;
}

async function readWindow(ctx: OperationContext, query: Readonly<Record<string, unknown>>): Promise<Window> {
  let tz = readDate(query['tz']);
  if (tz === undefined) {
    tz = await readWorkspaceTimeZone(ctx);
  } else if (!isTimeZone(tz)) {
    throw validationError([{ path: 'tz', message: 'must be an IANA time zone such as America/Sao_Paulo' }]);
  }
  // The workspace's today (title-status.ts), or the same clock's date in the zone the call names.
  const today = todayIn(ctx, tz);
  const from = readDate(query['from']) ?? today;
  // The default window stops at the calendar's last day.
  const to = readDate(query['to']) ?? toDate(Math.min(dayNumber(from) + DEFAULT_DAYS, LAST_DAY));
  // Checked before the call with the arguments given (src/api/bounds.ts); again once the defaults are in.
  checkSpan(readSpan(ctx), from, to);
  const accountId = readDate(query['account_id']) ?? null;
  if (accountId) await findInWorkspace(ctx, 'accounts', accountId, 'Account');
  return { from, to, today, tz, granularity: (readDate(query['granularity']) as Granularity | undefined) ?? 'week', accountId };
}

interface DayRow {
  readonly day: string;
  readonly side: string;
  readonly n: number | string | bigint;
  readonly cents: number | string | bigint | null;
}

const BEFORE = 'before';
const OVERDUE = 'overdue';

/** Transactions up to `to`, summed per day and type; everything before `from` as one `before` day. */
async function sumTransactions(db: Kysely<any>, workspaceId: string, w: Window): Promise<DayRow[]> {
  let qb: AnySelect = db.selectFrom('transactions as t').where('t.workspace_id', '=', workspaceId).where('t.occurred_at', '<=', w.to);
  // Across all accounts a transfer is money moving inside the company: neither income nor expense.
  qb = w.accountId ? qb.where('t.financial_account_id', '=', w.accountId) : qb.where('t.source', '!=', 'transfer');
  return (await qb
    .select([
      sql<string>`case when t.occurred_at < ${w.from} then ${BEFORE} else t.occurred_at end`.as('day'), sql<string>`t.type`.as('side'),
      sql`count(*)`.as('n'), sql`sum(t.amount_cents)`.as('cents'),
    ])
    .groupBy([sql`day`, sql`side`])
    .execute()) as DayRow[];
}

/**
 * Open titles due up to `to`, summed per due day and kind: `overdue` before today; `before` from
 * today to the day before `from` (a window that starts in the future opens with them projected).
 */
async function sumOpenTitles(db: Kysely<any>, workspaceId: string, w: Window): Promise<DayRow[]> {
  let qb: AnySelect = db.selectFrom('titles as o').where('o.workspace_id', '=', workspaceId).where('o.status', '=', OPEN_STATUS);
  qb = qb.where((eb) => eb.or([eb('o.due_date', '<=', w.to), eb('o.due_date', '<', w.today)]));
  if (w.accountId) qb = qb.where('o.financial_account_id', '=', w.accountId);
  return (await qb
    .select([
      sql<string>`case when ${overdueCondition(w.today, 'o')} then ${OVERDUE} when o.due_date < ${w.from} then ${BEFORE} else o.due_date end`.as('day'),
      sql<string>`o.kind`.as('side'), sql`count(*)`.as('n'), sql`sum(o.amount_cents)`.as('cents'),
    ])
    .groupBy([sql`day`, sql`side`])
    .execute()) as DayRow[];
}

const big = (value: number | string | bigint | null): bigint => BigInt(String(value ?? 0));

/** The window's buckets, and each day of the window → its bucket. */
function indexBuckets(w: Window): { buckets: Bucket[]; byDay: Map<string, Bucket> } {
  const buckets = buildBuckets(dayNumber(w.from), dayNumber(w.to), w.granularity);
  const byDay = new Map<string, Bucket>();
  for (const b of buckets) for (let d = b.startDay; d <= b.endDay; d += 1) byDay.set(toDate(d), b);
  return { buckets, byDay };
}

/** Adds realised money to its bucket; answers what falls before the window (the opening balance's part). */
function addTransactions(moves: readonly DayRow[], byDay: ReadonlyMap<string, Bucket>): bigint {
  let opening = 0n;
  for (const row of moves) {
    const cents = big(row.cents) * (row.side === 'credit' ? 1n : -1n);
    const bucket = byDay.get(row.day);
    if (row.day === BEFORE || !bucket) { opening += cents; continue; }
    if (row.side === 'credit') bucket.realisedIncome += big(row.cents);
    else bucket.realisedExpenses += big(row.cents);
  }
  return opening;
}

interface Overdue {
  receivable: { n: number; cents: bigint };
  payable: { n: number; cents: bigint };
}

/** Adds projected money to its bucket and counts the overdue titles; answers what falls before the window. */
function addOpenTitles(titles: readonly DayRow[], byDay: ReadonlyMap<string, Bucket>, overdue: Overdue): bigint {
  let opening = 0n;
  for (const row of titles) {
    const side = row.side === 'receivable' ? 'receivable' : 'payable';
    if (row.day === OVERDUE) {
      overdue[side] = { n: overdue[side].n + Number(row.n), cents: overdue[side].cents + big(row.cents) };
      continue;
    }
    const bucket = byDay.get(row.day);
    if (row.day === BEFORE || !bucket) { opening += side === 'receivable' ? big(row.cents) : -big(row.cents); continue; }
    if (side === 'receivable') bucket.projectedIncome += big(row.cents);
    else bucket.projectedExpenses += big(row.cents);
  }
  return opening;
}

/** The buckets as answered, each closing on the running balance from `opening`. */
function renderBuckets(buckets: readonly Bucket[], opening: bigint): Record<string, unknown>[] {
  let balance = opening;
  return buckets.map((b) => {
    const net = b.realisedIncome - b.realisedExpenses + b.projectedIncome - b.projectedExpenses;
    balance += net;
    return {
      start: b.start, end: b.end, realised_income: formatCents(b.realisedIncome), realised_expenses: formatCents(b.realisedExpenses),
      projected_income: formatCents(b.projectedIncome), projected_expenses: formatCents(b.projectedExpenses),
      net: formatCents(net), closing_balance: formatCents(balance),
    };
  });
}

export const handlers = defineOperations({
  'cash_flow.get': async (ctx, input) => {
    const w = await readWindow(ctx, input.query);
    // Names are static; the builder is untyped only for the table aliases.
    const db = ctx.db as unknown as Kysely<any>;
    const workspaceId = requireWorkspace(ctx);
    const [moves, titles] = [await sumTransactions(db, workspaceId, w), await sumOpenTitles(db, workspaceId, w)];
    const { buckets, byDay } = indexBuckets(w);
    const overdue: Overdue = { receivable: { n: 0, cents: 0n }, payable: { n: 0, cents: 0n } };
    const opening = addTransactions(moves, byDay) + addOpenTitles(titles, byDay, overdue);
    return {
      body: {
        from: w.from, to: w.to, granularity: w.granularity, tz: w.tz, today: w.today, account_id: w.accountId,
        opening_balance: formatCents(opening),
        overdue: {
          receivables: formatCents(overdue.receivable.cents), receivables_count: overdue.receivable.n,
          payables: formatCents(overdue.payable.cents), payables_count: overdue.payable.n,
        },
        buckets: renderBuckets(buckets, opening),
      },
    };
  },
});
