/**
 * completion/complete over real HTTP with real tokens: workspace ids, record ids by label
 * prefix, account names, months and weeks; never a value the caller may not read; at most 100
 * values with total/hasMore; malformed or unknown refs → -32602.
 */
import { expect } from 'chai';
import { DEMO, ERAS, callMcp, expectResult, startResourceStack, type ResourceStack } from '../resources/support.js';

interface Completion { values: string[]; total: number; hasMore: boolean }

describe('MCP completion/complete', function () {
  let stack: ResourceStack;
  let ana: string;
  let bruno: string;

  const complete = async (token: string, params: Record<string, unknown>, era: (typeof ERAS)[number] = '2025-06-18'): Promise<Completion> =>
    (await expectResult(stack.mcpUrl, token, era, 'completion/complete', params))['completion'] as Completion;
  const promptRef = (name: string) => ({ type: 'ref/prompt', name });
  const payablesRef = { type: 'ref/resource', uri: 'kobana://finance/payables/{id}' };

  before(async function () {
    stack = await startResourceStack();
    ana = await stack.token('ana');
    bruno = await stack.token('bruno');
  });
  after(async () => stack?.close());

  for (const era of ERAS) {
    it(`completes the workspace of a prompt with the caller's workspace ids (${era})`, async function () {
      const all = await complete(ana, { ref: promptRef('review_overdue_payables'), argument: { name: 'workspace', value: '' } }, era);
      expect([...all.values].sort()).to.deep.equal([DEMO.workspaces.matriz, DEMO.workspaces.filial].sort());
      expect(all).to.include({ total: 2, hasMore: false });
      const byName = await complete(ana, { ref: promptRef('review_overdue_payables'), argument: { name: 'workspace', value: 'fil' } }, era);
      expect(byName.values).to.deep.equal([DEMO.workspaces.filial]);
    });
  }

  it('offers bruno only Matriz, and nothing for a Filial prefix', async function () {
    const all = await complete(bruno, { ref: promptRef('review_overdue_payables'), argument: { name: 'workspace', value: '' } });
    expect(all.values).to.deep.equal([DEMO.workspaces.matriz]);
    const filial = await complete(bruno, { ref: promptRef('review_overdue_payables'), argument: { name: 'workspace', value: 'Fil' } });
    expect(filial).to.deep.equal({ values: [], total: 0, hasMore: false });
  });

  it('completes a payable {id} by description prefix within the chosen workspace', async function () {
    const db = stack.app.services.db;
    const sample = await db.selectFrom('titles').select('description')
      .where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable').orderBy('id').executeTakeFirstOrThrow();
    const prefix = sample.description.slice(0, 5);
    const expected = await db.selectFrom('titles').select('id').where('workspace_id', '=', DEMO.workspaces.matriz)
      .where('kind', '=', 'payable').where('description', 'like', `${prefix}%`).execute();
    const result = await complete(ana, {
      ref: payablesRef, argument: { name: 'id', value: prefix.toUpperCase() }, context: { arguments: { workspace_id: DEMO.workspaces.matriz } },
    }, '2026-07-28');
    expect(result.total).to.be.at.least(expected.length);
    expect(result.values).to.include.members(expected.map((row) => row.id).slice(0, 100));
    const found = await db.selectFrom('titles').select(['workspace_id', 'kind']).where('workspace_id', '=', DEMO.workspaces.matriz)
      .where('id', 'in', result.values).execute();
    expect(found).to.have.length(result.values.length);
  });

  it('caps values at 100 and reports total and hasMore', async function () {
    const db = stack.app.services.db;
    const rows = await db.selectFrom('titles').select('id').where('workspace_id', 'in', [DEMO.workspaces.matriz, DEMO.workspaces.filial])
      .where('kind', '=', 'payable').execute();
    const result = await complete(ana, { ref: payablesRef, argument: { name: 'id', value: '' } });
    expect(result.total).to.equal(rows.length);
    expect(result.values).to.have.length(Math.min(100, rows.length));
    expect(result.hasMore).to.equal(rows.length > 100);
  });

  it('never offers bruno records of a workspace he does not reach', async function () {
    const viaContext = await complete(bruno, { ref: payablesRef, argument: { name: 'id', value: '' }, context: { arguments: { workspace_id: DEMO.workspaces.filial } } });
    expect(viaContext).to.deep.equal({ values: [], total: 0, hasMore: false });
    const own = await complete(bruno, { ref: payablesRef, argument: { name: 'id', value: '' } });
    const found = await stack.app.services.db.selectFrom('titles').select('workspace_id')
      .where('workspace_id', 'in', [DEMO.workspaces.matriz, DEMO.workspaces.filial]).where('id', 'in', own.values).execute();
    expect(found.length).to.be.greaterThan(0);
    expect(found.every((row) => row.workspace_id === DEMO.workspaces.matriz)).to.equal(true);
  });

  it('answers -32602 to bruno for templates and prompts he cannot read', async function () {
    for (const params of [
      { ref: { type: 'ref/resource', uri: 'kobana://finance/accounts/{id}' }, argument: { name: 'id', value: '' } },
      { ref: promptRef('weekly_cash_position'), argument: { name: 'account', value: '' } },
    ]) {
      const reply = await callMcp(stack.mcpUrl, bruno, '2026-07-28', 'completion/complete', params);
      expect(reply.error?.code, JSON.stringify(params)).to.equal(-32602);
    }
    const anaReply = await complete(ana, { ref: { type: 'ref/resource', uri: 'kobana://finance/accounts/{id}' }, argument: { name: 'id', value: '' } });
    expect(anaReply.total).to.be.greaterThan(0);
  });

  it('completes account names of the workspace given in context', async function () {
    const names = await stack.app.services.db.selectFrom('accounts').select('name').where('workspace_id', '=', DEMO.workspaces.matriz).execute();
    const result = await complete(ana, {
      ref: promptRef('weekly_cash_position'), argument: { name: 'account', value: '' }, context: { arguments: { workspace: 'Matriz' } },
    });
    expect([...result.values].sort()).to.deep.equal([...new Set(names.map((row) => row.name))].sort());
    const first = names[0]?.name ?? '';
    const narrowed = await complete(ana, {
      ref: promptRef('weekly_cash_position'), argument: { name: 'account', value: first.slice(0, 3).toLowerCase() }, context: { arguments: { workspace: DEMO.workspaces.matriz } },
    });
    expect(narrowed.values).to.include(first);
  });

  it('completes months (recent 12 and next 3) and ISO weeks, filtered by prefix', async function () {
    const months = await complete(ana, { ref: promptRef('month_close_checklist'), argument: { name: 'month', value: '' } });
    expect(months.values).to.have.length(15);
    for (const month of months.values) expect(month).to.match(/^\d{4}-(0[1-9]|1[0-2])$/);
    const thisMonth = new Date().toISOString().slice(0, 7);
    expect(months.values).to.include(thisMonth);
    const year = thisMonth.slice(0, 4);
    const narrowed = await complete(ana, { ref: promptRef('month_close_checklist'), argument: { name: 'month', value: year } });
    expect(narrowed.values.every((month) => month.startsWith(year))).to.equal(true);
    expect(narrowed.values.length).to.be.greaterThan(0).and.below(15);
    const weeks = await complete(ana, { ref: promptRef('plan_supplier_payments'), argument: { name: 'week', value: '' } });
    expect(weeks.values).to.have.length(17);
    for (const week of weeks.values) expect(week).to.match(/^\d{4}-W\d{2}$/);
  });

  it('answers -32602 for malformed requests, unknown prompts and unknown arguments', async function () {
    for (const params of [
      {},
      { ref: { type: 'ref/other', name: 'x' }, argument: { name: 'workspace', value: '' } },
      { ref: promptRef('review_overdue_payables'), argument: { name: 'workspace' } },
      { ref: promptRef('no_such_prompt'), argument: { name: 'workspace', value: '' } },
      { ref: promptRef('review_overdue_payables'), argument: { name: 'color', value: '' } },
      { ref: { type: 'ref/resource', uri: 'kobana://finance/nothing/{id}' }, argument: { name: 'id', value: '' } },
    ]) {
      const reply = await callMcp(stack.mcpUrl, ana, '2025-03-26', 'completion/complete', params);
      expect(reply.error?.code, JSON.stringify(params)).to.equal(-32602);
    }
  });
});
