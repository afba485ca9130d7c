import { expect } from 'chai';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { makeCnpj } from '../api/support/documents.js';
import { DEMO } from '../helpers/index.js';

const M = DEMO.workspaces.matriz;

describe('Idempotency-Key and budget headers over /v1', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp({ config: { apiWriteBudget: 6, apiReadBudget: 1000 } }); });
  after(async () => { await api?.close(); });

  it('replays the stored response with Idempotency-Replayed: true, and CONFLICTs on another body', async () => {
    const body = { cnpj: makeCnpj(), name: 'Idem Ltda' };
    const headers = { 'idempotency-key': 'rest-key-1' };
    const first = await api.call('POST', '/v1/companies', { workspace: M, body, headers });
    expect(first.status).to.equal(201);
    expect(first.headers.get('idempotency-replayed')).to.equal(null);
    const again = await api.call('POST', '/v1/companies', { workspace: M, body, headers });
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotency-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    const other = await api.call('POST', '/v1/companies', { workspace: M, body: { ...body, name: 'Other' }, headers });
    expect(other.status).to.equal(409);
    expect(other.body.error.code).to.equal('CONFLICT');
  });

  it('rejects an over-long Idempotency-Key with VALIDATION_ERROR', async () => {
    const res = await api.call('POST', '/v1/cost_centers', { workspace: M, body: { name: 'x', type: 'cost' }, headers: { 'idempotency-key': 'k'.repeat(300) } });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.issues[0].path).to.equal('Idempotency-Key');
  });

  it('sends RateLimit-* on success and 429 RATE_LIMITED with Retry-After once the write budget is spent', async () => {
    const ok = await api.call('GET', '/v1/taxes', { workspace: M });
    expect(ok.headers.get('ratelimit-limit')).to.equal('1000');
    expect(Number(ok.headers.get('ratelimit-remaining'))).to.be.lessThan(1000);
    let last = ok;
    for (let i = 0; i < 8 && last.status !== 429; i += 1) {
      last = await api.call('POST', '/v1/cost_centers', { workspace: M, body: { name: `b${i}`, type: 'cost' } });
    }
    expect(last.status).to.equal(429);
    expect(last.body.error.code).to.equal('RATE_LIMITED');
    expect(Number(last.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(last.headers.get('ratelimit-remaining')).to.equal('0');
  });
});
