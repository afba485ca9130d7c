/**
 * Issue 27 item 1, "Done when": for every status and grouping, an aggregate's count and amount
 * equal the list's with the same filter, on both databases; "today" follows the workspace's time
 * zone (a case pinned at 22:00 in São Paulo). The issue's finding: the aggregates' `pending` was
 * not the list's `status: pending` (overdue titles were counted apart and left out), groups were
 * ranked by a total that includes paid and cancelled titles, and a `top` cut hid a three-way tie.
 *
 * - A fast-check property draws the aggregate's filters, a grouping, `top` and `rank_by`, and asks
 *   the list — over REST, with the list's own filters (`status`, `overdue`, `due_date[gte|lte]`,
 *   `person_id`, `category_id`, `financial_account_id`) — for each status; each listed group is
 *   asked with its key as one more filter (category, person; a month as a `due_date` range). The
 *   list has no cost-center filter, so that filter and that grouping are applied to the list's
 *   records by their `cost_center_allocations` (an apportioned record counts its share). The rest,
 *   the ranking and the cut are checked against the groups the list gives.
 * - Three suppliers tied on their pending amount, cut at `top: 2`: all three are listed; a supplier
 *   with a larger paid total and nothing pending ranks after them.
 * - The clock pinned at 2026-03-16T01:00Z — 22:00 on Sunday 15 March in São Paulo, already the
 *   16th in UTC: a payable due on the 15th is not overdue yet in the list, its get, its filter, the
 *   aggregate and the cash flow, and one due on the 14th is; in Tokyo (UTC+9) both are.
 * Runs on SQLite and, with DATABASE_URL, on PostgreSQL.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { DEMO } from '../../helpers/index.js';
import { createManualClock } from '../../helpers/clock.js';
import { okCaller, startRestApp, type RestApp } from '../support/rest-app.js';
import { loadFixtures } from '../rules/support.js';

const M = DEMO.workspaces.matriz;
const DATABASE = process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite';
const DIMENSIONS = ['category', 'cost_center', 'person', 'month'] as const;
type Dimension = (typeof DIMENSIONS)[number];

const cents = (amount: string): bigint => {
  const [whole, fraction] = amount.split('.');
  return BigInt(whole ?? '0') * 100n + BigInt((fraction ?? '0').padEnd(2, '0'));
};
const money = (value: bigint): string => `${value / 100n}.${String(value % 100n).padStart(2, '0')}`;

/** The aggregate's filters (its own parameter names). */
interface Filters {
  from?: string;
  to?: string;
  person_id?: string;
  category_id?: string;
  financial_account_id?: string;
  cost_center_id?: string;
  top?: number;
  rank_by?: string;
}

interface Title {
  readonly id: string;
  readonly status: string;
  readonly overdue: boolean;
  readonly due_date: string;
  readonly amount: string;
  readonly person_id: string | null;
  readonly category_id: string | null;
  readonly cost_center_allocations: readonly { cost_center_id: string; amount: string }[];
}

interface Bucket { count: number; total: string }

const toQuery = (params: Record<string, string | number | undefined>) => Object.entries(params)
  .filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`).join('&');

/** The last day of a `YYYY-MM` month. */
function monthEnd(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, m, 0)).toISOString().slice(0, 10);
}

/** The records' count and amount; with `center`, a record counts the share apportioned to it (`null`: unapportioned records, whole). */
function bucketOf(records: readonly Title[], center?: string | null): Bucket {
  let total = 0n;
  let count = 0;
  for (const r of records) {
    if (center === undefined) { count += 1; total += cents(r.amount); continue; }
    if (center === null) {
      if (r.cost_center_allocations.length === 0) { count += 1; total += cents(r.amount); }
      continue;
    }
    const shares = r.cost_center_allocations.filter((a) => a.cost_center_id === center);
    if (shares.length === 0) continue;
    count += 1;
    total += shares.reduce((s, a) => s + cents(a.amount), 0n);
  }
  return { count, total: money(total) };
}

describe(`aggregates equal the list with the same filter, for every status and grouping (${DATABASE})`, function () {
  this.timeout(300_000);
  let api: RestApp;
  const lists = new Map<string, Title[]>();
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  /** Every page of the list for this query (the list's own filter syntax), cached for the run. */
  async function list(resource: string, query: string): Promise<Title[]> {
    const key = `${resource}?${query}`;
    const cached = lists.get(key);
    if (cached) return cached;
    const all: Title[] = [];
    let cursor: string | null = null;
    do {
      const res = await api.call('GET', `/v1/${resource}?limit=100&${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { workspace: M });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      all.push(...res.body.data);
      cursor = res.body.meta.next_cursor;
    } while (cursor);
    lists.set(key, all);
    return all;
  }

  /** The aggregate's filters as the list's, with a due-date range narrowed to `within` when given. */
  function listQuery(f: Filters, extra: Record<string, string> = {}, within?: { from: string; to: string }): string {
    const from = [f.from, within?.from].filter((d): d is string => d !== undefined).sort().at(-1);
    const to = [f.to, within?.to].filter((d): d is string => d !== undefined).sort()[0];
    return toQuery({
      'due_date[gte]': from, 'due_date[lte]': to, person_id: f.person_id, category_id: f.category_id,
      financial_account_id: f.financial_account_id, ...extra,
    });
  }

  /** The list's records for the filters (the cost-center filter applied to the records: the list has none). */
  async function listed(resource: string, f: Filters, extra: Record<string, string> = {}, within?: { from: string; to: string }): Promise<Title[]> {
    const records = await list(resource, listQuery(f, extra, within));
    return f.cost_center_id ? records.filter((r) => r.cost_center_allocations.some((a) => a.cost_center_id === f.cost_center_id)) : records;
  }

  /** A group's key for a record (cost centers: every center it is apportioned to, or null). */
  function keysOf(r: Title, dimension: Dimension): (string | null)[] {
    if (dimension === 'cost_center') return r.cost_center_allocations.length === 0 ? [null] : [...new Set(r.cost_center_allocations.map((a) => a.cost_center_id))];
    if (dimension === 'month') return [r.due_date.slice(0, 7)];
    return [dimension === 'person' ? r.person_id : r.category_id];
  }

  for (const c of [{ resource: 'payables', settled: 'paid' }, { resource: 'receivables', settled: 'received' }] as const) {
    // Each answered status, and the list filter that selects the same titles.
    const statuses: Record<string, Record<string, string>> = {
      pending: { status: 'pending' }, overdue: { overdue: 'true' }, [c.settled]: { status: c.settled }, cancelled: { status: 'cancelled' },
    };
    const rankings = ['pending', 'overdue', c.settled, 'cancelled', 'total'];
    /** A group's ranked amount, from the list's records of that group. */
    const rankOf = (records: readonly Title[], rankBy: string, center?: string | null): bigint => {
      const selected = rankBy === 'total' ? records
        : rankBy === 'overdue' ? records.filter((r) => r.overdue) : records.filter((r) => r.status === rankBy);
      return cents(bucketOf(selected, center).total);
    };

    for (const dimension of DIMENSIONS) {
      it(`${c.resource}.aggregates by ${dimension}: every status, group and the rest equal the list's`, async () => {
        const all = await list(c.resource, '');
        expect(all.length).to.be.greaterThan(10);
        expect(all.some((r) => r.overdue), 'the demo data has overdue titles').to.equal(true);
        const pick = <T>(values: T[]) => fc.option(fc.constantFrom(...values), { nil: undefined, freq: 2 });
        const unique = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => v !== null))].sort();
        const dates = unique(all.map((r) => r.due_date));
        const filters: fc.Arbitrary<Filters> = fc.record({
          from: pick(dates), to: pick(dates),
          person_id: pick(unique(all.map((r) => r.person_id))),
          category_id: pick(unique(all.map((r) => r.category_id))),
          financial_account_id: pick(unique(all.map((r) => (r as unknown as { financial_account_id: string | null }).financial_account_id))),
          cost_center_id: pick(unique(all.flatMap((r) => r.cost_center_allocations.map((a) => a.cost_center_id)))),
          top: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
          rank_by: fc.option(fc.constantFrom(...rankings), { nil: undefined }),
        }, { requiredKeys: [] });

        await fc.assert(fc.asyncProperty(filters, async (f) => {
          const res = await api.call('GET', `/v1/${c.resource}/aggregates?${toQuery({ ...f, group_by: dimension })}`, { workspace: M });
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          const agg = res.body;
          // Overall: each status equals the list with that status's filter; count and total every status.
          const base = await listed(c.resource, f);
          expect({ count: agg.totals.count, total: agg.totals.total }, 'every status').to.deep.equal(bucketOf(base));
          for (const [status, extra] of Object.entries(statuses)) {
            expect(agg.totals[status], status).to.deep.equal(bucketOf(await listed(c.resource, f, extra)));
          }
          // Each listed group: the list with the group's key as one more filter.
          const groupRecords = async (key: string | null): Promise<{ records: Title[]; center?: string | null }> => {
            if (dimension === 'cost_center') return { records: base, center: key };
            if (key === null) return { records: base.filter((r) => keysOf(r, dimension)[0] === null) };
            if (dimension === 'month') return { records: await listed(c.resource, f, {}, { from: `${key}-01`, to: monthEnd(key) }) };
            return { records: await listed(c.resource, f, { [`${dimension}_id`]: key }) };
          };
          const rankBy = f.rank_by ?? 'pending';
          const shownRanks: bigint[] = [];
          for (const group of agg.groups as { key: string | null; totals: Record<string, Bucket> }[]) {
            const { records, center } = await groupRecords(group.key);
            expect({ count: group.totals.count, total: group.totals.total }, `group ${group.key}`).to.deep.equal(bucketOf(records, center));
            for (const status of Object.keys(statuses)) {
              const selected = status === 'overdue' ? records.filter((r) => r.overdue) : records.filter((r) => r.status === status);
              expect(group.totals[status], `group ${group.key}, ${status}`).to.deep.equal(bucketOf(selected, center));
            }
            shownRanks.push(rankOf(records, rankBy, center));
          }
          // The rest: every group the list gives that is not listed, summed.
          const shown = new Set((agg.groups as { key: string | null }[]).map((g) => g.key));
          const restKeys = [...new Set(base.flatMap((r) => keysOf(r, dimension)))].filter((k) => !shown.has(k));
          const restRecords = () => (dimension === 'cost_center' ? base : base.filter((r) => restKeys.includes(keysOf(r, dimension)[0] ?? null)));
          if (restKeys.length === 0) {
            expect(agg.rest).to.equal(null);
          } else {
            expect(agg.rest.groups).to.equal(restKeys.length);
            const restBucket = (records: readonly Title[]) => {
              if (dimension !== 'cost_center') return bucketOf(records);
              const parts = restKeys.map((k) => bucketOf(records, k));
              return { count: parts.reduce((s, p) => s + p.count, 0), total: money(parts.reduce((s, p) => s + cents(p.total), 0n)) };
            };
            expect({ count: agg.rest.totals.count, total: agg.rest.totals.total }, 'rest').to.deep.equal(restBucket(restRecords()));
            expect(agg.rest.totals.pending, 'rest pending').to.deep.equal(restBucket(restRecords().filter((r) => r.status === 'pending')));
          }
          // Ranked by the amount asked (default pending), largest first; the cut never splits a non-zero tie.
          expect(shownRanks.every((rank, i) => i === 0 || shownRanks[i - 1]! >= rank), `ranked by ${rankBy}`).to.equal(true);
          const top = f.top ?? 10;
          if (shownRanks.length < top) expect(restKeys, 'fewer than top listed only when no group is left').to.deep.equal([]);
          const cut = shownRanks[Math.min(top, shownRanks.length) - 1];
          for (let i = top; i < shownRanks.length; i += 1) expect(shownRanks[i], 'listed past top only when tied at the cut').to.equal(cut);
          const restRanks = await Promise.all(restKeys.map(async (k) => {
            const { records, center } = dimension === 'cost_center' ? { records: base, center: k } : { records: base.filter((r) => keysOf(r, dimension)[0] === k), center: undefined };
            return rankOf(records, rankBy, center);
          }));
          if (restRanks.length > 0 && cut !== undefined) {
            const highest = restRanks.reduce((a, b) => (a > b ? a : b));
            expect(highest <= cut, 'no group in the rest outranks a listed one').to.equal(true);
            if (cut !== 0n) expect(highest < cut, 'a group tied with the cut is listed, not in the rest').to.equal(true);
          }
        }), { numRuns: 8 });
      });
    }
  }
});

describe(`aggregates: ranked by the pending amount, a tie at the top cut listed whole (${DATABASE})`, function () {
  this.timeout(120_000);
  let api: RestApp;
  let accountId: string;
  const suppliers: Record<string, string> = {};
  before(async () => {
    api = await startRestApp();
    const ok = okCaller(api, M, [200, 201]);
    accountId = (await ok('POST', '/v1/accounts', { name: 'Empate (teste)', type: 'checking' })).id;
    for (const name of ['A', 'B', 'C', 'D', 'E']) suppliers[name] = (await ok('POST', '/v1/people', { name: `Fornecedor ${name}`, kind: 'juridical', is_supplier: true })).id;
    const payable = (person: string, amount: string, due: string) => ok('POST', '/v1/payables', { description: 'Empate', amount, due_date: due, person_id: suppliers[person], financial_account_id: accountId });
    // A, B, C: 100.00 pending each (B's overdue); D: 50.00 pending; E: nothing pending, 1000.00 paid and 500.00 cancelled.
    await payable('A', '100.00', '2099-01-10');
    await payable('B', '100.00', '2020-01-10');
    await payable('C', '60.00', '2099-01-10');
    await payable('C', '40.00', '2099-02-10');
    await payable('D', '50.00', '2099-01-10');
    const paid = await payable('E', '1000.00', '2099-01-10');
    await ok('POST', `/v1/payables/${paid.id}/settle`, { payment_date: '2026-01-10' });
    const cancelled = await payable('E', '500.00', '2099-01-10');
    await ok('POST', `/v1/payables/${cancelled.id}/cancel`);
  });
  after(async () => { await api?.close(); });

  const aggregate = async (query: string) => {
    const res = await api.call('GET', `/v1/payables/aggregates?financial_account_id=${accountId}&group_by=person&${query}`, { workspace: M });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body;
  };

  it('lists the three suppliers tied at the cut of top 2, and sums the others in rest', async () => {
    const body = await aggregate('top=2');
    expect(body.groups.map((g: any) => g.key)).to.have.members([suppliers['A'], suppliers['B'], suppliers['C']]);
    expect(body.groups.map((g: any) => g.totals.pending.total)).to.deep.equal(['100.00', '100.00', '100.00']);
    expect(body.groups.find((g: any) => g.key === suppliers['B']).totals.overdue).to.deep.equal({ count: 1, total: '100.00' });
    // D (50.00 pending) before E (nothing pending, though 1,500.00 in total).
    expect(body.rest).to.deep.equal({
      groups: 2,
      totals: {
        count: 3, total: '1550.00', pending: { count: 1, total: '50.00' }, overdue: { count: 0, total: '0.00' },
        paid: { count: 1, total: '1000.00' }, cancelled: { count: 1, total: '500.00' },
      },
    });
    expect(body.totals.pending).to.deep.equal({ count: 5, total: '350.00' });
    expect(body.totals.overdue).to.deep.equal({ count: 1, total: '100.00' });
  });

  it('ranks by the pending amount by default, by another amount with rank_by', async () => {
    expect((await aggregate('top=5')).groups.map((g: any) => g.key).slice(3)).to.deep.equal([suppliers['D'], suppliers['E']]);
    expect((await aggregate('top=1&rank_by=total')).groups.map((g: any) => g.key)).to.deep.equal([suppliers['E']]);
    expect((await aggregate('top=1&rank_by=overdue')).groups.map((g: any) => g.key)).to.deep.equal([suppliers['B']]);
    // Nothing pending is no tie: E alone follows D at a cut of 4, by total.
    const four = await aggregate('top=4');
    expect(four.groups).to.have.length(4);
    expect(four.rest.groups).to.equal(1);
    expect((await api.call('GET', '/v1/payables/aggregates?rank_by=received', { workspace: M })).status).to.equal(400);
  });
});

describe(`"today" is the workspace's date: pinned at 22:00 in São Paulo (${DATABASE})`, function () {
  this.timeout(120_000);
  // 22:00 on Sunday 15 March in São Paulo (UTC−3) is already Monday the 16th in UTC.
  const clock = createManualClock(Date.parse('2026-03-16T01:00:00Z'));
  let api: RestApp;
  let accountId: string;
  const due: Record<string, string> = {};
  before(async () => {
    api = await startRestApp({ clock });
    const ok = okCaller(api, M, [200, 201]);
    const f = await loadFixtures(api.app.services.db, M);
    accountId = (await ok('POST', '/v1/accounts', { name: 'Fuso (teste)', type: 'checking' })).id;
    for (const day of ['2026-03-14', '2026-03-15', '2026-03-16', '2026-03-17']) {
      due[day] = (await ok('POST', '/v1/payables', { description: `Vence ${day}`, amount: '10.00', due_date: day, person_id: f.vendorId, financial_account_id: accountId })).id;
    }
  });
  after(async () => { await api?.close(); });

  const setZone = (tz: string) => api.app.services.db.updateTable('workspaces').set({ timezone: tz }).where('id', '=', M).execute();

  /** Which of the fixture's payables each surface calls overdue. */
  async function overdueBy(): Promise<Record<string, string[]>> {
    // Minted on the moved clock (a token of the first hour has expired by 23:30Z).
    const token = await api.app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all', aud: 'api' });
    const call = async (path: string) => {
      const res = await api.call('GET', path, { workspace: M, token });
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).to.equal(200);
      return res.body;
    };
    const days = Object.keys(due);
    const page = (await call(`/v1/payables?financial_account_id=${accountId}&limit=100`)).data as Title[];
    const filtered = (await call(`/v1/payables?financial_account_id=${accountId}&overdue=true&limit=100`)).data as Title[];
    const gets = await Promise.all(days.map(async (d) => [d, (await call(`/v1/payables/${due[d]}`)).overdue] as const));
    const agg = await call(`/v1/payables/aggregates?financial_account_id=${accountId}&group_by=month`);
    const cash = await call(`/v1/cash-flow?account_id=${accountId}&from=2026-03-01&to=2026-03-31`);
    expect(page).to.have.length(days.length);
    return {
      list: page.filter((r) => r.overdue).map((r) => r.due_date).sort(),
      filter: filtered.map((r) => r.due_date).sort(),
      get: gets.filter(([, overdue]) => overdue === true).map(([d]) => d).sort(),
      aggregate: [agg.today, String(agg.totals.overdue.count), agg.totals.overdue.total, agg.totals.pending.total],
      cash_flow: [cash.today, String(cash.overdue.payables_count), cash.overdue.payables],
    };
  }

  it('São Paulo, 22:00 on the 15th: due on the 14th is overdue, due on the 15th not yet', async () => {
    await setZone('America/Sao_Paulo');
    expect(await overdueBy()).to.deep.equal({
      list: ['2026-03-14'], filter: ['2026-03-14'], get: ['2026-03-14'],
      aggregate: ['2026-03-15', '1', '10.00', '40.00'], cash_flow: ['2026-03-15', '1', '10.00'],
    });
  });

  it('Tokyo, 10:00 on the 16th: due on the 14th and 15th are overdue', async () => {
    await setZone('Asia/Tokyo');
    expect(await overdueBy()).to.deep.equal({
      list: ['2026-03-14', '2026-03-15'], filter: ['2026-03-14', '2026-03-15'], get: ['2026-03-14', '2026-03-15'],
      aggregate: ['2026-03-16', '2', '20.00', '40.00'], cash_flow: ['2026-03-16', '2', '20.00'],
    });
  });

  it('moves with the clock: at 23:30Z Kiritimati (UTC+14) is on the 17th, Honolulu (UTC−10) on the 16th', async () => {
    clock.set(Date.parse('2026-03-16T23:30:00Z'));
    await setZone('Pacific/Kiritimati');
    expect(await overdueBy()).to.deep.equal({
      list: ['2026-03-14', '2026-03-15', '2026-03-16'], filter: ['2026-03-14', '2026-03-15', '2026-03-16'], get: ['2026-03-14', '2026-03-15', '2026-03-16'],
      aggregate: ['2026-03-17', '3', '30.00', '40.00'], cash_flow: ['2026-03-17', '3', '30.00'],
    });
    await setZone('Pacific/Honolulu');
    expect(await overdueBy()).to.deep.equal({
      list: ['2026-03-14', '2026-03-15'], filter: ['2026-03-14', '2026-03-15'], get: ['2026-03-14', '2026-03-15'],
      aggregate: ['2026-03-16', '2', '20.00', '40.00'], cash_flow: ['2026-03-16', '2', '20.00'],
    });
  });
});
