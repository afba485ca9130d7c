/**
 * H1 (issue 25): cash_flow.get at the calendar's edges. `from=to=9999-12-31` used to loop for
 * ever — the next day, `+010000-01-01`, sorts before `9999-12-31` as a string — with the event
 * loop at 100% until V8 ran out of memory (before the fix this file never finishes: the loop
 * blocks the process, mocha's own timeout included). Dates are now day numbers
 * (src/api/dates.ts) and the window's span is the contract's (x-kobana-bounds), refused before
 * any work with a VALIDATION_ERROR naming `to` and the bound. Over REST and the MCP tool, with a
 * read-only token; on SQLite and, with DATABASE_URL, on PostgreSQL.
 */
import { expect } from 'chai';
import { DEMO } from '../../helpers/index.js';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { callTool, expectToolError } from '../../confirmation/support.js';

const M = DEMO.workspaces.matriz;
const READ_ONLY = 'finance.cash_flow';

describe(`cash_flow.get at the calendar's edges (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(60_000);
  let api: RestApp;
  let token: string;
  let mcpToken: string;

  before(async () => {
    api = await startRestApp();
    token = await api.token('ana', READ_ONLY);
    mcpToken = await api.app.mintToken({ person: 'ana@demo.test', scope: READ_ONLY, aud: 'mcp' });
  });
  after(async () => { await api?.close(); });

  const rest = (query: string) => api.call('GET', `/v1/cash-flow?${query}`, { workspace: M, token });
  const tool = (args: Record<string, unknown>) => callTool(api.url, mcpToken, 'finance_cash_flow_get', { workspace_id: M, ...args });

  for (const granularity of ['day', 'week', 'month']) {
    it(`REST ${granularity}: 9999-12-31..9999-12-31 is one bucket, the last day`, async () => {
      const res = await rest(`from=9999-12-31&to=9999-12-31&granularity=${granularity}&tz=UTC`);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.buckets.map((b: { start: string; end: string }) => [b.start, b.end])).to.deep.equal([['9999-12-31', '9999-12-31']]);
    });
  }

  it('REST: the last weeks and months of the calendar end on 9999-12-31; the default window stops there', async () => {
    const weeks = await rest('from=9999-12-01&to=9999-12-31&granularity=week&tz=UTC');
    expect(weeks.status, JSON.stringify(weeks.body)).to.equal(200);
    expect(weeks.body.buckets.at(-1)).to.include({ end: '9999-12-31' });
    const months = await rest('from=9999-01-01&to=9999-12-31&granularity=month&tz=UTC');
    expect(months.status, JSON.stringify(months.body)).to.equal(200);
    expect(months.body.buckets).to.have.length(12);
    expect(months.body.buckets.at(-1)).to.deep.include({ start: '9999-12-01', end: '9999-12-31' });
    const defaulted = await rest('from=9999-12-20&tz=UTC&granularity=day');
    expect(defaulted.status, JSON.stringify(defaulted.body)).to.equal(200);
    expect(defaulted.body.to).to.equal('9999-12-31');
    expect(defaulted.body.buckets).to.have.length(12);
  });

  it('REST: 0001-01-01 is a valid first day (weeks start on its Monday)', async () => {
    const res = await rest('from=0001-01-01&to=0001-01-14&granularity=week&tz=UTC');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // 0001-01-01 is a Monday in the proleptic Gregorian calendar.
    expect(res.body.buckets.map((b: { start: string; end: string }) => [b.start, b.end])).to.deep.equal([['0001-01-01', '0001-01-07'], ['0001-01-08', '0001-01-14']]);
  });

  it('REST: the span bound and the order are refused before any work, naming `to` and the bound', async () => {
    const wide = await rest('from=0001-01-01&to=9999-12-31');
    expect(wide.status).to.equal(400);
    expect(wide.body.error.code).to.equal('VALIDATION_ERROR');
    expect(wide.body.error.details.issues).to.deep.equal([{ path: 'to', message: 'must be at most 366 days after from' }]);
    const reversed = await rest('from=9999-12-31&to=0001-01-01');
    expect(reversed.status).to.equal(400);
    expect(reversed.body.error.details.issues).to.deep.equal([{ path: 'to', message: 'must not be before from' }]);
    expect((await rest('from=2026-01-01&to=2027-01-02')).status).to.equal(200);
    expect((await rest('from=2026-01-01&to=2027-01-03')).status).to.equal(400);
  });

  it('MCP: the same edges answer, and the span bound is a VALIDATION_ERROR', async () => {
    const edge = await tool({ from: '9999-12-31', to: '9999-12-31', granularity: 'week', tz: 'UTC' });
    expect(edge.status).to.equal(200);
    const text = (edge.body.result?.['content'] as { text: string }[] | undefined)?.[0]?.text ?? '';
    expect(edge.body.result?.['isError'], text).to.equal(undefined);
    expect(JSON.parse(text).buckets).to.have.length(1);
    const first = await tool({ from: '0001-01-01', to: '0001-01-31', granularity: 'month', tz: 'UTC' });
    expect(first.body.result?.['isError'], JSON.stringify(first.body)).to.equal(undefined);
    const wide = await tool({ from: '0001-01-01', to: '9999-12-31' });
    expectToolError(wide, 'VALIDATION_ERROR');
    const details = JSON.parse((wide.body.result?.['content'] as { text: string }[])[0]?.text ?? '{}').error.details;
    expect(details.issues).to.deep.equal([{ path: 'to', message: 'must be at most 366 days after from' }]);
  });
});
