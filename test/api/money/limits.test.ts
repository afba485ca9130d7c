/**
 * Spending limits (issue 29, item 1; docs/security.md#money-controls), over REST on both
 * databases: an amount per move, a total per rolling 24 h and a count per rolling hour, set in
 * the Seguridad settings; refused with LIMIT_EXCEEDED (422, no Retry-After) and complete
 * details; only outflows that ran count (a refused or failed move, a receivable settle and a
 * reopen do not give or take allowance). The windows are placed by the app's clock, moved here.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startRestApp, type CallResult, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';
import { buildSmallOfx } from '../support/coverage-requests.js';
import { createManualClock, type ManualClock } from '../../helpers/clock.js';
import { restoreDemoPermissions, setPermissions } from './support.js';

const WS = DEMO.workspaces.filial;
const START = Date.parse('2026-06-10T12:00:00.000Z');
const HOUR = 3_600_000;

describe('money controls: spending limits (REST)', function () {
  this.timeout(60_000);
  let api: RestApp;
  let clock: ManualClock;
  let vendorId: string;
  let customerId: string;
  let accountId: string;

  before(async () => {
    clock = createManualClock(START);
    api = await startRestApp({ clock });
    const people = await api.app.services.db.selectFrom('people').select(['id', 'is_supplier', 'is_customer']).where('workspace_id', '=', WS).orderBy('id').execute();
    vendorId = (people.find((p) => Number(p.is_supplier) === 1) as { id: string }).id;
    customerId = (people.find((p) => Number(p.is_customer) === 1) as { id: string }).id;
  });
  after(async () => { await api?.close(); });

  beforeEach(async () => {
    clock.set(START);
    await api.app.services.db.deleteFrom('money_moves').where('workspace_id', '=', WS).execute();
    const account = await api.call('POST', '/v1/accounts', { workspace: WS, body: { name: `Limits ${randomUUID()}`, type: 'checking' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    accountId = account.body.id;
  });
  afterEach(async () => {
    await setControls({ limits: [], payee_allowlist: { required_on: [] }, approvals: { thresholds: { api: null, mcp: null } } });
  });

  async function setControls(moneyControls: unknown): Promise<CallResult> {
    const res = await api.call('PATCH', '/v1/security-settings', { workspace: WS, body: { money_controls: moneyControls } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res;
  }

  async function createTitle(resource: 'payables' | 'receivables', amount: string): Promise<string> {
    const res = await api.call('POST', `/v1/${resource}`, {
      workspace: WS,
      body: { description: `limits ${randomUUID()}`, amount, due_date: '2026-06-10', financial_account_id: accountId, person_id: resource === 'payables' ? vendorId : customerId },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id;
  }

  const settle = (resource: 'payables' | 'receivables', id: string, body: Record<string, unknown> = {}) =>
    api.call('POST', `/v1/${resource}/${id}/settle`, { workspace: WS, body: { payment_date: '2026-06-10', ...body } });

  async function statusOf(id: string): Promise<string> {
    const res = await api.call('GET', `/v1/payables/${id}`, { workspace: WS });
    return res.body.status;
  }

  function expectLimitExceeded(res: CallResult, details: Record<string, unknown>): void {
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.headers.get('retry-after')).to.equal(null);
    expect(res.body.error.code).to.equal('LIMIT_EXCEEDED');
    expect(res.body.error.details).to.deep.equal(details);
  }

  it('refuses a move over the per-move amount, counting interest and discount, with nothing changed', async () => {
    await setControls({ limits: [{ window: 'move', amount: '500.00', channels: ['api'] }] });
    const over = await createTitle('payables', '480.00');
    // 480 + 30 interest − 5 discount = 505 paid: over 500, though the payable's amount is not.
    expectLimitExceeded(await settle('payables', over, { interest_amount: '30.00', discount_amount: '5.00' }),
      { limit: '500.00', window: 'move', used: null, requested: '505.00', resets_at: null });
    expect(await statusOf(over)).to.equal('pending');
    const within = await settle('payables', over, { interest_amount: '25.00', discount_amount: '5.00' });
    expect(within.status, JSON.stringify(within.body)).to.equal(200);
    expect(within.body.paid_amount).to.equal('500.00');
  });

  it('refuses a move over the rolling 24-hour total, says when it resets, and lets it through once the window moved', async () => {
    await setControls({ limits: [{ window: '24h', amount: '250.00' }] });
    const [a, b, c] = [await createTitle('payables', '100.00'), await createTitle('payables', '100.00'), await createTitle('payables', '100.00')];
    expect((await settle('payables', a)).status).to.equal(200);
    clock.advance(HOUR);
    expect((await settle('payables', b)).status).to.equal(200);
    clock.advance(HOUR);
    expectLimitExceeded(await settle('payables', c), {
      limit: '250.00', window: '24h', used: '200.00', requested: '100.00', resets_at: new Date(START + 24 * HOUR).toISOString(),
    });
    expect(await statusOf(c)).to.equal('pending');
    clock.set(START + 24 * HOUR + 1);
    expect((await settle('payables', c)).status).to.equal(200);
  });

  it('refuses the move past the count per rolling hour, and counts only moves that ran', async () => {
    await setControls({ limits: [{ window: '1h', count: 2 }] });
    const ids = [await createTitle('payables', '10.00'), await createTitle('payables', '10.00'), await createTitle('payables', '10.00')];
    expect((await settle('payables', ids[0] as string)).status).to.equal(200);
    // A failed move (the discount is larger than what is owed) and a receivable settle do not count.
    expect((await settle('payables', ids[1] as string, { discount_amount: '50.00' })).status).to.equal(422);
    const receivable = await createTitle('receivables', '10.00');
    expect((await settle('receivables', receivable)).status).to.equal(200);
    expect((await settle('payables', ids[1] as string)).status).to.equal(200);
    clock.advance(60_000);
    expectLimitExceeded(await settle('payables', ids[2] as string), {
      limit: 2, window: '1h', used: 2, requested: 1, resets_at: new Date(START + HOUR).toISOString(),
    });
    // A refused move does not count either: an hour after the first, exactly one slot is free.
    clock.set(START + HOUR + 1);
    expect((await settle('payables', ids[2] as string)).status).to.equal(200);
  });

  it('does not give the allowance back when a move is undone (reopen)', async () => {
    await setControls({ limits: [{ window: '24h', amount: '150.00' }] });
    const a = await createTitle('payables', '100.00');
    expect((await settle('payables', a)).status).to.equal(200);
    expect((await api.call('POST', `/v1/payables/${a}/reopen`, { workspace: WS })).status).to.equal(200);
    expectLimitExceeded(await settle('payables', a), { limit: '150.00', window: '24h', used: '100.00', requested: '100.00', resets_at: new Date(START + 24 * HOUR).toISOString() });
  });

  it('counts transfers out at their amount', async () => {
    await setControls({ limits: [{ window: 'move', amount: '99.99' }] });
    const other = await api.call('POST', '/v1/accounts', { workspace: WS, body: { name: `Other ${randomUUID()}`, type: 'checking' } });
    const transfer = (amount: string) => api.call('POST', '/v1/transfers', {
      workspace: WS, body: { from_account_id: accountId, to_account_id: other.body.id, amount, occurred_at: '2026-06-10' },
    });
    expectLimitExceeded(await transfer('100.00'), { limit: '99.99', window: 'move', used: null, requested: '100.00', resets_at: null });
    expect((await transfer('99.99')).status).to.equal(201);
  });

  it('holds a reconciliation that settles open payables to the limits and counts them (its statement lines can come from any file)', async () => {
    const payable = await createTitle('payables', '300.00');
    const fitid = randomUUID();
    const imported = await api.call('POST', `/v1/accounts/${accountId}/statements`, { workspace: WS, body: { file_name: 'line.ofx', content_base64: buildSmallOfx(fitid, -30_000).toString('base64') } });
    expect(imported.status, JSON.stringify(imported.body)).to.equal(201);
    const lines = await api.call('GET', `/v1/accounts/${accountId}/statement-lines?limit=100&status=unreconciled`, { workspace: WS });
    const line = (lines.body.data as { id: string; fitid: string }[]).find((l) => l.fitid === fitid) as { id: string };
    const reconcile = () => api.call('POST', '/v1/reconciliations', { workspace: WS, body: { statement_line_ids: [line.id], items: [{ type: 'payable', id: payable }] } });
    await setControls({ limits: [{ window: 'move', amount: '299.99' }] });
    expectLimitExceeded(await reconcile(), { limit: '299.99', window: 'move', used: null, requested: '300.00', resets_at: null });
    expect(await statusOf(payable)).to.equal('pending');
    await setControls({ limits: [{ window: '24h', amount: '1000.00' }] });
    const done = await reconcile();
    expect(done.status, JSON.stringify(done.body)).to.equal(201);
    expect(await statusOf(payable)).to.equal('paid');
    const moves = await api.app.services.db.selectFrom('money_moves').select(['operation_id', 'amount_cents', 'record_id']).where('workspace_id', '=', WS).execute();
    expect(moves.map((m) => ({ ...m, amount_cents: Number(m.amount_cents) }))).to.deep.equal([{ operation_id: 'reconciliations.create', amount_cents: 30_000, record_id: payable }]);
  });

  it('applies a limit only to its channels, its person and its token type', async () => {
    const payable = await createTitle('payables', '100.00');
    await setControls({ limits: [{ window: 'move', amount: '1.00', channels: ['mcp'] }, { window: 'move', amount: '1.00', made_by: DEMO.persons.bruno }, { window: 'move', amount: '1.00', token_type: 'oauth' }] });
    // None of them applies to Ana's personal token over REST.
    expect((await settle('payables', payable)).status).to.equal(200);
    await setControls({ limits: [{ window: 'move', amount: '1.00', made_by: DEMO.persons.ana, token_type: 'personal', channels: ['api'] }] });
    const second = await createTitle('payables', '100.00');
    expect((await settle('payables', second)).body.error.code).to.equal('LIMIT_EXCEEDED');
  });

  it('refuses a configuration it cannot apply, naming every wrong field, and a limit for no member', async () => {
    const bad = await api.call('PATCH', '/v1/security-settings', { workspace: WS, body: { money_controls: { limits: [{ window: '1h', amount: '5.00' }, { window: 'move' }] } } });
    expect(bad.status, JSON.stringify(bad.body)).to.equal(400);
    const paths = (bad.body.error.details.issues as { path: string }[]).map((issue) => issue.path);
    expect(paths).to.include.members(['money_controls.limits[0].count', 'money_controls.limits[0].amount', 'money_controls.limits[1].amount']);
    // A missing amount or count is said to be missing, not malformed.
    const messages = Object.fromEntries((bad.body.error.details.issues as { path: string; message: string }[]).map((issue) => [issue.path, issue.message]));
    expect(messages['money_controls.limits[0].count']).to.match(/^is required/);
    expect(messages['money_controls.limits[1].amount']).to.match(/^is required/);
    const stranger = await api.call('PATCH', '/v1/security-settings', { workspace: WS, body: { money_controls: { limits: [{ window: 'move', amount: '5.00', made_by: randomUUID() }] } } });
    expect(stranger.status, JSON.stringify(stranger.body)).to.equal(422);
    expect(stranger.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
    const settings = await api.call('GET', '/v1/security-settings', { workspace: WS });
    expect(settings.body.money_controls.limits).to.deep.equal([]);
  });

  it('answers the caller\'s own allowance: used, remaining and when it resets', async () => {
    await setControls({ limits: [{ window: '24h', amount: '1000.00' }, { window: '1h', count: 5 }, { window: 'move', amount: '700.00' }, { window: 'move', amount: '1.00', channels: ['mcp'] }] });
    expect((await settle('payables', await createTitle('payables', '300.00'))).status).to.equal(200);
    const res = await api.call('GET', '/v1/money/allowance', { workspace: WS, token: await api.token('ana', 'finance.payables') });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal({
      channel: 'api',
      limits: [
        { window: '24h', limit: '1000.00', used: '300.00', remaining: '700.00', resets_at: new Date(START + 24 * HOUR).toISOString() },
        { window: '1h', limit: 5, used: 1, remaining: 4, resets_at: new Date(START + HOUR).toISOString() },
        { window: 'move', limit: '700.00', used: null, remaining: null, resets_at: null },
      ],
    });
  });

  it('tells a member who may make no move out no limit at all (a workspace-wide total counts everyone\'s moves)', async () => {
    const db = api.app.services.db;
    const setBruno = (permissions: readonly string[]) => setPermissions(db, DEMO.persons.bruno, permissions);
    const brunoReads = async () => (await api.call('GET', '/v1/money/allowance', { workspace: DEMO.workspaces.matriz, token: await api.token('bruno', 'finance.payables') })).body;
    const matriz = await api.call('PATCH', '/v1/security-settings', { workspace: DEMO.workspaces.matriz, body: { money_controls: { limits: [{ window: '24h', amount: '1000.00' }] } } });
    expect(matriz.status, JSON.stringify(matriz.body)).to.equal(200);
    try {
      await setBruno(['payables.view', 'receivables.view']);
      expect(await brunoReads()).to.deep.equal({ channel: 'api', limits: [] });
      await setBruno(['payables.view', 'payables.settle']);
      const allowed = await brunoReads();
      expect(allowed.limits).to.have.length(1);
      expect(allowed.limits[0]).to.include({ window: '24h', limit: '1000.00' });
    } finally {
      await restoreDemoPermissions(db, DEMO.persons.bruno);
      await api.call('PATCH', '/v1/security-settings', { workspace: DEMO.workspaces.matriz, body: { money_controls: { limits: [] } } });
    }
  });
});
