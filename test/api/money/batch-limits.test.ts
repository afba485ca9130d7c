/**
 * Spending limits over batches (issue 29, item 4): the per-move cap applies to each title of a
 * settle batch, the rolling 24-hour total and the hourly count count every title, and a
 * receivable batch counts nothing (not an outflow). Limits are set through the Seguridad REST
 * update's `money_controls`; refused with LIMIT_EXCEEDED (422) and nothing settled. SQLite and,
 * with DATABASE_URL, PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startRestApp, type CallResult, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';
import { createManualClock, type ManualClock } from '../../helpers/clock.js';

const WS = DEMO.workspaces.filial;
const START = Date.parse('2026-06-10T12:00:00.000Z');
const HOUR = 3_600_000;

describe('money controls over settle batches (REST)', function () {
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
    const account = await api.call('POST', '/v1/accounts', { workspace: WS, body: { name: `Batch limits ${randomUUID()}`, type: 'checking' } });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    accountId = account.body.id;
  });
  afterEach(async () => {
    await setControls({ limits: [], payee_allowlist: { required_on: [] }, approvals: { thresholds: { api: null, mcp: null } } });
  });

  async function setControls(moneyControls: unknown): Promise<void> {
    const res = await api.call('PATCH', '/v1/security-settings', { workspace: WS, body: { money_controls: moneyControls } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }
  async function createTitles(resource: 'payables' | 'receivables', amounts: readonly string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const amount of amounts) {
      const res = await api.call('POST', `/v1/${resource}`, {
        workspace: WS,
        body: { description: `batch limits ${randomUUID()}`, amount, due_date: '2026-06-10', financial_account_id: accountId, person_id: resource === 'payables' ? vendorId : customerId },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids.push(res.body.id);
    }
    return ids;
  }
  const settleBatch = (resource: 'payables' | 'receivables', items: readonly Record<string, unknown>[]) =>
    api.call('POST', `/v1/${resource}/settle-batch`, { workspace: WS, body: { items: items.map((item) => ({ payment_date: '2026-06-10', ...item })) } });
  async function pending(ids: readonly string[]): Promise<number> {
    const rows = await api.app.services.db.selectFrom('titles').select('id').where('workspace_id', '=', WS).where('id', 'in', [...ids]).where('status', '=', 'pending').execute();
    return rows.length;
  }
  async function moves(): Promise<number> {
    return (await api.app.services.db.selectFrom('money_moves').select('id').where('workspace_id', '=', WS).execute()).length;
  }
  function expectLimitExceeded(res: CallResult, details: Record<string, unknown>): void {
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.headers.get('retry-after')).to.equal(null);
    expect(res.body.error.code).to.equal('LIMIT_EXCEEDED');
    expect(res.body.error.details).to.deep.equal(details);
  }

  it('applies the per-move cap to each title (its paid amount with interest), not to the batch total', async () => {
    await setControls({ limits: [{ window: 'move', amount: '500.00', channels: ['api'] }] });
    const ids = await createTitles('payables', ['400.00', '300.00', '480.00']);
    // Each title is within 500, and so is the third one's amount, but it pays 480 + 30 interest.
    expectLimitExceeded(await settleBatch('payables', [{ id: ids[0] }, { id: ids[1] }, { id: ids[2], interest_amount: '30.00' }]),
      { limit: '500.00', window: 'move', used: null, requested: '510.00', resets_at: null, index: 2, record_id: ids[2] });
    expect(await pending(ids)).to.equal(3);
    expect(await moves()).to.equal(0);
    // The batch's 1,180.00 total is over 500, but no single title is: it runs, one move per title.
    const ok = await settleBatch('payables', ids.map((id) => ({ id })));
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.total).to.equal('1180.00');
    expect(await moves()).to.equal(3);
  });

  it('counts every title against the rolling 24-hour total', async () => {
    await setControls({ limits: [{ window: '24h', amount: '250.00' }] });
    const first = await createTitles('payables', ['100.00', '100.00']);
    expect((await settleBatch('payables', first.map((id) => ({ id })))).status).to.equal(200);
    clock.advance(HOUR);
    const second = await createTitles('payables', ['25.00', '30.00']);
    expectLimitExceeded(await settleBatch('payables', second.map((id) => ({ id }))), {
      limit: '250.00', window: '24h', used: '200.00', requested: '55.00', resets_at: new Date(START + 24 * HOUR).toISOString(),
    });
    expect(await pending(second)).to.equal(2);
    // 200 + 25 + 25 fits exactly.
    const fits = await createTitles('payables', ['25.00', '25.00']);
    expect((await settleBatch('payables', fits.map((id) => ({ id })))).status).to.equal(200);
    expect(await moves()).to.equal(4);
  });

  it('counts every title against the hourly count, and a receivable batch counts nothing', async () => {
    await setControls({ limits: [{ window: '1h', count: 3 }] });
    const receivables = await createTitles('receivables', ['10.00', '10.00', '10.00', '10.00']);
    expect((await settleBatch('receivables', receivables.map((id) => ({ id })))).status).to.equal(200);
    expect(await moves()).to.equal(0);
    const ids = await createTitles('payables', ['1.00', '1.00', '1.00', '1.00']);
    // Four titles are four moves: over a count of 3 even with none used, so no reset makes room (resets_at null).
    expectLimitExceeded(await settleBatch('payables', ids.map((id) => ({ id }))), {
      limit: 3, window: '1h', used: 0, requested: 4, resets_at: null,
    });
    expect(await pending(ids)).to.equal(4);
    expect((await settleBatch('payables', ids.slice(0, 3).map((id) => ({ id })))).status).to.equal(200);
    clock.advance(60_000);
    expectLimitExceeded(await settleBatch('payables', [{ id: ids[3] }]), {
      limit: 3, window: '1h', used: 3, requested: 1, resets_at: new Date(START + HOUR).toISOString(),
    });
  });

  it('refuses a batch whose total no Money amount can render (over 999999999999.99), with nothing settled, even with no control set', async () => {
    const ids = await createTitles('payables', ['999999999999.99', '0.01']);
    const res = await settleBatch('payables', ids.map((id) => ({ id })));
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
    expect(res.body.error.message).to.match(/over 999999999999\.99; nothing was changed/);
    expect(await pending(ids)).to.equal(2);
    expect(await moves()).to.equal(0);
  });
});
