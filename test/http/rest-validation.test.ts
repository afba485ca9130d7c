import { expect } from 'chai';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { makeCnpj } from '../api/support/documents.js';
import { DEMO } from '../helpers/index.js';

const M = DEMO.workspaces.matriz;

describe('/v1 request validation', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  function expectValidation(res: { status: number; body: { error: { code: string; details?: { issues: { path: string }[] } } } }, paths?: string[]) {
    expect(res.status, JSON.stringify(res.body)).to.equal(400);
    expect(res.body.error.code).to.equal('VALIDATION_ERROR');
    if (paths) expect(res.body.error.details?.issues.map((i) => i.path)).to.include.members(paths);
  }

  it('answers VALIDATION_ERROR (400) for a body with the wrong Content-Type', async () => {
    const res = await api.call('POST', '/v1/taxes', { workspace: M, raw: 'name=x', contentType: 'application/x-www-form-urlencoded' });
    expectValidation(res, ['(body)']);
    const text = await api.call('POST', '/v1/taxes', { workspace: M, raw: '{"name":"x","default_rate":"1"}', contentType: 'text/plain' });
    expectValidation(text);
  });

  it('answers VALIDATION_ERROR with a clear message for malformed JSON', async () => {
    const res = await api.call('POST', '/v1/taxes', { workspace: M, raw: '{"name": "x",', contentType: 'application/json' });
    expectValidation(res, ['(body)']);
    expect(res.body.error.message).to.match(/not valid JSON/);
  });

  it('reports every failing field: unknown field, number where a string belongs, missing required', async () => {
    const res = await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj: 11222333000181, colour: 'zzqq-secret' } });
    expectValidation(res, ['cnpj', 'colour', 'name']);
    expect(JSON.stringify(res.body)).not.to.contain('zzqq-secret');
  });

  it('rejects a money string with three decimals and an impossible date before the operation runs', async () => {
    const res = await api.call('POST', '/v1/payables', {
      workspace: M,
      body: { description: 'x', amount: '10.123', due_date: '2026-02-30', person_id: '00000000-0000-4000-8000-0000000000aa' },
    });
    expectValidation(res, ['amount', 'due_date']);
  });

  it('rejects a malformed id in the path with VALIDATION_ERROR, never 500', async () => {
    const res = await api.call('GET', '/v1/companies/not-a-uuid', { workspace: M });
    expectValidation(res, ['id']);
  });

  it('rejects a required body that is missing', async () => {
    const res = await api.call('POST', '/v1/companies', { workspace: M });
    expectValidation(res, ['(root)']);
  });

  it('rejects a JSON body over 1 MB with 413', async () => {
    const res = await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj: makeCnpj(), name: 'x'.repeat(1024 * 1024 + 10) } });
    expect(res.status).to.equal(413);
    expect(res.body.error.code).to.equal('payload_too_large');
  });

  it('accepts application/json with a charset', async () => {
    const res = await api.call('POST', '/v1/companies', { workspace: M, raw: JSON.stringify({ cnpj: makeCnpj(), name: 'Charset' }), contentType: 'application/json; charset=utf-8' });
    expect(res.status).to.equal(201);
  });
});
