/**
 * Reconciliation (issue 20, "Done when": reconciling through MCP asks for confirmation, settles
 * the covered titles exactly once under 20 concurrent attempts, and undoing restores balances to
 * the cent). Uses the demo statement of the checking account (a PIX line that pays an overdue
 * receivable) and fresh lines imported per test. SQLite and, with DATABASE_URL, PostgreSQL (the
 * concurrent attempts race for real there; SQLite serialises them).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DEMO } from '../../helpers/index.js';
import { okCaller, startRestApp, type RestApp } from '../support/rest-app.js';
import { buildSmallOfx } from '../support/coverage-requests.js';
import { checkLedger } from '../support/ledger.js';
import { accept, callTool, expectInputRequired, expectSuccess, expectToolError } from '../../confirmation/support.js';
import { loadFixtures, type Fixtures } from '../rules/support.js';
import { modernRequest, postMcp } from '../../mcp/support/wire.js';

const M = DEMO.workspaces.matriz;

describe(`reconciliations (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(120_000);
  let api: RestApp;
  let f: Fixtures;
  before(async () => {
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
  });
  after(async () => { await api?.close(); });

  const ok = (method: string, path: string, body?: unknown) => okCaller(api, M)(method, path, body);
  const balance = async (accountId: string) => (await ok('GET', `/v1/accounts/${accountId}`)).balance as string;

  /** A fresh account with one imported line of `cents` (< 0: debit) and a pending title of the same amount. */
  async function scenario(cents: number): Promise<{ accountId: string; lineId: string; titleId: string; resource: string }> {
    const account = await ok('POST', '/v1/accounts', { name: `Conciliação ${randomUUID().slice(0, 8)}`, type: 'checking' });
    const fitid = randomUUID();
    await ok('POST', `/v1/accounts/${account.id}/statements`, { file_name: 'x.ofx', content_base64: buildSmallOfx(fitid, cents).toString('base64') });
    const lines = await ok('GET', `/v1/accounts/${account.id}/statement-lines?status=unreconciled&limit=100`);
    const line = lines.data.find((l: any) => l.fitid === fitid);
    const resource = cents < 0 ? 'payables' : 'receivables';
    const amount = `${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
    const title = await ok('POST', `/v1/${resource}`, {
      description: 'Conciliação teste', amount, due_date: new Date().toISOString().slice(0, 10), person_id: cents < 0 ? f.vendorId : f.customerId,
    });
    return { accountId: account.id, lineId: line.id, titleId: title.id, resource };
  }

  it('the demo: an unreconciled line of the checking account suggests the overdue receivable it pays', async () => {
    const accounts = await ok('GET', '/v1/accounts?limit=100');
    const itau = accounts.data.find((a: any) => a.name === 'Itaú 1234');
    const lines = await ok('GET', `/v1/accounts/${itau.id}/statement-lines?status=unreconciled&limit=100`);
    const pix = lines.data.find((l: any) => l.counterparty === 'PIX RECEBIDO');
    expect(pix.suggestions[0]).to.include({ type: 'receivable', amount: pix.amount });
    expect(pix.suggestions[0].score).to.be.greaterThan(0).and.at.most(1);
    const fee = lines.data.find((l: any) => l.counterparty === 'TARIFA');
    expect(fee.rule_id, 'classified by the demo rule').to.be.a('string');
  });

  it('REST: reconciling settles the title on the line\'s account; undoing restores the balance to the cent', async () => {
    const s = await scenario(123_457);
    const before = await balance(s.accountId);
    const rec = await ok('POST', '/v1/reconciliations', { statement_line_ids: [s.lineId], items: [{ type: 'receivable', id: s.titleId }] });
    expect(rec.items).to.deep.equal([{ type: 'receivable', id: s.titleId, amount: '1234.57', settled_here: true }]);
    const title = await ok('GET', `/v1/receivables/${s.titleId}`);
    expect(title).to.include({ status: 'received', financial_account_id: s.accountId, paid_amount: '1234.57' });
    expect(await balance(s.accountId)).to.equal((Number(before) + 1234.57).toFixed(2));
    const again = await api.call('POST', '/v1/reconciliations', { workspace: M, body: { statement_line_ids: [s.lineId], items: [{ type: 'receivable', id: s.titleId }] } });
    expect(again.status).to.equal(409);
    const undone = await api.call('DELETE', `/v1/reconciliations/${rec.id}`, { workspace: M });
    expect(undone.status).to.equal(200);
    // It answers what it undid: the line freed and the title reopened, with their amounts.
    expect(undone.body.statement_lines.map((l: any) => [l.id, l.amount])).to.deep.equal([[s.lineId, '1234.57']]);
    expect(undone.body.reopened).to.deep.equal([{ type: 'receivable', id: s.titleId, description: title.description, amount: '1234.57' }]);
    expect(await balance(s.accountId)).to.equal(before);
    expect((await ok('GET', `/v1/receivables/${s.titleId}`)).status).to.equal('pending');
    const lines = await ok('GET', `/v1/accounts/${s.accountId}/statement-lines?status=unreconciled&limit=100`);
    expect(lines.data.map((l: any) => l.id)).to.include(s.lineId);
    expect((await api.call('GET', `/v1/reconciliations/${rec.id}`, { workspace: M })).status).to.equal(404);
    expect((await checkLedger(api.app.services.db, M)).violations).to.deep.equal([]);
  });

  it('refuses amounts that do not balance (422) and writes nothing', async () => {
    const s = await scenario(-5_000);
    const other = await ok('POST', '/v1/payables', { description: 'Outra', amount: '49.99', due_date: '2026-03-01', person_id: f.vendorId });
    const res = await api.call('POST', '/v1/reconciliations', { workspace: M, body: { statement_line_ids: [s.lineId], items: [{ type: 'payable', id: other.id }] } });
    expect(res.status).to.equal(422);
    expect((await ok('GET', `/v1/payables/${other.id}`)).status).to.equal('pending');
    const lines = await ok('GET', `/v1/accounts/${s.accountId}/statement-lines?status=reconciled&limit=100`);
    expect(lines.data).to.deep.equal([]);
  });

  it('MCP: asks for confirmation with a sentence naming the line and the title, runs only when accepted', async () => {
    const s = await scenario(-7_890);
    const token = await api.app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
    const args = { workspace_id: M, statement_line_ids: [s.lineId], items: [{ type: 'payable', id: s.titleId }] };
    expectToolError(await callTool(api.url, token, 'finance_reconciliations_create', args, { capabilities: null }), 'confirmation_required');
    const { requestState, message } = expectInputRequired(await callTool(api.url, token, 'finance_reconciliations_create', args));
    expect(message).to.equal('Reconcile 1 statement line (R$ 78,90 out) with payable "Conciliação teste" (R$ 78,90), settling 1 open title?');
    expect((await ok('GET', `/v1/payables/${s.titleId}`)).status).to.equal('pending');
    const done = expectSuccess(await callTool(api.url, token, 'finance_reconciliations_create', args, { requestState, inputResponses: accept() }));
    expect(done['created_via']).to.equal('mcp');
    expect((await ok('GET', `/v1/payables/${s.titleId}`)).status).to.equal('paid');
  });

  it('20 concurrent attempts on the same line and title: exactly one reconciles, the title is settled once', async () => {
    const s = await scenario(-31_415);
    const before = await balance(s.accountId);
    const body = { statement_line_ids: [s.lineId], items: [{ type: 'payable', id: s.titleId }] };
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.call('POST', '/v1/reconciliations', { workspace: M, body })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((x) => x === 201), JSON.stringify(statuses)).to.have.length(1);
    expect(statuses.every((x) => x === 201 || x === 409 || x === 422), JSON.stringify(statuses)).to.equal(true);
    const settlements = await api.app.services.db.selectFrom('transactions').select('id')
      .where('workspace_id', '=', M).where('source', '=', 'settlement').where('source_id', '=', s.titleId).execute();
    expect(settlements).to.have.length(1);
    expect(await balance(s.accountId)).to.equal((Number(before) - 314.15).toFixed(2));
    const winner = answers.find((a) => a.status === 201)?.body;
    expect((await api.call('DELETE', `/v1/reconciliations/${winner.id}`, { workspace: M })).status).to.equal(200);
    expect(await balance(s.accountId)).to.equal(before);
    expect((await checkLedger(api.app.services.db, M)).violations).to.deep.equal([]);
  });

  it('tools/list: the new tools are shown to the admin and hidden from a member without their permissions', async () => {
    const names = async (email: string) => {
      const { body, headers } = modernRequest(1, 'tools/list');
      const token = await api.app.mintToken({ person: email, scope: 'finance.all.write' });
      const response = await postMcp(`${api.url}/mcp`, body, { authorization: `Bearer ${token}`, ...headers });
      return (response.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    };
    // hand-kept-ok: the tools of issue 20 this test names
    const added = ['finance_cash_flow_get', 'finance_statements_import', 'finance_statements_list', 'finance_reconciliations_create', 'finance_classification_rules_preview'];
    expect(await names(DEMO.emails.ana)).to.include.members(added);
    const bruno = await names(DEMO.emails.bruno);
    expect(bruno.filter((name) => added.includes(name))).to.deep.equal([]);
    expect(bruno, 'bruno reads payables: their aggregates too').to.include('finance_payables_aggregates');
  });

  it('403 without finance.money.write or the reconciliations permission', async () => {
    const s = await scenario(-1_000);
    const body = { statement_line_ids: [s.lineId], items: [{ type: 'payable', id: s.titleId }] };
    expect((await api.call('POST', '/v1/reconciliations', { workspace: M, body, token: await api.token('ana', 'finance.reconciliations.write') })).status).to.equal(403);
    expect((await api.call('POST', '/v1/reconciliations', { workspace: M, body, token: await api.token('bruno', 'finance.all.write') })).status).to.equal(403);
  });

  // Issue 25 (bounded work): the window around a line is stepped as day numbers, clamped to the
  // calendar. Stepped as strings, 9999-12-30 + 7 days was "+010000-01-06", which sorts before
  // "9999-12-31", so a title due on the calendar's last day was never suggested.
  it('suggests a title due on 9999-12-31 for a line posted on 9999-12-30 (the calendar\'s edge)', async () => {
    const account = await ok('POST', '/v1/accounts', { name: `Fim do calendário ${randomUUID().slice(0, 8)}`, type: 'checking' });
    const fitid = randomUUID();
    const ofx = buildSmallOfx(fitid, -98_765).toString('latin1').replace(/<DTPOSTED>\d{8}/, '<DTPOSTED>99991230');
    await ok('POST', `/v1/accounts/${account.id}/statements`, { file_name: 'edge.ofx', content_base64: Buffer.from(ofx, 'latin1').toString('base64') });
    const title = await ok('POST', '/v1/payables', { description: 'Último dia', amount: '987.65', due_date: '9999-12-31', person_id: f.vendorId });
    const lines = await ok('GET', `/v1/accounts/${account.id}/statement-lines?status=unreconciled&limit=100`);
    const line = lines.data.find((l: any) => l.fitid === fitid);
    expect(line.posted_on).to.equal('9999-12-30');
    expect(line.suggestions.map((s: any) => s.id)).to.include(title.id);
  });
});
