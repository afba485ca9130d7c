import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { breakCheckDigit, makeCnpj, makeCpf } from '../support/documents.js';
import { DEMO } from '../../helpers/index.js';

const M = DEMO.workspaces.matriz;

describe('people.* (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  it('POST /v1/people creates a natural person with a valid CPF', async () => {
    const cpf = makeCpf();
    const res = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'Maria', kind: 'natural', document_number: cpf, is_customer: true, emails: ['m@x.test'] } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.deep.include({ name: 'Maria', kind: 'natural', document_number: cpf, is_customer: true, is_supplier: false, emails: ['m@x.test'], version: 1 });
  });

  it('POST /v1/people rejects a CPF with a wrong check digit, and a CNPJ for a natural person', async () => {
    const bad = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'x', kind: 'natural', document_number: breakCheckDigit(makeCpf()) } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details.issues[0].path).to.equal('document_number');
    const mismatch = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'x', kind: 'natural', document_number: makeCnpj() } });
    expect(mismatch.status).to.equal(400);
    const badCnpj = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'x', kind: 'juridical', document_number: breakCheckDigit(makeCnpj()) } });
    expect(badCnpj.body.error.code).to.equal('VALIDATION_ERROR');
  });

  it('POST /v1/people answers CONFLICT for a document already used in the workspace', async () => {
    const cnpj = makeCnpj();
    expect((await api.call('POST', '/v1/people', { workspace: M, body: { name: 'A', kind: 'juridical', document_number: cnpj } })).status).to.equal(201);
    const res = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'B', kind: 'juridical', document_number: cnpj } });
    expect(res.status).to.equal(409);
  });

  it('PATCH /v1/people/:id answers CONFLICT when taking another person’s document', async () => {
    const cpf = makeCpf();
    await api.call('POST', '/v1/people', { workspace: M, body: { name: 'A', kind: 'natural', document_number: cpf } });
    const b = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'B', kind: 'natural' } });
    const res = await api.call('PATCH', `/v1/people/${b.body.id}`, { workspace: M, body: { document_number: cpf } });
    expect(res.status).to.equal(409);
    const ok = await api.call('PATCH', `/v1/people/${b.body.id}`, { workspace: M, body: { is_supplier: true, emails: [] } });
    expect(ok.body).to.include({ is_supplier: true, version: 2 });
  });

  it('DELETE /v1/people/:id is soft: hidden from get and list, document reusable', async () => {
    const cnpj = makeCnpj();
    const p = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'Gone', kind: 'juridical', document_number: cnpj } });
    expect((await api.call('DELETE', `/v1/people/${p.body.id}`, { workspace: M })).status).to.equal(204);
    expect((await api.call('GET', `/v1/people/${p.body.id}`, { workspace: M })).status).to.equal(404);
    expect((await api.call('DELETE', `/v1/people/${p.body.id}`, { workspace: M })).status).to.equal(404);
    const list = await api.call('GET', `/v1/people?document_number=${cnpj}`, { workspace: M });
    expect(list.body.data).to.deep.equal([]);
    const row = await api.app.services.db.selectFrom('people').select('deleted_at').where('workspace_id', '=', M).where('id', '=', p.body.id).executeTakeFirst();
    expect(row?.deleted_at).to.be.a('string');
    expect((await api.call('POST', '/v1/people', { workspace: M, body: { name: 'Again', kind: 'juridical', document_number: cnpj } })).status).to.equal(201);
  });

  it('GET /v1/people filters by name, is_supplier and kind', async () => {
    await api.call('POST', '/v1/people', { workspace: M, body: { name: 'Único Nome', kind: 'juridical', is_supplier: true } });
    const res = await api.call('GET', `/v1/people?name=${encodeURIComponent('Único Nome')}&is_supplier=true&kind=juridical`, { workspace: M });
    expect(res.status).to.equal(200);
    expect(res.body.data.map((p: { name: string }) => p.name)).to.deep.equal(['Único Nome']);
  });

  it('POST /v1/people rejects an invalid e-mail with VALIDATION_ERROR', async () => {
    const res = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'x', kind: 'natural', emails: ['not-an-email'] } });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.issues[0].path).to.equal('emails[0]');
  });
});
