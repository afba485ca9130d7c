import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';

const M = DEMO.workspaces.matriz;

describe('taxes.* (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  it('POST /v1/taxes stores the rate as two-place text (string or number input)', async () => {
    const a = await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'ISS Teste', default_rate: 5 } });
    expect(a.status, JSON.stringify(a.body)).to.equal(201);
    expect(a.body).to.include({ name: 'ISS Teste', default_rate: '5.00', active: true, version: 1 });
    const b = await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'PCC Teste', default_rate: '4.65' } });
    expect(b.body.default_rate).to.equal('4.65');
  });

  it('POST /v1/taxes rejects rates with 3 decimals or above 100', async () => {
    for (const rate of ['4.655', 4.655, '101', 100.01]) {
      const res = await api.call('POST', '/v1/taxes', { workspace: M, body: { name: `Bad ${String(rate)}`, default_rate: rate } });
      expect(res.status, String(rate)).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    }
  });

  it('POST /v1/taxes answers CONFLICT for a name already used (any case)', async () => {
    await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'Dup Tax', default_rate: '1' } });
    expect((await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'Dup Tax', default_rate: '2' } })).status).to.equal(409);
    expect((await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'dup tax', default_rate: '2' } })).status).to.equal(409);
  });

  it('PATCH /v1/taxes/:id updates the rate; a taken name is CONFLICT', async () => {
    await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'Taken', default_rate: '1' } });
    const t = await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'Mine', default_rate: '1' } });
    const res = await api.call('PATCH', `/v1/taxes/${t.body.id}`, { workspace: M, body: { default_rate: '1.5' } });
    expect(res.body).to.include({ default_rate: '1.50', version: 2 });
    expect((await api.call('PATCH', `/v1/taxes/${t.body.id}`, { workspace: M, body: { name: 'Taken' } })).status).to.equal(409);
    expect((await api.call('PATCH', `/v1/taxes/${t.body.id}`, { workspace: M, body: { name: 'Mine' } })).status).to.equal(200);
  });

  it('DELETE /v1/taxes/:id deletes (204), then NOT_FOUND', async () => {
    const t = await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'Temp', default_rate: '1' } });
    expect((await api.call('DELETE', `/v1/taxes/${t.body.id}`, { workspace: M })).status).to.equal(204);
    expect((await api.call('GET', `/v1/taxes/${t.body.id}`, { workspace: M })).status).to.equal(404);
  });

  it('GET /v1/taxes filters by name and active', async () => {
    await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'Inativo', default_rate: '1', active: false } });
    const res = await api.call('GET', '/v1/taxes?name=Inativo&active=false', { workspace: M });
    expect(res.body.data.map((t: { name: string }) => t.name)).to.deep.equal(['Inativo']);
  });
});
