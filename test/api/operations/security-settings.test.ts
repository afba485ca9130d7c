import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';

const F = DEMO.workspaces.filial;

describe('security_settings.* (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  it('GET /v1/security-settings returns defaults that block nothing', async () => {
    const res = await api.call('GET', '/v1/security-settings', { workspace: F });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ blocked: { api: [], mcp: [] }, updated_by: null, version: 1 });
    expect(res.body.updated_at).to.be.a('string');
  });

  it('PATCH replaces only the channels given, bumps version and blocks REST creates with SECURITY_BLOCKED', async () => {
    const first = await api.call('PATCH', '/v1/security-settings', { workspace: F, body: { blocked: { mcp: ['move_money', 'delete'] } } });
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    expect(first.body).to.deep.include({ blocked: { api: [], mcp: ['delete', 'move_money'] }, updated_by: DEMO.persons.ana, version: 2 });
    const second = await api.call('PATCH', '/v1/security-settings', { workspace: F, body: { blocked: { api: ['create'] } } });
    expect(second.body).to.deep.include({ blocked: { api: ['create'], mcp: ['delete', 'move_money'] }, version: 3 });

    const blocked = await api.call('POST', '/v1/taxes', { workspace: F, body: { name: 'Blocked', default_rate: '1' } });
    expect(blocked.status).to.equal(403);
    expect(blocked.body.error).to.deep.include({ code: 'SECURITY_BLOCKED', details: { channel: 'api', action: 'create' } });
    // Reads and other actions still pass; the Seguridad tab itself is never blocked.
    expect((await api.call('GET', '/v1/taxes', { workspace: F })).status).to.equal(200);
    await api.call('PATCH', '/v1/security-settings', { workspace: F, body: { blocked: { api: ['update'] } } });
    const unblock = await api.call('PATCH', '/v1/security-settings', { workspace: F, body: { blocked: { api: [] } } });
    expect(unblock.status).to.equal(200);
    expect((await api.call('POST', '/v1/taxes', { workspace: F, body: { name: 'Unblocked', default_rate: '1' } })).status).to.equal(201);
  });

  it('PATCH rejects unknown actions and channels with VALIDATION_ERROR', async () => {
    const res = await api.call('PATCH', '/v1/security-settings', { workspace: F, body: { blocked: { api: ['launch'], web: [] } } });
    expect(res.status).to.equal(400);
    const paths = res.body.error.details.issues.map((i: { path: string }) => i.path);
    expect(paths).to.include.members(['blocked.api[0]', 'blocked.web']);
  });

  it('needs the security scope and the admin permission', async () => {
    const scope = await api.call('PATCH', '/v1/security-settings', { token: await api.token('ana', 'finance.all'), workspace: F, body: { blocked: { api: [] } } });
    expect(scope.body.error.code).to.equal('insufficient_scope');
    const bruno = await api.call('GET', '/v1/security-settings', { token: await api.token('bruno', 'finance.all finance.security'), workspace: DEMO.workspaces.matriz });
    expect(bruno.body.error).to.deep.include({ code: 'insufficient_permission', details: { permission: 'security.view' } });
  });
});
