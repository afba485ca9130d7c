/**
 * cash_flow.get (issue 20, "Done when": a hand-checked fixture gives the exact buckets and running
 * balance for day/week/month and two time zones). The fixture is one month of movements on a new
 * account of "Matriz", made over REST; the projection is asked for that account with the clock
 * fixed at 2026-03-16T01:30Z — Monday 16 March in UTC, still Sunday 15 March in São Paulo — so the
 * payable due on the 15th is overdue in one zone and projected in the other. Runs on SQLite and,
 * with DATABASE_URL, on PostgreSQL.
 *
 * Fixture (account X, March 2026; 1 March is a Sunday):
 *   transactions  02-20 credit 1000.00 (before the window: opening balance)
 *                 03-02 credit 500.00 · 03-05 debit 120.50 · 03-15 debit 80.00 · 03-20 credit 40.00
 *   settled       payable 60.00 due 03-09, paid 03-09 → a debit of 60.00 on 03-09
 *   open titles   payable 300.00 due 03-10 (overdue in both zones)
 *                 payable 200.00 due 03-15 (overdue in UTC; projected on 03-15 in São Paulo)
 *                 receivable 700.00 due 03-16, receivable 250.00 due 03-31 (projected)
 *                 payable 90.00 due 04-02 (after the window: left out)
 *   cancelled     receivable 999.00 due 03-20 (left out)
 */
import { expect } from 'chai';
import type { Caller } from '../../../src/api/context.js';
import { handlers } from '../../../generated/handlers.gen.js';
import { routes } from '../../../generated/registry.gen.js';
import { DEMO } from '../../helpers/index.js';
import { okCaller, startRestApp, type RestApp } from '../support/rest-app.js';
import { loadFixtures } from '../rules/support.js';
import { createDeadline } from '../../../src/runtime/deadline.js';
import { systemClock } from '../../../src/runtime/clock.js';

const M = DEMO.workspaces.matriz;
/** The contract's bounds of the operation under test (x-kobana-bounds). */
const CASH_FLOW_BOUNDS = routes.find((r) => r.operation.operationId === 'cash_flow.get')?.bounds ?? null;
const CLOCK = new Date('2026-03-16T01:30:00Z');
const caller: Caller = {
  personId: DEMO.persons.ana, organizationId: DEMO.organizationId, scopes: new Set(['finance.all']), tokenType: 'personal', channel: 'api',
  membership: { status: 'active', isAdmin: true, permissions: new Set(), workspaceIds: [M], workspaceNames: DEMO.workspaceNames },
};

/** [start, end, realised income, realised expenses, projected income, projected expenses, net, closing]. */
type Row = [string, string, string, string, string, string, string, string];

const MONTH: Record<'UTC' | 'America/Sao_Paulo', Row[]> = {
  UTC: [['2026-03-01', '2026-03-31', '540.00', '260.50', '950.00', '0.00', '1229.50', '2229.50']],
  'America/Sao_Paulo': [['2026-03-01', '2026-03-31', '540.00', '260.50', '950.00', '200.00', '1029.50', '2029.50']],
};

const WEEK: Record<'UTC' | 'America/Sao_Paulo', Row[]> = {
  UTC: [
    ['2026-03-01', '2026-03-01', '0.00', '0.00', '0.00', '0.00', '0.00', '1000.00'],
    ['2026-03-02', '2026-03-08', '500.00', '120.50', '0.00', '0.00', '379.50', '1379.50'],
    ['2026-03-09', '2026-03-15', '0.00', '140.00', '0.00', '0.00', '-140.00', '1239.50'],
    ['2026-03-16', '2026-03-22', '40.00', '0.00', '700.00', '0.00', '740.00', '1979.50'],
    ['2026-03-23', '2026-03-29', '0.00', '0.00', '0.00', '0.00', '0.00', '1979.50'],
    ['2026-03-30', '2026-03-31', '0.00', '0.00', '250.00', '0.00', '250.00', '2229.50'],
  ],
  'America/Sao_Paulo': [
    ['2026-03-01', '2026-03-01', '0.00', '0.00', '0.00', '0.00', '0.00', '1000.00'],
    ['2026-03-02', '2026-03-08', '500.00', '120.50', '0.00', '0.00', '379.50', '1379.50'],
    ['2026-03-09', '2026-03-15', '0.00', '140.00', '0.00', '200.00', '-340.00', '1039.50'],
    ['2026-03-16', '2026-03-22', '40.00', '0.00', '700.00', '0.00', '740.00', '1779.50'],
    ['2026-03-23', '2026-03-29', '0.00', '0.00', '0.00', '0.00', '0.00', '1779.50'],
    ['2026-03-30', '2026-03-31', '0.00', '0.00', '250.00', '0.00', '250.00', '2029.50'],
  ],
};

/** The days that move, per zone; every other day of March is all zeros and carries the balance. */
const DAYS: Record<'UTC' | 'America/Sao_Paulo', Record<string, [string, string, string, string, string]>> = {
  UTC: {
    '2026-03-02': ['500.00', '0.00', '0.00', '0.00', '1500.00'],
    '2026-03-05': ['0.00', '120.50', '0.00', '0.00', '1379.50'],
    '2026-03-09': ['0.00', '60.00', '0.00', '0.00', '1319.50'],
    '2026-03-15': ['0.00', '80.00', '0.00', '0.00', '1239.50'],
    '2026-03-16': ['0.00', '0.00', '700.00', '0.00', '1939.50'],
    '2026-03-20': ['40.00', '0.00', '0.00', '0.00', '1979.50'],
    '2026-03-31': ['0.00', '0.00', '250.00', '0.00', '2229.50'],
  },
  'America/Sao_Paulo': {
    '2026-03-02': ['500.00', '0.00', '0.00', '0.00', '1500.00'],
    '2026-03-05': ['0.00', '120.50', '0.00', '0.00', '1379.50'],
    '2026-03-09': ['0.00', '60.00', '0.00', '0.00', '1319.50'],
    '2026-03-15': ['0.00', '80.00', '0.00', '200.00', '1039.50'],
    '2026-03-16': ['0.00', '0.00', '700.00', '0.00', '1739.50'],
    '2026-03-20': ['40.00', '0.00', '0.00', '0.00', '1779.50'],
    '2026-03-31': ['0.00', '0.00', '250.00', '0.00', '2029.50'],
  },
};

const OVERDUE = {
  UTC: { receivables: '0.00', receivables_count: 0, payables: '500.00', payables_count: 2 },
  'America/Sao_Paulo': { receivables: '0.00', receivables_count: 0, payables: '300.00', payables_count: 1 },
};

describe(`cash_flow.get: hand-checked month in two time zones (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(120_000);
  let api: RestApp;
  let accountId: string;

  before(async () => {
    api = await startRestApp();
    const f = await loadFixtures(api.app.services.db, M);
    const ok = okCaller(api, M, [200, 201]);
    accountId = (await ok('POST', '/v1/accounts', { name: 'Fluxo de caixa (teste)', type: 'checking' })).id;
    const move = (type: string, amount: string, on: string) => ok('POST', '/v1/transactions', { financial_account_id: accountId, type, amount, occurred_at: on, description: 'Fixture' });
    await move('credit', '1000.00', '2026-02-20');
    await move('credit', '500.00', '2026-03-02');
    await move('debit', '120.50', '2026-03-05');
    await move('debit', '80.00', '2026-03-15');
    await move('credit', '40.00', '2026-03-20');
    const title = (resource: string, amount: string, due: string) => ok('POST', `/v1/${resource}`, {
      description: 'Fixture', amount, due_date: due, person_id: resource === 'payables' ? f.vendorId : f.customerId, financial_account_id: accountId,
    });
    const settled = await title('payables', '60.00', '2026-03-09');
    await ok('POST', `/v1/payables/${settled.id}/settle`, { payment_date: '2026-03-09' });
    await title('payables', '300.00', '2026-03-10');
    await title('payables', '200.00', '2026-03-15');
    await title('receivables', '700.00', '2026-03-16');
    await title('receivables', '250.00', '2026-03-31');
    await title('payables', '90.00', '2026-04-02');
    const cancelled = await title('receivables', '999.00', '2026-03-20');
    await ok('POST', `/v1/receivables/${cancelled.id}/cancel`, undefined);
  });
  after(async () => { await api?.close(); });

  async function project(query: Record<string, string>): Promise<any> {
    const ctx = { caller, workspaceId: M, db: api.app.services.db, now: () => CLOCK, deadline: createDeadline(systemClock, 10_000), bounds: CASH_FLOW_BOUNDS };
    const output = await handlers['cash_flow.get']!(ctx, { path: {}, query: { from: '2026-03-01', to: '2026-03-31', account_id: accountId, ...query } });
    return output.body;
  }
  const asRows = (buckets: any[]): Row[] => buckets.map((b) => [b.start, b.end, b.realised_income, b.realised_expenses, b.projected_income, b.projected_expenses, b.net, b.closing_balance]);

  for (const tz of ['UTC', 'America/Sao_Paulo'] as const) {
    it(`${tz}: month and week buckets, opening balance and overdue titles`, async () => {
      const month = await project({ tz, granularity: 'month' });
      expect(month).to.include({ opening_balance: '1000.00', today: tz === 'UTC' ? '2026-03-16' : '2026-03-15', tz, account_id: accountId });
      expect(month.overdue).to.deep.equal(OVERDUE[tz]);
      expect(asRows(month.buckets)).to.deep.equal(MONTH[tz]);
      expect(asRows((await project({ tz, granularity: 'week' })).buckets)).to.deep.equal(WEEK[tz]);
    });

    it(`${tz}: day buckets`, async () => {
      const day = await project({ tz, granularity: 'day' });
      expect(day.buckets).to.have.length(31);
      let closing = '1000.00';
      for (const b of day.buckets) {
        const moved = DAYS[tz][b.start];
        if (moved) closing = moved[4];
        expect([b.start, b.end, b.realised_income, b.realised_expenses, b.projected_income, b.projected_expenses, b.closing_balance], b.start)
          .to.deep.equal([b.start, b.start, ...(moved ? moved.slice(0, 4) : ['0.00', '0.00', '0.00', '0.00']), closing]);
      }
    });
  }

  it('defaults to the workspace\'s time zone (America/Sao_Paulo)', async () => {
    const answer = await project({ granularity: 'week' });
    expect(answer.tz).to.equal('America/Sao_Paulo');
    expect(asRows(answer.buckets)).to.deep.equal(WEEK['America/Sao_Paulo']);
  });

  it('a window that starts in the future opens with the titles projected before it', async () => {
    const answer = await project({ tz: 'UTC', from: '2026-03-21', granularity: 'month' });
    // 1000 + 500 − 120.50 − 60 − 80 + 40 (transactions before 03-21) + 700 (receivable due 03-16, projected)
    expect(answer.opening_balance).to.equal('1979.50');
    expect(asRows(answer.buckets)).to.deep.equal([['2026-03-21', '2026-03-31', '0.00', '0.00', '250.00', '0.00', '250.00', '2229.50']]);
  });

  it('REST: 200 for the admin, 400 for a bad zone or window, 404 for an unknown account, 403 without scope or permission', async () => {
    const ok = await api.call('GET', `/v1/cash-flow?from=2026-03-01&to=2026-03-31&granularity=month&account_id=${accountId}`, { workspace: M });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.buckets).to.have.length(1);
    const all = await api.call('GET', '/v1/cash-flow', { workspace: M });
    expect(all.status).to.equal(200);
    expect(all.body.account_id).to.equal(null);
    expect((await api.call('GET', '/v1/cash-flow?tz=Mars/Olympus', { workspace: M })).status).to.equal(400);
    expect((await api.call('GET', '/v1/cash-flow?from=2026-03-31&to=2026-03-01', { workspace: M })).status).to.equal(400);
    expect((await api.call('GET', '/v1/cash-flow?from=2026-01-01&to=2027-06-01', { workspace: M })).status).to.equal(400);
    expect((await api.call('GET', '/v1/cash-flow?granularity=year', { workspace: M })).status).to.equal(400);
    expect((await api.call('GET', `/v1/cash-flow?account_id=${DEMO.workspaces.filial}`, { workspace: M })).status).to.equal(404);
    expect((await api.call('GET', '/v1/cash-flow', { workspace: M, token: await api.token('ana', 'finance.payables finance.receivables') })).status).to.equal(403);
    expect((await api.call('GET', '/v1/cash-flow', { workspace: M, token: await api.token('bruno', 'finance.all') })).status).to.equal(403);
  });
});
