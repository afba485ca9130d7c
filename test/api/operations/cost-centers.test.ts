import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { insertAllocation, insertPayable } from '../support/rows.js';
import { DEMO } from '../../helpers/index.js';

const M = DEMO.workspaces.matriz;

describe('cost_centers.* (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  it('creates, reads, updates and deletes a cost center', async () => {
    const created = await api.call('POST', '/v1/cost_centers', { workspace: M, body: { name: 'Comercial', type: 'revenue' } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body).to.include({ name: 'Comercial', type: 'revenue', active: true, version: 1 });
    const got = await api.call('GET', `/v1/cost_centers/${created.body.id}`, { workspace: M });
    expect(got.body).to.deep.equal(created.body);
    const updated = await api.call('PATCH', `/v1/cost_centers/${created.body.id}`, { workspace: M, body: { type: 'both', active: false } });
    expect(updated.body).to.include({ type: 'both', active: false, version: 2 });
    expect((await api.call('DELETE', `/v1/cost_centers/${created.body.id}`, { workspace: M })).status).to.equal(204);
    expect((await api.call('GET', `/v1/cost_centers/${created.body.id}`, { workspace: M })).status).to.equal(404);
  });

  it('POST /v1/cost_centers requires name and type (VALIDATION_ERROR lists both)', async () => {
    const res = await api.call('POST', '/v1/cost_centers', { workspace: M, body: {} });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.issues.map((i: { path: string }) => i.path)).to.have.members(['name', 'type']);
  });

  it('DELETE /v1/cost_centers/:id used by an apportionment answers CONFLICT', async () => {
    const db = api.app.services.db;
    const center = await api.call('POST', '/v1/cost_centers', { workspace: M, body: { name: 'Usado', type: 'cost' } });
    const person = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'F', kind: 'juridical' } });
    const payable = await insertPayable(db, M, person.body.id);
    await insertAllocation(db, M, payable, center.body.id);
    const res = await api.call('DELETE', `/v1/cost_centers/${center.body.id}`, { workspace: M });
    expect(res.status).to.equal(409);
  });

  it('GET /v1/cost_centers filters by type[in]', async () => {
    const res = await api.call('GET', '/v1/cost_centers?type[in]=cost,both&limit=100', { workspace: M });
    expect(res.status).to.equal(200);
    expect(res.body.data.every((c: { type: string }) => c.type !== 'revenue')).to.equal(true);
  });

  it('POST /v1/cost_centers answers CONFLICT for a reused Idempotency-Key with another body', async () => {
    const headers = { 'idempotency-key': `cc-${Date.now()}` };
    expect((await api.call('POST', '/v1/cost_centers', { workspace: M, body: { name: 'A', type: 'cost' }, headers })).status).to.equal(201);
    expect((await api.call('POST', '/v1/cost_centers', { workspace: M, body: { name: 'B', type: 'cost' }, headers })).status).to.equal(409);
  });
});
