import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';

const M = DEMO.workspaces.matriz;

describe('activity.list (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  it('records every write with person, channel, operation and record, newest first', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const center = await api.call('POST', '/v1/cost_centers', { workspace: M, body: { name: 'Logged', type: 'cost' } });
    await api.call('PATCH', `/v1/cost_centers/${center.body.id}`, { workspace: M, body: { name: 'Logged 2' } });
    await api.call('DELETE', `/v1/cost_centers/${center.body.id}`, { workspace: M });
    const res = await api.call('GET', `/v1/activity?record_id=${center.body.id}&created_at[gte]=${encodeURIComponent(since)}`, { workspace: M });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    // hand-kept-ok: the operations this test just called, as the activity log must show them
    expect(res.body.data.map((e: { operation: string }) => e.operation)).to.have.members(['cost_centers.create', 'cost_centers.update', 'cost_centers.delete']);
    for (const entry of res.body.data) {
      expect(entry).to.include({ person_id: DEMO.persons.ana, channel: 'api', resource: 'cost_centers', record_id: center.body.id });
    }
    const times = res.body.data.map((e: { created_at: string }) => e.created_at);
    expect(times).to.deep.equal([...times].sort().reverse());
  });

  it('filters by person_id, channel[in], resource and operation', async () => {
    await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'Act Tax', default_rate: '1' } });
    const res = await api.call('GET', `/v1/activity?person_id=${DEMO.persons.ana}&channel[in]=api,mcp&resource=taxes&operation=taxes.create`, { workspace: M });
    expect(res.body.data.length).to.be.greaterThan(0);
    expect(res.body.data.every((e: { resource: string; operation: string }) => e.resource === 'taxes' && e.operation === 'taxes.create')).to.equal(true);
    const none = await api.call('GET', '/v1/activity?channel=web&resource=taxes&operation=taxes.create', { workspace: M });
    expect(none.body.data).to.deep.equal([]);
  });

  it('keeps the log per workspace', async () => {
    const t = await api.call('POST', '/v1/taxes', { workspace: M, body: { name: 'Per WS', default_rate: '1' } });
    const other = await api.call('GET', `/v1/activity?record_id=${t.body.id}`, { workspace: DEMO.workspaces.filial });
    expect(other.body.data).to.deep.equal([]);
  });

  it('rejects a non-timestamp created_at filter with VALIDATION_ERROR and an unknown filter with BAD_REQUEST', async () => {
    const bad = await api.call('GET', '/v1/activity?created_at[gte]=2026-02-30T00:00:00Z', { workspace: M });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.code).to.equal('VALIDATION_ERROR');
    const unknown = await api.call('GET', '/v1/activity?color=red', { workspace: M });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error.code).to.equal('BAD_REQUEST');
  });
});
