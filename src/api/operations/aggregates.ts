/**
 * payables.aggregates, receivables.aggregates, transactions.aggregates: counts and totals over the
 * records a filter selects, optionally split by one dimension, so an agent never pages a list to
 * add amounts itself. Each call is ONE SQL statement: the overall totals and the per-group totals
 * are two aggregate SELECTs joined by UNION ALL, grouped by (group, status) in the database; only
 * those aggregate rows reach JavaScript, which ranks the groups and sums the ones beyond `top`.
 * Amounts stay integer cents (BigInt) until they are formatted.
 */
import { sql, type Expression, type Kysely, type RawBuilder } from 'kysely';
import type { OperationContext, OperationInput } from '../context.js';
import { defineOperations } from '../define-operations.js';
import { formatCents } from '../money.js';
import { requireWorkspace } from '../records.js';
import type { AnySelect } from '../list.js';
import { readToday, type TitleKind } from '../rules/title-records.js';

type Dimension = 'category' | 'cost_center' | 'person' | 'month';
type ParentType = TitleKind | 'transaction';

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
    groupBy: (readText(q['group_by']) as Dimension | undefined) ?? null, top,
  };
}

/** What differs between titles and transactions: the table, its date column, its status buckets. */
interface Source {
  readonly table: 'titles' | 'transactions';
  readonly parentType: ParentType;
  readonly dateColumn: 'due_date' | 'occurred_at';
  /** The bucket of a row: a title's status (with `overdue`), a transaction's type. */
  readonly bucket: (ctx: OperationContext) => RawBuilder<string>;
  readonly baseWhere: (qb: AnySelect) => AnySelect;
}

function titleSource(kind: TitleKind): Source {
  return {
    table: 'titles', parentType: kind, dateColumn: 'due_date',
    bucket: (ctx) => sql<string>`case when r.status = 'pending' and r.due_date < ${readToday(ctx)} then 'overdue' else r.status end`,
    baseWhere: (qb) => qb.where('r.kind', '=', kind),
  };
}

const TRANSACTIONS: Source = {
  table: 'transactions', parentType: 'transaction', dateColumn: 'occurred_at',
  bucket: () => sql<string>`r.type`, baseWhere: (qb) => qb,
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
  readonly bucket: string;
  readonly n: number | string | bigint;
  readonly cents: number | string | bigint | null;
}

/** The one statement of a call: the overall totals by bucket, UNION ALL the totals by (group, bucket). */
async function runAggregate(ctx: OperationContext, source: Source, query: AggregateQuery): Promise<AggregateRow[]> {
  // Table and column names come from the static sources above, never from input.
  const db = ctx.db as unknown as Kysely<any>;
  const workspaceId = requireWorkspace(ctx);
  const bucket = source.bucket(ctx);
  const totals = filtered(db, workspaceId, source, query)
    .select([
      sql.lit('total').as('part'), sql<string | null>`null`.as('group_key'), sql<string | null>`null`.as('group_label'),
      bucket.as('bucket'), sql`count(*)`.as('n'), sql`sum(r.amount_cents)`.as('cents'),
    ])
    // By output name: PostgreSQL does not see `case … $1 …` and `case … $2 …` as one expression.
    .groupBy(sql`bucket`);
  if (!query.groupBy) return (await totals.execute()) as AggregateRow[];
  const g = grouped(filtered(db, workspaceId, source, query), source, query.groupBy);
  const groups = g.qb
    .select([
      sql.lit('group').as('part'), sql`${g.key}`.as('group_key'), sql`${g.label}`.as('group_label'),
      bucket.as('bucket'), sql`${g.count}`.as('n'), sql`${g.cents}`.as('cents'),
    ])
    .groupBy([sql`group_key`, sql`group_label`, sql`bucket`]);
  return (await totals.unionAll(groups).execute()) as AggregateRow[];
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

/** Groups the aggregate rows: the overall buckets, and the buckets of each group. */
function collect(rows: readonly AggregateRow[]): { totals: Buckets; groups: Group[] } {
  const totals: Buckets = new Map();
  const groups = new Map<string, Group>();
  for (const row of rows) {
    const count = BigInt(String(row.n));
    const cents = BigInt(String(row.cents ?? 0));
    if (row.part === 'total') {
      addTo(totals, row.bucket, count, cents);
      continue;
    }
    const id = row.group_key === null ? '\u0000null' : String(row.group_key);
    const group = groups.get(id) ?? { key: row.group_key === null ? null : String(row.group_key), label: row.group_label ?? null, buckets: new Map() };
    groups.set(id, group);
    addTo(group.buckets, row.bucket, count, cents);
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

/** Largest `rank` first; ties by key (null last) so the order is stable across databases. */
function rankGroups(groups: Group[], rank: (g: Group) => bigint): Group[] {
  return groups.sort((a, b) => {
    const diff = rank(b) - rank(a);
    if (diff !== 0n) return diff > 0n ? 1 : -1;
    if (a.key === b.key) return 0;
    if (a.key === null) return 1;
    if (b.key === null) return -1;
    return a.key < b.key ? -1 : 1;
  });
}

interface Shape {
  readonly rank: (g: Group) => bigint;
  readonly totals: (buckets: Buckets) => Record<string, unknown>;
}

function answer(rows: readonly AggregateRow[], query: AggregateQuery, shape: Shape): Record<string, unknown> {
  const { totals, groups } = collect(rows);
  const ranked = rankGroups(groups, shape.rank);
  const shown = ranked.slice(0, query.top);
  const rest = ranked.slice(query.top);
  return {
    totals: shape.totals(totals),
    group_by: query.groupBy,
    groups: shown.map((g) => ({ key: g.key, label: g.label, totals: shape.totals(g.buckets) })),
    rest: rest.length === 0 ? null : { groups: rest.length, totals: shape.totals(mergeBuckets(rest)) },
  };
}

function titleShape(settled: 'paid' | 'received'): Shape {
  const bucketJson = (buckets: Buckets, name: string) => {
    const value = buckets.get(name) ?? { count: 0n, cents: 0n };
    return { count: Number(value.count), total: formatCents(value.cents) };
  };
  return {
    rank: (g) => sumBuckets(g.buckets).cents,
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
  totals: (buckets) => {
    const credit = sumBuckets(buckets, ['credit']);
    const debit = sumBuckets(buckets, ['debit']);
    return {
      count: Number(credit.count + debit.count), credit: formatCents(credit.cents), debit: formatCents(debit.cents),
      net: formatCents(credit.cents - debit.cents),
    };
  },
};

export const handlers = defineOperations({
  'payables.aggregates': async (ctx, input) => {
    const query = readAggregateQuery(input);
    return { body: answer(await runAggregate(ctx, titleSource('payable'), query), query, titleShape('paid')) };
  },
  'receivables.aggregates': async (ctx, input) => {
    const query = readAggregateQuery(input);
    return { body: answer(await runAggregate(ctx, titleSource('receivable'), query), query, titleShape('received')) };
  },
  'transactions.aggregates': async (ctx, input) => {
    const query = readAggregateQuery(input);
    return { body: answer(await runAggregate(ctx, TRANSACTIONS, query), query, TRANSACTION_SHAPE) };
  },
});
