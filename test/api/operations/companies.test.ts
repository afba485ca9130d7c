import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { breakCheckDigit, makeCnpj } from '../support/documents.js';
import { DEMO } from '../../helpers/index.js';

const M = DEMO.workspaces.matriz;

describe('companies.* (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  it('POST /v1/companies creates a company with audit columns and version 1', async () => {
    const cnpj = makeCnpj();
    const res = await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj, name: 'Acme Ltda', trade_name: 'Acme' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.include({ cnpj, name: 'Acme Ltda', trade_name: 'Acme', active: true, version: 1 });
    expect(res.body).to.include({ created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'api', updated_via: 'api' });
    const got = await api.call('GET', `/v1/companies/${res.body.id}`, { workspace: M });
    expect(got.status).to.equal(200);
    expect(got.body).to.deep.equal(res.body);
  });

  it('POST /v1/companies rejects a CNPJ with wrong check digits with VALIDATION_ERROR', async () => {
    const bad = breakCheckDigit(makeCnpj());
    const res = await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj: bad, name: 'X' } });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    expect(res.body.error.details.issues[0].path).to.equal('cnpj');
    expect(JSON.stringify(res.body)).not.to.contain(bad);
  });

  it('POST /v1/companies answers CONFLICT for a CNPJ already in the workspace', async () => {
    const cnpj = makeCnpj();
    expect((await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj, name: 'A' } })).status).to.equal(201);
    const res = await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj, name: 'B' } });
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('CONFLICT');
  });

  it('POST /v1/companies accepts the same CNPJ in another workspace', async () => {
    const cnpj = makeCnpj();
    expect((await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj, name: 'A' } })).status).to.equal(201);
    expect((await api.call('POST', '/v1/companies', { workspace: DEMO.workspaces.filial, body: { cnpj, name: 'A' } })).status).to.equal(201);
  });

  it('PATCH /v1/companies/:id changes only given fields and increments version', async () => {
    const created = await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj: makeCnpj(), name: 'Old' } });
    const res = await api.call('PATCH', `/v1/companies/${created.body.id}`, { workspace: M, body: { name: 'New', active: false } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ name: 'New', active: false, cnpj: created.body.cnpj, version: 2 });
  });

  it('PATCH /v1/companies/:id answers CONFLICT when the new CNPJ is taken', async () => {
    const a = await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj: makeCnpj(), name: 'A' } });
    const b = await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj: makeCnpj(), name: 'B' } });
    const res = await api.call('PATCH', `/v1/companies/${b.body.id}`, { workspace: M, body: { cnpj: a.body.cnpj } });
    expect(res.status).to.equal(409);
  });

  it('GET/PATCH /v1/companies/:id answer NOT_FOUND for an unknown id', async () => {
    const id = '00000000-0000-4000-8000-0000000000ff';
    expect((await api.call('GET', `/v1/companies/${id}`, { workspace: M })).body.error.code).to.equal('NOT_FOUND');
    expect((await api.call('PATCH', `/v1/companies/${id}`, { workspace: M, body: { name: 'x' } })).status).to.equal(404);
  });

  it('GET /v1/companies filters by cnpj and active', async () => {
    const cnpj = makeCnpj();
    await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj, name: 'Filter Me', active: false } });
    const res = await api.call('GET', `/v1/companies?cnpj=${cnpj}`, { workspace: M });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.have.length(1);
    const inactive = await api.call('GET', '/v1/companies?active=false&limit=100', { workspace: M });
    expect(inactive.body.data.every((c: { active: boolean }) => c.active === false)).to.equal(true);
    expect(inactive.body.data.map((c: { cnpj: string }) => c.cnpj)).to.include(cnpj);
  });

  it('GET /v1/companies answers 403 insufficient_permission for bruno', async () => {
    const res = await api.call('GET', '/v1/companies', { token: await api.token('bruno', 'finance.all'), workspace: M });
    expect(res.status).to.equal(403);
    expect(res.body.error).to.deep.include({ code: 'insufficient_permission', details: { permission: 'companies.view' } });
  });

  it('POST /v1/companies answers 403 insufficient_scope for a read-only token', async () => {
    const res = await api.call('POST', '/v1/companies', { token: await api.token('ana', 'finance.all'), workspace: M, body: { cnpj: makeCnpj(), name: 'x' } });
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('insufficient_scope');
  });

  it('GET /v1/companies without a workspace answers workspace_required with the choices', async () => {
    const res = await api.call('GET', '/v1/companies');
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('workspace_required');
    expect(res.body.error.details.workspaces).to.have.length(2);
  });

  it('GET /v1/companies answers membership_inactive for carla', async () => {
    const res = await api.call('GET', '/v1/companies', { token: await api.token('carla', 'finance.all'), workspace: M });
    expect(res.status).to.equal(403);
    expect(res.body.error.code).to.equal('membership_inactive');
  });

  it('answers 401 without a token', async () => {
    const res = await api.call('GET', '/v1/companies', { token: 'not-a-token', workspace: M });
    expect(res.status).to.equal(401);
    expect(res.body.error.code).to.equal('unauthorized');
  });
});
