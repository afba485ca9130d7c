import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';
import { loadFixtures, type Fixtures } from '../rules/support.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;

describe('transactions.* (REST)', () => {
  let api: RestApp;
  let f: Fixtures;
  let filial: Fixtures;
  before(async () => {
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
    filial = await loadFixtures(api.app.services.db, F);
  });
  after(async () => { await api?.close(); });

  const body = (extra: Record<string, unknown> = {}) => ({ financial_account_id: f.accountId, type: 'debit', amount: 45.9, occurred_at: '2026-03-09', description: 'Tarifa bancária', ...extra });

  it('POST /v1/transactions creates a manual transaction (201) and GET returns it', async () => {
    const created = await api.call('POST', '/v1/transactions', { workspace: M, body: body({ category_id: f.debitCategoryId, cost_center_allocations: [{ cost_center_id: f.costCenters.cost, amount: '45.90' }] }) });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ amount: '45.90', type: 'debit', source: 'manual', source_id: null, created_via: 'api', version: 1 });
    const got = await api.call('GET', `/v1/transactions/${created.body.id}`, { workspace: M });
    expect(got.body).to.deep.equal(created.body);
    expect((await api.call('GET', `/v1/transactions/${created.body.id}`, { workspace: F })).status).to.equal(404);
  });

  it('POST /v1/transactions answers 400 for a bad body, 422 for polarity and foreign accounts, 409 for a reused key', async () => {
    expect((await api.call('POST', '/v1/transactions', { workspace: M, body: body({ type: 'sideways' }) })).status).to.equal(400);
    expect((await api.call('POST', '/v1/transactions', { workspace: M, body: body({ category_id: f.creditCategoryId }) })).status).to.equal(422);
    expect((await api.call('POST', '/v1/transactions', { workspace: M, body: body({ financial_account_id: filial.accountId }) })).status).to.equal(422);
    const headers = { 'idempotency-key': `tx-${Date.now()}` };
    expect((await api.call('POST', '/v1/transactions', { workspace: M, body: body(), headers })).status).to.equal(201);
    expect((await api.call('POST', '/v1/transactions', { workspace: M, body: body({ amount: '1.00' }), headers })).status).to.equal(409);
  });

  it('PATCH /v1/transactions/:id updates a manual one (200) and answers 422 for a settlement amount, 404 across workspaces', async () => {
    const created = await api.call('POST', '/v1/transactions', { workspace: M, body: body() });
    const updated = await api.call('PATCH', `/v1/transactions/${created.body.id}`, { workspace: M, body: { amount: '50.00', description: 'Tarifa' } });
    expect(updated.status).to.equal(200);
    expect(updated.body).to.include({ amount: '50.00', description: 'Tarifa', version: 2 });
    expect((await api.call('PATCH', `/v1/transactions/${created.body.id}`, { workspace: F, body: { description: 'x' } })).status).to.equal(404);
    const settlement = await api.call('GET', '/v1/transactions?source=settlement&limit=1', { workspace: M });
    const id = settlement.body.data[0].id as string;
    expect((await api.call('PATCH', `/v1/transactions/${id}`, { workspace: M, body: { amount: '1.00' } })).status).to.equal(422);
  });

  it('DELETE /v1/transactions/:id deletes a manual one (204) and refuses settlement and transfer ones (422)', async () => {
    const created = await api.call('POST', '/v1/transactions', { workspace: M, body: body() });
    expect((await api.call('DELETE', `/v1/transactions/${created.body.id}`, { workspace: F })).status).to.equal(404);
    expect((await api.call('DELETE', `/v1/transactions/${created.body.id}`, { workspace: M })).status).to.equal(204);
    for (const source of ['settlement', 'transfer']) {
      const list = await api.call('GET', `/v1/transactions?source=${source}&limit=1`, { workspace: M });
      const res = await api.call('DELETE', `/v1/transactions/${list.body.data[0].id}`, { workspace: M });
      expect(res.status).to.equal(422);
      expect(res.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
    }
  });

  it('GET /v1/transactions filters by amount range and type, sorted by -occurred_at by default', async () => {
    const res = await api.call('GET', '/v1/transactions?type=debit&amount[gte]=100&amount[lt]=5000.5&limit=50', { workspace: M });
    expect(res.status).to.equal(200);
    expect(res.body.data.length).to.be.greaterThan(0);
    for (const t of res.body.data) {
      expect(t.type).to.equal('debit');
      expect(Number(t.amount)).to.be.within(100, 5000.49);
    }
    const dates = res.body.data.map((t: { occurred_at: string }) => t.occurred_at);
    expect(dates).to.deep.equal([...dates].sort().reverse());
    expect((await api.call('GET', '/v1/transactions?type[in]=debit', { workspace: M })).status).to.equal(400);
  });

  it('answers 401 without a token and 403 to bruno, who cannot see transactions', async () => {
    expect((await fetch(`${api.url}/v1/transactions`, { headers: { 'x-workspace-id': M } })).status).to.equal(401);
    expect((await api.call('GET', '/v1/transactions', { workspace: M, token: await api.token('bruno') })).status).to.equal(403);
  });
});

describe('money operations over the API budget (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp({ config: { apiReadBudget: 1, apiWriteBudget: 1 } }); });
  after(async () => { await api?.close(); });

  it('answers 429 RATE_LIMITED once the budget is spent', async () => {
    await api.call('GET', '/v1/payables', { workspace: M });
    const res = await api.call('GET', '/v1/transactions', { workspace: M });
    expect(res.status).to.equal(429);
    expect(res.body.error.code).to.equal('RATE_LIMITED');
  });
});
