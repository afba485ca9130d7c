import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';
import { loadFixtures, type Fixtures } from '../rules/support.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;

describe('transfers.* (REST)', () => {
  let api: RestApp;
  let f: Fixtures;
  let filial: Fixtures;
  before(async () => {
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
    filial = await loadFixtures(api.app.services.db, F);
  });
  after(async () => { await api?.close(); });

  const body = (extra: Record<string, unknown> = {}) => ({ from_account_id: f.accountId, to_account_id: f.otherAccountId, amount: '1500.00', occurred_at: '2026-03-09', description: 'Aplicação CDB', ...extra });

  async function balanceOf(accountId: string): Promise<string> {
    return (await api.call('GET', `/v1/accounts/${accountId}`, { workspace: M })).body.balance as string;
  }

  it('POST /v1/transfers moves money: a debit on the source, a credit on the destination (201); GET returns it', async () => {
    const [fromBefore, toBefore] = [await balanceOf(f.accountId), await balanceOf(f.otherAccountId)];
    const created = await api.call('POST', '/v1/transfers', { workspace: M, body: body() });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ amount: '1500.00', from_account_id: f.accountId, to_account_id: f.otherAccountId, created_via: 'api', version: 1 });
    const debit = await api.call('GET', `/v1/transactions/${created.body.debit_transaction_id}`, { workspace: M });
    const credit = await api.call('GET', `/v1/transactions/${created.body.credit_transaction_id}`, { workspace: M });
    expect(debit.body).to.include({ type: 'debit', financial_account_id: f.accountId, amount: '1500.00', source: 'transfer', source_id: created.body.id });
    expect(credit.body).to.include({ type: 'credit', financial_account_id: f.otherAccountId, amount: '1500.00', source: 'transfer' });
    expect(Math.round((Number(fromBefore) - Number(await balanceOf(f.accountId))) * 100)).to.equal(150_000);
    expect(Math.round((Number(await balanceOf(f.otherAccountId)) - Number(toBefore)) * 100)).to.equal(150_000);
    const got = await api.call('GET', `/v1/transfers/${created.body.id}`, { workspace: M });
    expect(got.status).to.equal(200);
    expect(got.body).to.deep.equal(created.body);
  });

  it('answers 422 for the same account twice and for an account of the other workspace, writing nothing', async () => {
    const before = await api.call('GET', '/v1/transactions?source=transfer&limit=100', { workspace: M });
    const same = await api.call('POST', '/v1/transfers', { workspace: M, body: body({ to_account_id: f.accountId }) });
    expect(same.status).to.equal(422);
    expect(same.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
    expect((await api.call('POST', '/v1/transfers', { workspace: M, body: body({ to_account_id: filial.accountId }) })).status).to.equal(422);
    const after = await api.call('GET', '/v1/transactions?source=transfer&limit=100', { workspace: M });
    expect(after.body.data.length).to.equal(before.body.data.length);
  });

  it('answers 400 for a bad body and 409 for a reused Idempotency-Key with another body', async () => {
    expect((await api.call('POST', '/v1/transfers', { workspace: M, body: body({ amount: '-1' }) })).status).to.equal(400);
    const headers = { 'idempotency-key': `tr-${Date.now()}` };
    expect((await api.call('POST', '/v1/transfers', { workspace: M, body: body(), headers })).status).to.equal(201);
    const replay = await api.call('POST', '/v1/transfers', { workspace: M, body: body(), headers });
    expect(replay.headers.get('idempotency-replayed')).to.equal('true');
    expect((await api.call('POST', '/v1/transfers', { workspace: M, body: body({ amount: '1.00' }), headers })).status).to.equal(409);
  });

  it('answers 401 without a token, 403 without finance.money.write and 404 for an id of the other workspace', async () => {
    expect((await fetch(`${api.url}/v1/transfers`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-workspace-id': M }, body: JSON.stringify(body()) })).status).to.equal(401);
    const token = await api.token('ana', 'finance.transactions.write');
    const res = await api.call('POST', '/v1/transfers', { workspace: M, token, body: body() });
    expect(res.status).to.equal(403);
    const filialTransfer = await api.app.services.db.selectFrom('transfers').select('id').where('workspace_id', '=', F).executeTakeFirstOrThrow();
    expect((await api.call('GET', `/v1/transfers/${filialTransfer.id}`, { workspace: M })).status).to.equal(404);
    expect((await api.call('GET', `/v1/transfers/${filialTransfer.id}`, { workspace: F })).status).to.equal(200);
  });
});
