/**
 * Issue 25, M2: reconciliation no longer bypasses the payables/receivables permissions and scopes
 * (docs/security.md#resources-touched). A member with only the reconciliation permissions does
 * not read a payable through the statement-line suggestions (left out, `meta.omitted` names the
 * kinds) and cannot settle one by reconciling it (refused, naming the resource); with the title
 * permissions both work. Over REST, with real memberships and tokens; SQLite and, with
 * DATABASE_URL, PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DEMO } from '../../helpers/index.js';
import { okCaller, startRestApp, type RestApp } from '../support/rest-app.js';
import { buildSmallOfx } from '../support/coverage-requests.js';
import { checkLedger } from '../support/ledger.js';
import { loadFixtures, type Fixtures } from '../rules/support.js';
import { modernRequest, postMcp } from '../../mcp/support/wire.js';

const M = DEMO.workspaces.matriz;
const RECONCILIATION_ONLY = ['reconciliations.view', 'reconciliations.manage'];
const WITH_TITLES = [...RECONCILIATION_ONLY, 'payables.view', 'payables.settle', 'receivables.view', 'receivables.settle', 'transactions.view'];

describe(`M2: reconciliation needs the permissions of the titles it shows and settles (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(120_000);
  let api: RestApp;
  let f: Fixtures;
  before(async () => {
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
  });
  after(async () => { await api?.close(); });

  const ok = (method: string, path: string, body?: unknown) => okCaller(api, M)(method, path, body);

  async function setBrunoPermissions(permissions: readonly string[]): Promise<void> {
    // The identity version the database bumps on this update makes the next call reload the membership.
    await api.app.services.db.updateTable('memberships').set({ permissions: JSON.stringify(permissions) })
      .where('organization_id', '=', DEMO.organizationId).where('person_id', '=', DEMO.persons.bruno).execute();
  }

  /** A fresh account with one imported debit line and a pending payable of its amount, due today (a suggestion). */
  async function scenario(): Promise<{ accountId: string; lineId: string; payableId: string; description: string }> {
    const account = await ok('POST', '/v1/accounts', { name: `M2 ${randomUUID().slice(0, 8)}`, type: 'checking' });
    const fitid = randomUUID();
    await ok('POST', `/v1/accounts/${account.id}/statements`, { file_name: 'x.ofx', content_base64: buildSmallOfx(fitid, -4_321).toString('base64') });
    const lines = await ok('GET', `/v1/accounts/${account.id}/statement-lines?status=unreconciled&limit=100`);
    const line = (lines.data as { id: string; fitid: string }[]).find((l) => l.fitid === fitid);
    const description = `Segredo ${randomUUID().slice(0, 8)}`;
    const payable = await ok('POST', '/v1/payables', { description, amount: '43.21', due_date: new Date().toISOString().slice(0, 10), person_id: f.vendorId });
    return { accountId: account.id, lineId: String(line?.id), payableId: payable.id, description };
  }

  const linesOf = async (token: string, accountId: string) =>
    api.call('GET', `/v1/accounts/${accountId}/statement-lines?status=unreconciled&limit=100`, { workspace: M, token });
  const reconcile = async (token: string, s: { lineId: string; payableId: string }) =>
    api.call('POST', '/v1/reconciliations', { workspace: M, token, body: { statement_line_ids: [s.lineId], items: [{ type: 'payable', id: s.payableId }] } });
  const statusOf = async (payableId: string) => (await ok('GET', `/v1/payables/${payableId}`)).status as string;

  afterEach(async () => setBrunoPermissions(['payables.view', 'receivables.view']));

  it('with only reconciliation permissions: the payable is left out of the suggestions and reconciling it is refused; nothing changes', async () => {
    const s = await scenario();
    await setBrunoPermissions(RECONCILIATION_ONLY);
    const token = await api.token('bruno', 'finance.all.write');

    const listed = await linesOf(token, s.accountId);
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    expect(listed.body.meta.omitted).to.deep.equal(['payables', 'receivables', 'transactions']);
    expect(listed.body.data[0].suggestions).to.deep.equal([]);
    expect(JSON.stringify(listed.body)).to.not.include(s.payableId).and.not.include(s.description);

    const refused = await reconcile(token, s);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
    expect(refused.body.error).to.deep.include({ code: 'insufficient_permission', details: { permission: 'payables.settle', resource: 'payables' } });
    expect(await statusOf(s.payableId)).to.equal('pending');
    const still = await ok('GET', `/v1/accounts/${s.accountId}/statement-lines?status=unreconciled&limit=100`);
    expect(still.data.map((l: { id: string }) => l.id)).to.include(s.lineId);
    expect((await checkLedger(api.app.services.db, M)).violations).to.deep.equal([]);
  });

  it('with the title permissions: the payable is suggested and reconciling settles it', async () => {
    const s = await scenario();
    await setBrunoPermissions(WITH_TITLES);
    const token = await api.token('bruno', 'finance.all.write');

    const listed = await linesOf(token, s.accountId);
    expect(listed.body.meta).to.not.have.property('omitted');
    // Earlier tests leave pending payables of the same amount: any of them may be suggested too.
    const suggested = (listed.body.data[0].suggestions as { id: string }[]).find((x) => x.id === s.payableId);
    expect(suggested).to.include({ type: 'payable', description: s.description, amount: '43.21' });

    const done = await reconcile(token, s);
    expect(done.status, JSON.stringify(done.body)).to.equal(201);
    expect(done.body.summary).to.include(s.description);
    expect(await statusOf(s.payableId)).to.equal('paid');
    expect((await checkLedger(api.app.services.db, M)).violations).to.deep.equal([]);
  });

  it('tools/list hides finance_reconciliations_create from a member without the title permissions, and shows it with them', async () => {
    const toolNames = async () => {
      const { body, headers } = modernRequest(1, 'tools/list');
      const token = await api.app.mintToken({ person: DEMO.emails.bruno, scope: 'finance.all.write' });
      const response = await postMcp(`${api.url}/mcp`, body, { authorization: `Bearer ${token}`, ...headers });
      return (response.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    };
    await setBrunoPermissions(RECONCILIATION_ONLY);
    const without = await toolNames();
    expect(without).to.include('finance_statements_list').and.include('finance_reconciliations_get');
    expect(without).to.not.include('finance_reconciliations_create').and.not.include('finance_reconciliations_delete');
    await setBrunoPermissions(WITH_TITLES);
    expect(await toolNames()).to.include('finance_reconciliations_create').and.include('finance_reconciliations_delete');
  });

  it('a token without the payables scopes: the payable is left out, and reconciling it is refused for insufficient_scope', async () => {
    const s = await scenario();
    await setBrunoPermissions(WITH_TITLES);
    const token = await api.token('bruno', 'finance.reconciliations.write finance.money.write finance.receivables.write finance.transactions');

    const listed = await linesOf(token, s.accountId);
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    expect(listed.body.meta.omitted).to.deep.equal(['payables']);
    expect(JSON.stringify(listed.body)).to.not.include(s.payableId);

    const refused = await reconcile(token, s);
    expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
    expect(refused.body.error).to.deep.include({ code: 'insufficient_scope' });
    expect(refused.body.error.details).to.deep.include({ required: ['finance.payables.write', 'finance.money.write'], resource: 'payables' });
    expect(await statusOf(s.payableId)).to.equal('pending');
  });

  // Review of issue 25: a write requires what it shows (its request names those records), so a
  // reconciliation is refused before any item is looked up when the caller may not read transactions:
  // the answer never tells whether one exists, its amount or its status.
  it('without transactions.view, naming a transaction is refused before it is read: existing or not, the same answer, no amount', async () => {
    const s = await scenario();
    const transaction = await ok('POST', '/v1/transactions', {
      type: 'debit', amount: '43.21', description: 'Movimento sigiloso', occurred_at: new Date().toISOString().slice(0, 10), financial_account_id: s.accountId,
    });
    await setBrunoPermissions(WITH_TITLES.filter((p) => p !== 'transactions.view'));
    const token = await api.token('bruno', 'finance.all.write');
    const answers = [];
    for (const id of [transaction.id, randomUUID()]) {
      const res = await api.call('POST', '/v1/reconciliations', { workspace: M, token, body: { statement_line_ids: [s.lineId], items: [{ type: 'transaction', id }] } });
      expect(res.status, JSON.stringify(res.body)).to.equal(403);
      expect(res.body.error).to.deep.include({ code: 'insufficient_permission', details: { permission: 'transactions.view', resource: 'transactions' } });
      expect(JSON.stringify(res.body)).to.not.include('43,21').and.not.include('43.21');
      answers.push(res.body);
    }
    expect(answers[0]).to.deep.equal(answers[1]);
    const still = await ok('GET', `/v1/accounts/${s.accountId}/statement-lines?status=unreconciled&limit=100`);
    expect(still.data.map((l: { id: string }) => l.id)).to.include(s.lineId);
  });
});
