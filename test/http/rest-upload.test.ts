import { expect } from 'chai';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { DEMO } from '../helpers/index.js';

const M = DEMO.workspaces.matriz;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');

describe('POST /v1/attachments (multipart through the REST adapter)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  async function upload(form: FormData) {
    const res = await fetch(`${api.url}/v1/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await api.token('ana')}`, 'x-workspace-id': M },
      body: form,
    });
    return { status: res.status, body: await res.json() };
  }

  it('uploads a multipart file and downloads it with RFC 6266 headers', async () => {
    const form = new FormData();
    form.append('file', new Blob([PDF], { type: 'application/pdf' }), 'Nota Fiscal.pdf');
    form.append('title', 'NF');
    const created = await upload(form);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const res = await fetch(`${api.url}/v1/attachments/${created.body.id}/download`, {
      headers: { authorization: `Bearer ${await api.token('ana')}`, 'x-workspace-id': M },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pdf');
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
    expect(res.headers.get('content-disposition')).to.equal(`inline; filename="Nota Fiscal.pdf"; filename*=UTF-8''Nota%20Fiscal.pdf`);
    expect(Buffer.from(await res.arrayBuffer()).equals(PDF)).to.equal(true);
  });

  it('answers VALIDATION_ERROR for a multipart body without a file', async () => {
    const form = new FormData();
    form.append('title', 'no file');
    const res = await upload(form);
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('VALIDATION_ERROR');
  });

  it('accepts the JSON form of the upload on the same route; a UTF-8 name downloads with filename*', async () => {
    const res = await api.call('POST', '/v1/attachments', {
      workspace: M, body: { file_name: 'ção.csv', content_type: 'text/csv', content_base64: Buffer.from('a,b\n').toString('base64') },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const file = await fetch(`${api.url}/v1/attachments/${res.body.id}/download`, {
      headers: { authorization: `Bearer ${await api.token('ana')}`, 'x-workspace-id': M },
    });
    expect(file.headers.get('content-disposition')).to.equal(`attachment; filename="cao.csv"; filename*=UTF-8''%C3%A7%C3%A3o.csv`);
  });
});
