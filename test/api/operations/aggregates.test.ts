/**
 * payables/receivables/transactions.aggregates (issue 20, "Done when": aggregates equal the sums
 * over the full list for every filter and grouping, and each call is one query; issue 27 item 1:
 * one status vocabulary). A fast-check property draws filters, a grouping and a ranking from the
 * demo data, asks the aggregate endpoint over REST and recomputes the answer from the full list
 * (every page of `GET /v1/<resource>`): totals by status/type — a title's status as the list
 * answers it, `pending` every pending title and `overdue` the part of them the list marks
 * `overdue` — the groups (by key, ranked by the pending amount unless `rank_by`, then total), the
 * top-N with the groups tied at the cut, and the summed rest. Runs on SQLite and, with
 * DATABASE_URL, on PostgreSQL. test/api/operations/aggregates-list-filters.test.ts asks the list
 * itself with the same filters, pins "today" in São Paulo and checks a tie at the cut.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { KyselyPlugin } from 'kysely';
import type { Caller } from '../../../src/api/context.js';
import { handlers } from '../../../generated/handlers.gen.js';
import { DEMO } from '../../helpers/index.js';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { loadFixtures } from '../rules/support.js';
import { createDeadline } from '../../../src/runtime/deadline.js';
import { systemClock } from '../../../src/runtime/clock.js';

const M = DEMO.workspaces.matriz;
const DIMENSIONS = ['category', 'cost_center', 'person', 'month'] as const;
type Dimension = (typeof DIMENSIONS)[number];

interface Row {
  readonly id: string;
  readonly date: string;
  readonly person_id: string | null;
  readonly category_id: string | null;
  readonly financial_account_id: string | null;
  readonly cents: bigint;
  readonly bucket: string;
  readonly allocations: readonly { cost_center_id: string; cents: bigint }[];
}

interface Filters {
  from?: string;
  to?: string;
  person_id?: string;
  category_id?: string;
  cost_center_id?: string;
  financial_account_id?: string;
  group_by?: Dimension;
  top?: number;
  rank_by?: string;
}

const cents = (money: string): bigint => {
  const negative = money.startsWith('-');
  const [whole, fraction] = money.replace('-', '').split('.');
  const value = BigInt(whole ?? '0') * 100n + BigInt(fraction ?? '0');
  return negative ? -value : value;
};
const money = (value: bigint): string => {
  const abs = value < 0n ? -value : value;
  return `${value < 0n ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
};

type Totals = Map<string, { count: number; cents: bigint }>;
const add = (t: Totals, bucket: string, c: bigint, n = 1) => {
  const cur = t.get(bucket) ?? { count: 0, cents: 0n };
  t.set(bucket, { count: cur.count + n, cents: cur.cents + c });
};

function matches(row: Row, f: Filters): boolean {
  return (!f.from || row.date >= f.from) && (!f.to || row.date <= f.to)
    && (!f.person_id || row.person_id === f.person_id) && (!f.category_id || row.category_id === f.category_id)
    && (!f.financial_account_id || row.financial_account_id === f.financial_account_id)
    && (!f.cost_center_id || row.allocations.some((a) => a.cost_center_id === f.cost_center_id));
}

/**
 * The stored buckets a name adds up: a title's `pending` is every pending title (the list's
 * `status: pending`), `overdue` the part of them the list marks overdue; `total` everything.
 */
const TITLE_NAMES: Record<string, readonly string[] | undefined> = {
  pending: ['pending', 'overdue'], overdue: ['overdue'], paid: ['paid'], received: ['received'], cancelled: ['cancelled'], total: undefined,
};
const sumOf = (t: Totals, names?: readonly string[]) => [...t.entries()].filter(([b]) => !names || names.includes(b)).reduce((s, [, v]) => s + v.cents, 0n);

/** The expected answer, computed from the rows of the full list. */
function expected(rows: readonly Row[], f: Filters, json: (t: Totals) => object, titles: boolean): object {
  const selected = rows.filter((r) => matches(r, f));
  const totals: Totals = new Map();
  for (const r of selected) add(totals, r.bucket, r.cents);
  const groups = new Map<string | null, Totals>();
  const into = (key: string | null) => { if (!groups.has(key)) groups.set(key, new Map()); return groups.get(key)!; };
  if (f.group_by) {
    for (const r of selected) {
      if (f.group_by === 'cost_center') {
        if (r.allocations.length === 0) add(into(null), r.bucket, r.cents);
        const seen = new Map<string, bigint>();
        for (const a of r.allocations) seen.set(a.cost_center_id, (seen.get(a.cost_center_id) ?? 0n) + a.cents);
        for (const [id, c] of seen) add(into(id), r.bucket, c);
      } else {
        const key = f.group_by === 'month' ? r.date.slice(0, 7) : f.group_by === 'person' ? r.person_id : r.category_id;
        add(into(key), r.bucket, r.cents);
      }
    }
  }
  // Titles: by the `rank_by` amount (default pending), then total; transactions: by credit + debit.
  const rank = (t: Totals) => sumOf(t, titles ? TITLE_NAMES[f.rank_by ?? 'pending'] : undefined);
  const ranked = [...groups.entries()].sort(([ka, a], [kb, b]) => {
    const d = rank(b) - rank(a);
    if (d !== 0n) return d > 0n ? 1 : -1;
    const t = sumOf(b) - sumOf(a);
    if (t !== 0n) return t > 0n ? 1 : -1;
    if (ka === kb) return 0;
    if (ka === null) return 1;
    if (kb === null) return -1;
    return ka < kb ? -1 : 1;
  });
  // A cut never splits a tie on a non-zero ranked amount: the tied groups after the `top`-th are listed too.
  let top = Math.min(f.top ?? 10, ranked.length);
  const cutValue = top > 0 ? rank(ranked[top - 1]![1]) : 0n;
  while (cutValue !== 0n && top < ranked.length && rank(ranked[top]![1]) === cutValue) top += 1;
  const rest = ranked.slice(top);
  const restTotals: Totals = new Map();
  for (const [, t] of rest) for (const [b, v] of t) add(restTotals, b, v.cents, v.count);
  return {
    totals: json(totals),
    group_by: f.group_by ?? null,
    groups: ranked.slice(0, top).map(([key, t]) => ({ key, totals: json(t) })),
    rest: rest.length === 0 ? null : { groups: rest.length, totals: json(restTotals) },
  };
}

function titleJson(settled: string) {
  return (t: Totals) => {
    const b = (name: string) => {
      const parts = [...t.entries()].filter(([bucket]) => TITLE_NAMES[name]!.includes(bucket));
      return { count: parts.reduce((s, [, v]) => s + v.count, 0), total: money(parts.reduce((s, [, v]) => s + v.cents, 0n)) };
    };
    const all = [...t.values()];
    return {
      count: all.reduce((s, v) => s + v.count, 0), total: money(all.reduce((s, v) => s + v.cents, 0n)),
      pending: b('pending'), overdue: b('overdue'), [settled]: b(settled), cancelled: b('cancelled'),
    };
  };
}

function transactionJson(t: Totals) {
  const credit = t.get('credit') ?? { count: 0, cents: 0n };
  const debit = t.get('debit') ?? { count: 0, cents: 0n };
  return { count: credit.count + debit.count, credit: money(credit.cents), debit: money(debit.cents), net: money(credit.cents - debit.cents) };
}

const caller: Caller = {
  personId: DEMO.persons.ana, organizationId: DEMO.organizationId, scopes: new Set(['finance.all']), tokenType: 'personal', channel: 'api',
  membership: { status: 'active', isAdmin: true, permissions: new Set(), workspaceIds: [M], workspaceNames: DEMO.workspaceNames },
};

describe(`*.aggregates equal the sums over the full list (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(180_000);
  let api: RestApp;
  const today = new Date().toISOString().slice(0, 10);
  before(async () => {
    api = await startRestApp();
    // The demo transactions carry no apportionment: a few apportioned ones exercise cost_center.
    const f = await loadFixtures(api.app.services.db, M);
    const bodies = [
      { type: 'debit', amount: '300.00', category_id: f.debitCategoryId, person_id: f.vendorId, cost_center_allocations: [{ cost_center_id: f.costCenters.cost, percentage: 50 }, { cost_center_id: f.costCenters.both, percentage: 50 }] },
      { type: 'debit', amount: '45.90', category_id: f.debitCategoryId, cost_center_allocations: [{ cost_center_id: f.costCenters.cost, amount: '45.90' }] },
      { type: 'credit', amount: '1200.00', category_id: f.creditCategoryId, person_id: f.customerId, cost_center_allocations: [{ cost_center_id: f.costCenters.revenue, amount: '1200.00' }] },
    ];
    for (const body of bodies) {
      const res = await api.call('POST', '/v1/transactions', { workspace: M, body: { financial_account_id: f.otherAccountId, occurred_at: today, description: 'Aggregate fixture', ...body } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
    }
  });
  after(async () => { await api?.close(); });

  async function fetchAll(resource: string): Promise<any[]> {
    const all: any[] = [];
    let cursor: string | null = null;
    do {
      const res = await api.call('GET', `/v1/${resource}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { workspace: M });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      all.push(...res.body.data);
      cursor = res.body.meta.next_cursor;
    } while (cursor);
    return all;
  }

  const toRows = (records: any[], date: string, bucket: (r: any) => string): Row[] => records.map((r) => ({
    id: r.id, date: r[date], person_id: r.person_id, category_id: r.category_id, financial_account_id: r.financial_account_id,
    cents: cents(r.amount), bucket: bucket(r),
    allocations: r.cost_center_allocations.map((a: any) => ({ cost_center_id: a.cost_center_id, cents: cents(a.amount) })),
  }));

  const query = (f: Filters) => Object.entries(f).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&');

  function filtersFrom(rows: readonly Row[], withGroup: fc.Arbitrary<Dimension | undefined>, rankings: readonly string[]): fc.Arbitrary<Filters> {
    const pick = <T>(values: T[]) => (values.length === 0 ? fc.constant(undefined) : fc.option(fc.constantFrom(...values), { nil: undefined, freq: 2 }));
    const unique = <T>(values: (T | null)[]) => [...new Set(values.filter((v): v is T => v !== null))];
    const dates = unique(rows.map((r) => r.date)).sort();
    return fc.record({
      from: pick(dates), to: pick(dates),
      person_id: pick(unique(rows.map((r) => r.person_id))),
      category_id: pick(unique(rows.map((r) => r.category_id))),
      cost_center_id: pick(unique(rows.flatMap((r) => r.allocations.map((a) => a.cost_center_id)))),
      financial_account_id: pick(unique(rows.map((r) => r.financial_account_id))),
      group_by: withGroup,
      top: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
      rank_by: rankings.length === 0 ? fc.constant(undefined) : fc.option(fc.constantFrom(...rankings), { nil: undefined }),
    }, { requiredKeys: [] }).map((f) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) as Filters);
  }

  const cases = [
    { resource: 'payables', date: 'due_date', settled: 'paid' },
    { resource: 'receivables', date: 'due_date', settled: 'received' },
    { resource: 'transactions', date: 'occurred_at', settled: null },
  ] as const;

  for (const c of cases) {
    for (const dimension of [undefined, ...DIMENSIONS]) {
      it(`${c.resource}.aggregates${dimension ? ` by ${dimension}` : ''}: equal to the sums over the full list for generated filters`, async () => {
        const records = await fetchAll(c.resource);
        // A title's bucket is what the list says of it: its status, and `overdue` when the list marks it so.
        const rows = toRows(records, c.date, c.settled === null
          ? (r) => r.type
          : (r) => (r.overdue === true ? 'overdue' : r.status));
        expect(rows.length).to.be.greaterThan(10);
        if (c.settled !== null) expect(rows.some((r) => r.bucket === 'overdue'), 'the demo data has overdue titles').to.equal(true);
        const json = c.settled === null ? transactionJson : titleJson(c.settled);
        const rankings = c.settled === null ? [] : ['pending', 'overdue', c.settled, 'cancelled', 'total'];
        // The unfiltered call first: it must see every record of the list.
        const all = await api.call('GET', `/v1/${c.resource}/aggregates${dimension ? `?group_by=${dimension}&top=50` : ''}`, { workspace: M });
        expect(all.status, JSON.stringify(all.body)).to.equal(200);
        expect(all.body.totals.count).to.equal(rows.length);
        if (c.settled !== null) {
          // The aggregate's today is the list's: overdue exactly when pending and due before it.
          const today = all.body.today as string;
          expect(records.every((r) => r.overdue === (r.status === 'pending' && r.due_date < today)), `today ${today}`).to.equal(true);
        }
        await fc.assert(fc.asyncProperty(filtersFrom(rows, fc.constant(dimension), rankings), async (f) => {
          const res = await api.call('GET', `/v1/${c.resource}/aggregates?${query(f)}`, { workspace: M });
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          // Labels are names of the grouped records (checked below), not part of the sum; `today` is checked above.
          const { today: _today, ...body } = res.body;
          const got = { ...body, groups: res.body.groups.map((g: any) => ({ key: g.key, totals: g.totals })) };
          expect(got).to.deep.equal(expected(rows, f, json, c.settled !== null));
          for (const g of res.body.groups as any[]) {
            if (f.group_by === 'month') expect(g.label).to.equal(g.key);
            else expect(g.label === null).to.equal(g.key === null);
          }
        }), { numRuns: 12 });
      });
    }
  }

  it('answers each call with one SQL statement, whatever the filters and grouping', async () => {
    let statements = 0;
    const counter: KyselyPlugin = {
      // transformQuery also runs for each member of a UNION as it is built; a result is one statement.
      transformQuery: (args) => args.node,
      transformResult: async (args) => { statements += 1; return args.result; },
    };
    const db = api.app.services.db.withPlugin(counter);
    const ctx = { caller, workspaceId: M, db, now: () => new Date() , deadline: createDeadline(systemClock, 10_000), bounds: null };
    const costCenter = (await api.call('GET', '/v1/cost_centers?limit=1', { workspace: M })).body.data[0].id as string;
    for (const operationId of ['payables.aggregates', 'receivables.aggregates', 'transactions.aggregates']) { // hand-kept-ok: the three operations under test
      for (const group of [undefined, ...DIMENSIONS]) {
        statements = 0;
        const query = { from: '2026-01-01', to: '2026-12-31', cost_center_id: costCenter, ...(group ? { group_by: group, top: '2' } : {}) };
        const output = await handlers[operationId]!(ctx, { path: {}, query });
        expect(output.body, operationId).to.have.property('totals');
        expect(statements, `${operationId} by ${group ?? 'nothing'}`).to.equal(1);
      }
    }
  });

  it('is scoped to the workspace, and needs the resource\'s read scope', async () => {
    const filial = await api.call('GET', '/v1/payables/aggregates', { workspace: DEMO.workspaces.filial });
    const matriz = await api.call('GET', '/v1/payables/aggregates', { workspace: M });
    expect(filial.status).to.equal(200);
    expect(filial.body.totals.count).to.not.equal(matriz.body.totals.count);
    const token = await api.token('ana', 'finance.receivables');
    expect((await api.call('GET', '/v1/payables/aggregates', { workspace: M, token })).status).to.equal(403);
    expect((await api.call('GET', '/v1/receivables/aggregates', { workspace: M, token })).status).to.equal(200);
    expect((await api.call('GET', '/v1/payables/aggregates?group_by=vendor', { workspace: M })).status).to.equal(400);
  });
});
