import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';

describe('workspaces.list (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  it('lists the granted workspaces with organization_id, sorted by name, without a workspace', async () => {
    const res = await api.call('GET', '/v1/workspaces');
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal([
      { id: DEMO.workspaces.filial, name: 'Filial', organization_id: DEMO.organizationId },
      { id: DEMO.workspaces.matriz, name: 'Matriz', organization_id: DEMO.organizationId },
    ]);
  });

  it('pages with limit and cursor, sorts descending, and honours fields', async () => {
    const first = await api.call('GET', '/v1/workspaces?limit=1&sort=-name&fields=name');
    expect(first.body.data).to.deep.equal([{ id: DEMO.workspaces.matriz, name: 'Matriz' }]);
    const second = await api.call(`GET`, `/v1/workspaces?limit=1&sort=-name&fields=name&cursor=${first.body.meta.next_cursor}`);
    expect(second.body.data).to.deep.equal([{ id: DEMO.workspaces.filial, name: 'Filial' }]);
    expect(second.body.meta.next_cursor).to.equal(null);
  });

  it('answers BAD_REQUEST for an unknown field and VALIDATION_ERROR for a cursor of another sort', async () => {
    expect((await api.call('GET', '/v1/workspaces?fields=color')).body.error.code).to.equal('BAD_REQUEST');
    const first = await api.call('GET', '/v1/workspaces?limit=1');
    const res = await api.call('GET', `/v1/workspaces?sort=-name&cursor=${first.body.meta.next_cursor}`);
    expect(res.body.error.code).to.equal('VALIDATION_ERROR');
  });

  it('lists bruno his own workspace although he lacks workspaces.view: it needs no permission (issue 27, item 2)', async () => {
    const res = await api.call('GET', '/v1/workspaces', { token: await api.token('bruno', 'finance.payables') });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.deep.equal([{ id: DEMO.workspaces.matriz, name: 'Matriz', organization_id: DEMO.organizationId }]);
  });
});
