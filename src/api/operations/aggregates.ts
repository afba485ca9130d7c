/**
 * payables.aggregates, receivables.aggregates, transactions.aggregates: counts and totals over the
 * records a filter selects, optionally split by one dimension, so an agent never pages a list to
 * add amounts itself (docs/domain.md#aggregates). Each call is ONE SQL statement: the overall
 * totals and the per-group totals are two aggregate SELECTs joined by UNION ALL, grouped by
 * (group, status) in the database, with the workspace's time zone as a third part for titles; only those
 * rows reach JavaScript, which ranks the groups and sums the ones beyond `top`. Amounts stay
 * integer cents (BigInt) until they are formatted.
 *
 * A title's status is the list's (src/api/rules/title-status.ts): `pending` counts every pending
 * title, `overdue` the part of them due before the workspace's today. That today is only known
 * once the time zone is read, in the same statement; it is within a day of the UTC date T (zones
 * run from UTC−12 to UTC+14), so the statement settles every due date but two: a pending title due
 * before T−1 is overdue in every zone, one due after T in none, and the ones due on T−1 or T come
 * back by due date (`edge`) and are told apart here, against the workspace's today.
 */
import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import type { OperationContext, OperationInput } from '../context.js';
import { defineOperations } from '../define-operations.js';
import { formatCents } from '../money.js';
import { requireWorkspace } from '../records.js';
import type { AnySelect } from '../list.js';
import type { TitleKind } from '../rules/title-records.js';
import { dateInZone, dayNumber, toDate } from '../dates.js';
import { DEFAULT_TIME_ZONE, isOverdue, OPEN_STATUS, overdueCondition } from '../rules/title-status.js';

type Dimension = 'category' | 'cost_center' | 'person' | 'month';
type ParentType = TitleKind | 'transaction';
/** What a title's groups are ranked by: a status's amount, or every title's (`total`). */
type RankBy = 'pending' | 'overdue' | 'paid' | 'received' | 'cancelled' | 'total';

/** The filters and grouping of one call, read from the query (validated against the spec already). */
interface AggregateQuery {
  readonly from: string | undefined;
  readonly to: string | undefined;
  readonly personId: string | undefined;
  readonly categoryId: string | undefined;
  readonly costCenterId: string | undefined;
  readonly accountId: string | undefined;
  readonly groupBy: Dimension | null;
  readonly top: number;
  /** Titles only; absent: by the pending amount. */
  readonly rankBy: RankBy | undefined;
}

const DEFAULT_TOP = 10;

function readText(value: unknown): string | undefined {
  return value === undefined || value === '' ? undefined : String(value);
}

function readAggregateQuery(input: OperationInput): AggregateQuery {
  const q = input.query;
  const top = q['top'] === undefined || q['top'] === '' ? DEFAULT_TOP : Number(q['top']);
  return {
    from: readText(q['from']), to: readText(q['to']), personId: readText(q['person_id']), categoryId: readText(q['category_id']),
    costCenterId: readText(q['cost_center_id']), accountId: readText(q['financial_account_id']),
    groupBy: (readText(q['group_by']) as Dimension | undefined) ?? null, top, rankBy: readText(q['rank_by']) as RankBy | undefined,
  };
}

/**
 * The bucket of overdue titles: the statement puts there the pending titles overdue in every time
 * zone (due before T−1); `collect` adds the edge-day ones overdue against the workspace's today.
 */
const OVERDUE = 'overdue';

/** The UTC dates around which the workspace's today may fall: T−1 … T+1. */
interface Edges {
  /** T−1: a pending title due before it is overdue in every zone. */
  readonly first: string;
  /** T: a pending title due after it is overdue in none. */
  readonly last: string;
}

function edgesOf(now: Date): Edges {
  const utc = dayNumber(now.toISOString().slice(0, 10));
  return { first: toDate(utc - 1), last: toDate(utc) };
}

/** What differs between titles and transactions: the table, its date column, its status buckets. */
interface Source {
  readonly table: 'titles' | 'transactions';
  readonly parentType: ParentType;
  readonly dateColumn: 'due_date' | 'occurred_at';
  /** The bucket of a row: a title's stored status (`overdue` when overdue in every zone), a transaction's type. */
  readonly bucket: (edges: Edges) => RawBuilder<string>;
  /** A pending title's due date when it is overdue in some zones and not in others (T−1, T); else null. */
  readonly edge: (edges: Edges) => RawBuilder<string | null>;
  readonly baseWhere: (qb: AnySelect) => AnySelect;
  /** Whether the statement also reads the workspace's time zone (titles: their today; transactions have none). */
  readonly zoned: boolean;
}

function titleSource(kind: TitleKind): Source {
  const open = sql.lit(OPEN_STATUS);
  return {
    table: 'titles', parentType: kind, dateColumn: 'due_date',
    bucket: (e) => sql<string>`case when ${overdueCondition(e.first, 'r')} then ${sql.lit(OVERDUE)} else r.status end`,
    edge: (e) => sql<string | null>`case when r.status = ${open} and r.due_date >= ${e.first} and r.due_date <= ${e.last} then r.due_date else null end`,
    baseWhere: (qb) => qb.where('r.kind', '=', kind), zoned: true,
  };
}

const TRANSACTIONS: Source = {
  table: 'transactions', parentType: 'transaction', dateColumn: 'occurred_at',
  bucket: () => sql<string>`r.type`, edge: () => sql<string | null>`null`, baseWhere: (qb) => qb, zoned: false,
};

/** The rows the filters select, aliased `r`; every table scoped to the workspace. */
function filtered(db: Kysely<any>, workspaceId: string, source: Source, query: AggregateQuery): AnySelect {
  let qb: AnySelect = source.baseWhere(db.selectFrom(`${source.table} as r`).where('r.workspace_id', '=', workspaceId));
  if (query.from) qb = qb.where(`r.${source.dateColumn}`, '>=', query.from);
  if (query.to) qb = qb.where(`r.${source.dateColumn}`, '<=', query.to);
  if (query.personId) qb = qb.where('r.person_id', '=', query.personId);
  if (query.categoryId) qb = qb.where('r.category_id', '=', query.categoryId);
  if (query.accountId) qb = qb.where('r.financial_account_id', '=', query.accountId);
  const costCenterId = query.costCenterId;
  if (costCenterId) {
    qb = qb.where((eb) => eb.exists(
      eb.selectFrom('allocations as fa').select(sql.lit(1).as('one'))
        .where('fa.workspace_id', '=', workspaceId).where('fa.parent_type', '=', source.parentType)
        .whereRef('fa.parent_id', '=', 'r.id').where('fa.cost_center_id', '=', costCenterId),
    ));
  }
  return qb;
}

/** The key, label, count and amount expressions of one grouping, with the joins they need. */
function grouped(qb: AnySelect, source: Source, dimension: Dimension): { qb: AnySelect; key: Expression<unknown>; label: Expression<unknown>; count: Expression<unknown>; cents: Expression<unknown> } {
  const count = sql`count(*)`;
  const cents = sql`sum(r.amount_cents)`;
  switch (dimension) {
    case 'category':
      return {
        qb: qb.leftJoin('categories as g', (j) => j.onRef('g.id', '=', 'r.category_id').onRef('g.workspace_id', '=', 'r.workspace_id')),
        key: sql`r.category_id`, label: sql`g.name`, count, cents,
      };
    case 'person':
      return {
        qb: qb.leftJoin('people as g', (j) => j.onRef('g.id', '=', 'r.person_id').onRef('g.workspace_id', '=', 'r.workspace_id')),
        key: sql`r.person_id`, label: sql`g.name`, count, cents,
      };
    case 'month': {
      const month = sql`substr(${sql.ref(`r.${source.dateColumn}`)}, 1, 7)`;
      return { qb, key: month, label: month, count, cents };
    }
    case 'cost_center':
      // A record apportioned to n cost centers counts once in each, with the amount apportioned to
      // it; a record without apportionment counts under `null` with its whole amount.
      return {
        qb: qb
          .leftJoin('allocations as a', (j) => j.onRef('a.parent_id', '=', 'r.id').on('a.parent_type', '=', source.parentType)
            .onRef('a.workspace_id', '=', 'r.workspace_id'))
          .leftJoin('cost_centers as g', (j) => j.onRef('g.id', '=', 'a.cost_center_id').onRef('g.workspace_id', '=', 'r.workspace_id')),
        key: sql`a.cost_center_id`, label: sql`g.name`, count: sql`count(distinct r.id)`, cents: sql`sum(coalesce(a.amount_cents, r.amount_cents))`,
      };
  }
}

interface AggregateRow {
  readonly part: string;
  readonly group_key: string | null;
  readonly group_label: string | null;
  readonly bucket: string | null;
  readonly edge: string | null;
  readonly n: number | string | bigint | null;
  readonly cents: number | string | bigint | null;
}

/**
 * The one statement of a call: the overall totals by bucket, UNION ALL the totals by (group,
 * bucket), UNION ALL (titles) one `zone` row whose `group_key` is the workspace's time zone.
 */
async function runAggregate(ctx: OperationContext, source: Source, query: AggregateQuery, edges: Edges): Promise<AggregateRow[]> {
  // Table and column names come from the static sources above, never from input.
  const db = ctx.db as unknown as Kysely<any>;
  const workspaceId = requireWorkspace(ctx);
  const bucket = source.bucket(edges);
  const edge = source.edge(edges);
  const zone = db.selectFrom('workspaces as z').where('z.id', '=', workspaceId).select([
    sql.lit('zone').as('part'), sql<string | null>`z.timezone`.as('group_key'), sql<string | null>`null`.as('group_label'),
    sql<string | null>`null`.as('bucket'), sql<string | null>`null`.as('edge'), sql`null`.as('n'), sql`null`.as('cents'),
  ]);
  const totals = filtered(db, workspaceId, source, query)
    .select([
      sql.lit('total').as('part'), sql<string | null>`null`.as('group_key'), sql<string | null>`null`.as('group_label'),
      bucket.as('bucket'), edge.as('edge'), sql`count(*)`.as('n'), sql`sum(r.amount_cents)`.as('cents'),
    ])
    // By output name: PostgreSQL does not see `case … $1 …` and `case … $2 …` as one expression.
    .groupBy([sql`bucket`, sql`edge`]);
  let statement: AnySelect = totals;
  if (query.groupBy) {
    const g = grouped(filtered(db, workspaceId, source, query), source, query.groupBy);
    statement = statement.unionAll(g.qb
      .select([
        sql.lit('group').as('part'), sql`${g.key}`.as('group_key'), sql`${g.label}`.as('group_label'),
        bucket.as('bucket'), edge.as('edge'), sql`${g.count}`.as('n'), sql`${g.cents}`.as('cents'),
      ])
      .groupBy([sql`group_key`, sql`group_label`, sql`bucket`, sql`edge`]));
  }
  if (source.zoned) statement = statement.unionAll(zone);
  return (await statement.execute()) as AggregateRow[];
}

type Buckets = Map<string, { count: bigint; cents: bigint }>;

function addTo(buckets: Buckets, bucket: string, count: bigint, cents: bigint): void {
  const current = buckets.get(bucket) ?? { count: 0n, cents: 0n };
  buckets.set(bucket, { count: current.count + count, cents: current.cents + cents });
}

interface Group {
  readonly key: string | null;
  readonly label: string | null;
  readonly buckets: Buckets;
}

/**
 * The workspace's today at `now` (the instant the statement's edges were taken from), from the
 * statement's `zone` row; within T−1 … T+1 of the UTC date T.
 */
function readWorkspaceToday(now: Date, edges: Edges, rows: readonly AggregateRow[]): string {
  const zone = rows.find((row) => row.part === 'zone')?.group_key ?? DEFAULT_TIME_ZONE;
  const today = dateInZone(now, zone);
  const day = dayNumber(today);
  if (!(day >= dayNumber(edges.first) && day <= dayNumber(edges.last) + 1)) throw new Error('aggregates: the workspace\'s today is more than a day from the UTC date');
  return today;
}

/**
 * A row's status bucket: a pending title due on an edge day is overdue when due before the
 * workspace's today (only title rows have an edge, and only titles have a today).
 */
function resolveBucket(row: AggregateRow, today: string | undefined): string {
  const bucket = String(row.bucket);
  if (row.edge === null || today === undefined) return bucket;
  return isOverdue(bucket, String(row.edge), today) ? OVERDUE : bucket;
}

/**
 * Groups the aggregate rows: the overall buckets, and the buckets of each group. A title's buckets
 * are disjoint here (`overdue` and the rest of `pending` apart); the answer adds them up.
 */
function collect(rows: readonly AggregateRow[], today: string | undefined): { totals: Buckets; groups: Group[] } {
  const totals: Buckets = new Map();
  const groups = new Map<string, Group>();
  for (const row of rows) {
    if (row.part === 'zone') continue;
    const count = BigInt(String(row.n));
    const cents = BigInt(String(row.cents ?? 0));
    const bucketName = resolveBucket(row, today);
    if (row.part === 'total') {
      addTo(totals, bucketName, count, cents);
      continue;
    }
    const id = row.group_key === null ? '\u0000null' : String(row.group_key);
    const group = groups.get(id) ?? { key: row.group_key === null ? null : String(row.group_key), label: row.group_label ?? null, buckets: new Map() };
    groups.set(id, group);
    addTo(group.buckets, bucketName, count, cents);
  }
  return { totals, groups: [...groups.values()] };
}

function sumBuckets(buckets: Buckets, names?: readonly string[]): { count: bigint; cents: bigint } {
  let count = 0n;
  let cents = 0n;
  for (const [name, value] of buckets) {
    if (names && !names.includes(name)) continue;
    count += value.count;
    cents += value.cents;
  }
  return { count, cents };
}

function mergeBuckets(groups: readonly Group[]): Buckets {
  const merged: Buckets = new Map();
  for (const group of groups) for (const [name, value] of group.buckets) addTo(merged, name, value.count, value.cents);
  return merged;
}

/**
 * Largest `rank` first, then largest `then` (a title's total); equal in both, by key (null last),
 * so the order is stable across databases.
 */
function rankGroups(groups: Group[], rank: (g: Group) => bigint, then: (g: Group) => bigint): Group[] {
  return groups.sort((a, b) => {
    const diff = rank(b) - rank(a);
    if (diff !== 0n) return diff > 0n ? 1 : -1;
    const next = then(b) - then(a);
    if (next !== 0n) return next > 0n ? 1 : -1;
    if (a.key === b.key) return 0;
    if (a.key === null) return 1;
    if (b.key === null) return -1;
    return a.key < b.key ? -1 : 1;
  });
}

/**
 * How many ranked groups are listed: `top`, and past it every group tied with the last one listed
 * on the ranked amount, so a cut never splits a tie. Groups with none of the ranked amount are
 * ordered by total and are not a tie (else `top` would list every group with nothing pending).
 */
function countShown(ranked: readonly Group[], top: number, rank: (g: Group) => bigint): number {
  const last = ranked[top - 1];
  if (last === undefined) return ranked.length;
  const value = rank(last);
  let shown = top;
  while (value !== 0n && shown < ranked.length && rank(ranked[shown] as Group) === value) shown += 1;
  return shown;
}

interface Shape {
  readonly rank: (g: Group) => bigint;
  /** The order among groups of the same rank. */
  readonly then: (g: Group) => bigint;
  readonly totals: (buckets: Buckets) => Record<string, unknown>;
}

function answer(rows: readonly AggregateRow[], query: AggregateQuery, shape: Shape, today?: string): Record<string, unknown> {
  const { totals, groups } = collect(rows, today);
  const ranked = rankGroups(groups, shape.rank, shape.then);
  const cut = countShown(ranked, query.top, shape.rank);
  const shown = ranked.slice(0, cut);
  const rest = ranked.slice(cut);
  return {
    totals: shape.totals(totals),
    group_by: query.groupBy,
    groups: shown.map((g) => ({ key: g.key, label: g.label, totals: shape.totals(g.buckets) })),
    rest: rest.length === 0 ? null : { groups: rest.length, totals: shape.totals(mergeBuckets(rest)) },
  };
}

/**
 * The stored buckets each answered name adds up: `pending` is every pending title, `overdue` the
 * part of them due before today; `total` is every title.
 */
function titleBuckets(settled: 'paid' | 'received'): ReadonlyMap<string, readonly string[] | undefined> {
  return new Map<string, readonly string[] | undefined>([
    ['pending', [OPEN_STATUS, OVERDUE]], ['overdue', [OVERDUE]], [settled, [settled]], ['cancelled', ['cancelled']], ['total', undefined],
  ]);
}

function titleShape(settled: 'paid' | 'received', rankBy: RankBy = 'pending'): Shape {
  const names = titleBuckets(settled);
  // The contract lists only this kind's settled status; anything else is a programming error.
  if (!names.has(rankBy)) throw new Error(`aggregates: cannot rank ${settled === 'paid' ? 'payables' : 'receivables'} by ${rankBy}`);
  const ranked = names.get(rankBy);
  const bucketJson = (buckets: Buckets, name: string) => {
    const value = sumBuckets(buckets, names.get(name));
    return { count: Number(value.count), total: formatCents(value.cents) };
  };
  return {
    rank: (g) => sumBuckets(g.buckets, ranked).cents,
    then: (g) => sumBuckets(g.buckets).cents,
    totals: (buckets) => {
      const all = sumBuckets(buckets);
      return {
        count: Number(all.count), total: formatCents(all.cents),
        pending: bucketJson(buckets, 'pending'), overdue: bucketJson(buckets, 'overdue'),
        [settled]: bucketJson(buckets, settled), cancelled: bucketJson(buckets, 'cancelled'),
      };
    },
  };
}

const TRANSACTION_SHAPE: Shape = {
  rank: (g) => sumBuckets(g.buckets).cents,
  then: () => 0n,
  totals: (buckets) => {
    const credit = sumBuckets(buckets, ['credit']);
    const debit = sumBuckets(buckets, ['debit']);
    return {
      count: Number(credit.count + debit.count), credit: formatCents(credit.cents), debit: formatCents(debit.cents),
      net: formatCents(credit.cents - debit.cents),
    };
  },
};

/** A title aggregate: the totals, the groups ranked by `rank_by` (default the pending amount), and the workspace's `today`. */
async function aggregateTitles(ctx: OperationContext, input: OperationInput, kind: TitleKind, settled: 'paid' | 'received'): Promise<{ body: Record<string, unknown> }> {
  const query = readAggregateQuery(input);
  // One reading of the clock: the statement's edges and the workspace's today come from the same instant.
  const now = ctx.now();
  const edges = edgesOf(now);
  const rows = await runAggregate(ctx, titleSource(kind), query, edges);
  const today = readWorkspaceToday(now, edges, rows);
  return { body: { ...answer(rows, query, titleShape(settled, query.rankBy), today), today } };
}

export const handlers = defineOperations({
  'payables.aggregates': (ctx, input) => aggregateTitles(ctx, input, 'payable', 'paid'),
  'receivables.aggregates': (ctx, input) => aggregateTitles(ctx, input, 'receivable', 'received'),
  'transactions.aggregates': async (ctx, input) => {
    const query = readAggregateQuery(input);
    const rows = await runAggregate(ctx, TRANSACTIONS, query, edgesOf(ctx.now()));
    return { body: answer(rows, query, TRANSACTION_SHAPE) };
  },
});
