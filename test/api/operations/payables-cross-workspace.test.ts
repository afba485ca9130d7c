import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;

/** Every money operation, called in Matriz with record ids that live in Filial. */
describe('money operations across workspaces (REST)', () => {
  let api: RestApp;
  const ids: Record<string, string> = {};
  before(async () => {
    api = await startRestApp();
    const db = api.app.services.db;
    const pick = async (kind: 'payable' | 'receivable', status: string) => (await db.selectFrom('titles').select('id')
      .where('workspace_id', '=', F).where('kind', '=', kind).where('status', '=', status as 'pending').executeTakeFirstOrThrow()).id;
    ids['payablePending'] = await pick('payable', 'pending');
    ids['payablePaid'] = await pick('payable', 'paid');
    ids['receivablePending'] = await pick('receivable', 'pending');
    ids['receivableReceived'] = await pick('receivable', 'received');
    ids['transaction'] = (await db.selectFrom('transactions').select('id').where('workspace_id', '=', F).where('source', '=', 'manual').executeTakeFirstOrThrow()).id;
    ids['transfer'] = (await db.selectFrom('transfers').select('id').where('workspace_id', '=', F).executeTakeFirstOrThrow()).id;
    ids['person'] = (await db.selectFrom('people').select('id').where('workspace_id', '=', F).executeTakeFirstOrThrow()).id;
  });
  after(async () => { await api?.close(); });

  const calls: [string, string, () => string, unknown?][] = [];
  for (const [resource, pending, settled] of [['payables', 'payablePending', 'payablePaid'], ['receivables', 'receivablePending', 'receivableReceived']] as const) {
    calls.push(
      ['GET', `${resource}.get`, () => `/v1/${resource}/${ids[pending]}`],
      ['PATCH', `${resource}.update`, () => `/v1/${resource}/${ids[pending]}`, { notes: 'x' }],
      ['POST', `${resource}.settle`, () => `/v1/${resource}/${ids[pending]}/settle`, { payment_date: '2026-03-10' }],
      ['POST', `${resource}.reopen`, () => `/v1/${resource}/${ids[settled]}/reopen`],
      ['POST', `${resource}.cancel`, () => `/v1/${resource}/${ids[pending]}/cancel`],
      ['DELETE', `${resource}.delete`, () => `/v1/${resource}/${ids[pending]}`],
    );
  }
  calls.push(
    ['GET', 'transactions.get', () => `/v1/transactions/${ids['transaction']}`],
    ['PATCH', 'transactions.update', () => `/v1/transactions/${ids['transaction']}`, { description: 'x' }],
    ['DELETE', 'transactions.delete', () => `/v1/transactions/${ids['transaction']}`],
    ['GET', 'transfers.get', () => `/v1/transfers/${ids['transfer']}`],
  );

  for (const [method, operationId, path, body] of calls) {
    it(`${operationId} with an id of the other workspace answers 404 NOT_FOUND`, async () => {
      const res = await api.call(method, path(), { workspace: M, ...(body === undefined ? {} : { body }) });
      expect(res.status, JSON.stringify(res.body)).to.equal(404);
      expect(res.body.error.code).to.equal('NOT_FOUND');
    });
  }

  for (const list of ['payables', 'receivables', 'transactions']) {
    it(`${list}.list filtered by a person of the other workspace is empty`, async () => {
      const res = await api.call('GET', `/v1/${list}?person_id=${ids['person']}`, { workspace: M });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal([]);
    });
  }

  it('the Filial records are untouched afterwards', async () => {
    const res = await api.call('GET', `/v1/payables/${ids['payablePending']}`, { workspace: F });
    expect(res.body).to.include({ status: 'pending', version: 1 });
  });
});
