/**
 * The REST test suite of one title resource (payables or receivables mirror each other):
 * every operation's success path and each error code the spec lists for it, over real HTTP
 * with real tokens. Called from test/api/operations/{payables,receivables}.test.ts.
 */
import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';
import { loadFixtures, type Fixtures } from './support.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;

export interface TitleSuiteOptions {
  readonly resource: 'payables' | 'receivables';
  readonly settledStatus: 'paid' | 'received';
  readonly transactionType: 'debit' | 'credit';
}

export function describeTitleRest(o: TitleSuiteOptions): void {
  const base = `/v1/${o.resource}`;
  const isPayable = o.resource === 'payables';

  describe(`${o.resource}.* (REST)`, () => {
    let api: RestApp;
    let f: Fixtures;
    let filial: Fixtures;
    before(async () => {
      api = await startRestApp();
      f = await loadFixtures(api.app.services.db, M);
      filial = await loadFixtures(api.app.services.db, F);
    });
    after(async () => { await api?.close(); });

    const body = (extra: Record<string, unknown> = {}) => ({
      description: 'NF 1234', amount: '1234.56', due_date: '2026-03-10', person_id: isPayable ? f.vendorId : f.customerId,
      category_id: isPayable ? f.debitCategoryId : f.creditCategoryId, ...extra,
    });
    const create = async (extra: Record<string, unknown> = {}) => {
      const res = await api.call('POST', base, { workspace: M, body: body(extra) });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body as Record<string, unknown> & { id: string };
    };

    describe(`POST ${base}`, () => {
      it('creates a pending title (201) with money strings and audit fields through the api channel', async () => {
        const created = await create({ cost_center_allocations: [{ cost_center_id: f.costCenters.both, percentage: 60 }, { cost_center_id: isPayable ? f.costCenters.cost : f.costCenters.revenue, percentage: '40' }] });
        expect(created).to.include({ status: 'pending', amount: '1234.56', competence_date: '2026-03-10', created_via: 'api', updated_via: 'api', version: 1, overdue: true });
        expect(created['cost_center_allocations']).to.deep.equal([
          { cost_center_id: f.costCenters.both, percentage: '60.00', amount: '740.74' },
          { cost_center_id: isPayable ? f.costCenters.cost : f.costCenters.revenue, percentage: '40.00', amount: '493.82' },
        ]);
      });
      it('answers 400 VALIDATION_ERROR for missing fields and three-decimal amounts', async () => {
        const res = await api.call('POST', base, { workspace: M, body: { amount: '1.234' } });
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      });
      it('answers 422 for a category of the wrong type and for a person of the other workspace', async () => {
        const wrong = await api.call('POST', base, { workspace: M, body: body({ category_id: isPayable ? f.creditCategoryId : f.debitCategoryId }) });
        expect(wrong.status).to.equal(422);
        expect(wrong.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
        expect((await api.call('POST', base, { workspace: M, body: body({ person_id: filial.vendorId }) })).status).to.equal(422);
      });
      it('answers 422 for a cost center of the wrong polarity', async () => {
        const center = isPayable ? f.costCenters.revenue : f.costCenters.cost;
        const res = await api.call('POST', base, { workspace: M, body: body({ cost_center_allocations: [{ cost_center_id: center, percentage: 100 }] }) });
        expect(res.status).to.equal(422);
      });
      it('replays an Idempotency-Key (Idempotency-Replayed: true) and answers 409 for the same key with another body', async () => {
        const headers = { 'idempotency-key': `${o.resource}-${Date.now()}` };
        const first = await api.call('POST', base, { workspace: M, body: body(), headers });
        const again = await api.call('POST', base, { workspace: M, body: body(), headers });
        expect(again.status).to.equal(201);
        expect(again.headers.get('idempotency-replayed')).to.equal('true');
        expect(again.body.id).to.equal(first.body.id);
        expect((await api.call('POST', base, { workspace: M, body: body({ amount: '1.00' }), headers })).status).to.equal(409);
      });
      it('answers 401 without a token and 403 for bruno (read-only)', async () => {
        const res = await fetch(`${api.url}${base}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-workspace-id': M }, body: JSON.stringify(body()) });
        expect(res.status).to.equal(401);
        const bruno = await api.call('POST', base, { workspace: M, body: body(), token: await api.token('bruno') });
        expect(bruno.status).to.equal(403);
      });
    });

    describe(`GET ${base} and ${base}/:id`, () => {
      it('lists pending titles due in a date range with sparse fields', async () => {
        const today = new Date().toISOString().slice(0, 10);
        const week = new Date(Date.now() + 6 * 86_400_000).toISOString().slice(0, 10);
        const res = await api.call('GET', `${base}?status=pending&due_date[gte]=${today}&due_date[lte]=${week}&fields=amount,due_date&limit=100`, { workspace: M });
        expect(res.status).to.equal(200);
        expect(res.body.data.length).to.be.greaterThan(0);
        for (const row of res.body.data) expect(Object.keys(row).sort()).to.deep.equal(['amount', 'due_date', 'id']);
      });
      it('lists overdue titles with overdue=true', async () => {
        const res = await api.call('GET', `${base}?overdue=true&limit=100`, { workspace: M });
        expect(res.status).to.equal(200);
        expect(res.body.data.length).to.be.greaterThan(0);
        for (const row of res.body.data) expect(row).to.include({ overdue: true, status: 'pending' });
      });
      it('answers 400 for an unknown filter, operator or field', async () => {
        expect((await api.call('GET', `${base}?colour=red`, { workspace: M })).status).to.equal(400);
        expect((await api.call('GET', `${base}?status[gte]=pending`, { workspace: M })).status).to.equal(400);
        expect((await api.call('GET', `${base}?fields=colour`, { workspace: M })).status).to.equal(400);
      });
      it('gets one title and answers 404 for an id of the other workspace', async () => {
        const created = await create();
        const got = await api.call('GET', `${base}/${created.id}`, { workspace: M });
        expect(got.status).to.equal(200);
        expect(got.body).to.deep.equal(created);
        expect((await api.call('GET', `${base}/${created.id}`, { workspace: F })).status).to.equal(404);
      });
    });

    describe(`PATCH ${base}/:id`, () => {
      it('updates fields and increments version', async () => {
        const created = await create();
        const res = await api.call('PATCH', `${base}/${created.id}`, { workspace: M, body: { due_date: '2026-03-17', notes: 'Prorrogado' } });
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ due_date: '2026-03-17', notes: 'Prorrogado', version: 2, competence_date: '2026-03-10' });
      });
      it('answers 400 for an empty body, 404 for the other workspace and 422 once settled', async () => {
        const created = await create({ financial_account_id: f.accountId });
        expect((await api.call('PATCH', `${base}/${created.id}`, { workspace: M, body: {} })).status).to.equal(400);
        expect((await api.call('PATCH', `${base}/${created.id}`, { workspace: F, body: { notes: 'x' } })).status).to.equal(404);
        await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, body: { payment_date: '2026-03-10' } });
        expect((await api.call('PATCH', `${base}/${created.id}`, { workspace: M, body: { notes: 'x' } })).status).to.equal(422);
      });
    });

    describe(`POST ${base}/:id/settle, /reopen and /cancel`, () => {
      it(`settles (${o.settledStatus}) with one linked ${o.transactionType} transaction, and reopen removes it`, async () => {
        const created = await create({ amount: '500.00' });
        const settled = await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, body: { payment_date: '2026-03-11', financial_account_id: f.accountId, interest_amount: '5.50', discount_amount: 0 } });
        expect(settled.status, JSON.stringify(settled.body)).to.equal(200);
        expect(settled.body).to.include({ status: o.settledStatus, paid_amount: '505.50', payment_date: '2026-03-11', overdue: false });
        const tx = await api.call('GET', `/v1/transactions/${settled.body.transaction_id}`, { workspace: M });
        expect(tx.body).to.include({ type: o.transactionType, amount: '505.50', source: 'settlement', source_id: created.id, financial_account_id: f.accountId });
        expect((await api.call('DELETE', `/v1/transactions/${settled.body.transaction_id}`, { workspace: M })).status).to.equal(422);
        const reopened = await api.call('POST', `${base}/${created.id}/reopen`, { workspace: M });
        expect(reopened.status).to.equal(200);
        expect(reopened.body).to.include({ status: 'pending', transaction_id: null, paid_amount: null });
        expect((await api.call('GET', `/v1/transactions/${settled.body.transaction_id}`, { workspace: M })).status).to.equal(404);
      });
      it('answers 422 to settle without an account, to settle twice and to reopen a pending title', async () => {
        const created = await create();
        const res = await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, body: { payment_date: '2026-03-11' } });
        expect(res.status).to.equal(422);
        expect(res.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
        expect((await api.call('POST', `${base}/${created.id}/reopen`, { workspace: M })).status).to.equal(422);
        await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, body: { payment_date: '2026-03-11', financial_account_id: f.accountId } });
        expect((await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, body: { payment_date: '2026-03-11', financial_account_id: f.accountId } })).status).to.equal(422);
      });
      it('answers 400 without payment_date, 404 for the other workspace and 403 without finance.money.write', async () => {
        const created = await create({ financial_account_id: f.accountId });
        expect((await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, body: {} })).status).to.equal(400);
        expect((await api.call('POST', `${base}/${created.id}/settle`, { workspace: F, body: { payment_date: '2026-03-11' } })).status).to.equal(404);
        expect((await api.call('POST', `${base}/${created.id}/reopen`, { workspace: F })).status).to.equal(404);
        const token = await api.token('ana', `finance.${o.resource}.write`);
        const res = await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, token, body: { payment_date: '2026-03-11' } });
        expect(res.status).to.equal(403);
        expect(res.body.error.code).to.equal('insufficient_scope');
      });
      it('answers 409 for a reused Idempotency-Key with another settle body', async () => {
        const created = await create({ financial_account_id: f.accountId });
        const headers = { 'idempotency-key': `settle-${o.resource}-${Date.now()}` };
        expect((await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, headers, body: { payment_date: '2026-03-11' } })).status).to.equal(200);
        const replay = await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, headers, body: { payment_date: '2026-03-11' } });
        expect(replay.status).to.equal(200);
        expect(replay.headers.get('idempotency-replayed')).to.equal('true');
        expect((await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, headers, body: { payment_date: '2026-03-12' } })).status).to.equal(409);
      });
      it('lets exactly one of 20 concurrent settlements win, with one transaction', async () => {
        const created = await create({ financial_account_id: f.accountId });
        const results = await Promise.all(Array.from({ length: 20 }, () =>
          api.call('POST', `${base}/${created.id}/settle`, { workspace: M, body: { payment_date: '2026-03-11' } })));
        expect(results.filter((r) => r.status === 200)).to.have.length(1);
        expect(results.filter((r) => r.status !== 200).map((r) => r.status)).to.satisfy((s: number[]) => s.every((x) => x === 422));
        const txs = await api.call('GET', `/v1/transactions?source=settlement&limit=100&sort=-created_at`, { workspace: M });
        expect(txs.body.data.filter((t: { source_id: string }) => t.source_id === created.id)).to.have.length(1);
      });
      it('cancels a pending title, then answers 422 to cancel again and 404 from the other workspace', async () => {
        const created = await create();
        const res = await api.call('POST', `${base}/${created.id}/cancel`, { workspace: M });
        expect(res.status).to.equal(200);
        expect(res.body.status).to.equal('cancelled');
        expect((await api.call('POST', `${base}/${created.id}/cancel`, { workspace: M })).status).to.equal(422);
        expect((await api.call('POST', `${base}/${created.id}/cancel`, { workspace: F })).status).to.equal(404);
      });
    });

    describe(`DELETE ${base}/:id`, () => {
      it('deletes a settled title and its settlement transaction (204), then 404', async () => {
        const created = await create({ financial_account_id: f.accountId });
        const settled = await api.call('POST', `${base}/${created.id}/settle`, { workspace: M, body: { payment_date: '2026-03-11' } });
        expect((await api.call('DELETE', `${base}/${created.id}`, { workspace: F })).status).to.equal(404);
        expect((await api.call('DELETE', `${base}/${created.id}`, { workspace: M })).status).to.equal(204);
        expect((await api.call('GET', `${base}/${created.id}`, { workspace: M })).status).to.equal(404);
        expect((await api.call('GET', `/v1/transactions/${settled.body.transaction_id}`, { workspace: M })).status).to.equal(404);
      });
      it('answers 403 to bruno, who may only read', async () => {
        const created = await create();
        const res = await api.call('DELETE', `${base}/${created.id}`, { workspace: M, token: await api.token('bruno') });
        expect(res.status).to.equal(403);
      });
    });
  });
}
