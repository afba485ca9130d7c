import { expect } from 'chai';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { makeCnpj, makeCpf } from '../api/support/documents.js';
import { DEMO } from '../helpers/index.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;

/** Every master-data operation, called in Matriz with ids created in Filial. */
const RESOURCES: { path: string; create: () => Record<string, unknown>; update: Record<string, unknown>; deletable: boolean }[] = [
  { path: 'companies', create: () => ({ cnpj: makeCnpj(), name: 'Filial Co' }), update: { name: 'x' }, deletable: false },
  { path: 'accounts', create: () => ({ name: 'Filial Acc', type: 'cash' }), update: { name: 'x' }, deletable: true },
  { path: 'categories', create: () => ({ name: 'Filial Cat', type: 'debit' }), update: { name: 'x' }, deletable: true },
  { path: 'cost_centers', create: () => ({ name: 'Filial CC', type: 'cost' }), update: { name: 'x' }, deletable: true },
  { path: 'people', create: () => ({ name: 'Filial Person', kind: 'natural', document_number: makeCpf() }), update: { name: 'x' }, deletable: true },
  { path: 'taxes', create: () => ({ name: `Filial Tax ${Math.random()}`, default_rate: '1' }), update: { name: 'x' }, deletable: true },
];

describe('/v1 cross-workspace isolation', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  for (const resource of RESOURCES) {
    it(`${resource.path}: get/update${resource.deletable ? '/delete' : ''} with a Filial id from Matriz answer NOT_FOUND, list never shows it`, async () => {
      const created = await api.call('POST', `/v1/${resource.path}`, { workspace: F, body: resource.create() });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.id as string;
      const get = await api.call('GET', `/v1/${resource.path}/${id}`, { workspace: M });
      expect(get.status).to.equal(404);
      expect(get.body.error.code).to.equal('NOT_FOUND');
      expect((await api.call('PATCH', `/v1/${resource.path}/${id}`, { workspace: M, body: resource.update })).status).to.equal(404);
      if (resource.deletable) expect((await api.call('DELETE', `/v1/${resource.path}/${id}`, { workspace: M })).status).to.equal(404);
      let cursor: string | null = null;
      do {
        const list = await api.call('GET', `/v1/${resource.path}?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { workspace: M });
        expect(list.status).to.equal(200);
        expect(list.body.data.map((r: { id: string }) => r.id)).not.to.include(id);
        cursor = list.body.meta.next_cursor;
      } while (cursor);
      // Untouched in its own workspace.
      const own = await api.call('GET', `/v1/${resource.path}/${id}`, { workspace: F });
      expect(own.status).to.equal(200);
      expect(own.body.version).to.equal(1);
    });
  }

  it("bruno cannot name Filial, which is not granted to him", async () => {
    const res = await api.call('GET', '/v1/companies', { token: await api.token('bruno', 'finance.all'), workspace: F });
    expect(res.status).to.equal(403);
  });

  it('activity of Filial writes is not listed in Matriz', async () => {
    const created = await api.call('POST', '/v1/cost_centers', { workspace: F, body: { name: 'Act', type: 'cost' } });
    const list = await api.call('GET', `/v1/activity?record_id=${created.body.id}`, { workspace: M });
    expect(list.body.data).to.deep.equal([]);
  });
});
