import { expect } from 'chai';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { DEMO } from '../helpers/index.js';

describe('GET /v1/workspaces (smoke)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  it('lists the workspaces ana reaches', async () => {
    const res = await api.call('GET', '/v1/workspaces');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data.map((w: { id: string }) => w.id)).to.have.members([DEMO.workspaces.matriz, DEMO.workspaces.filial]);
    expect(res.body.meta).to.deep.equal({ next_cursor: null });
  });
});
