/**
 * accounts.create documents 409 but no REST test exercised it: an Idempotency-Key reused with
 * another body is CONFLICT and creates nothing. Other account statuses: operations/accounts.test.ts
 * and error-codes-all-routes.test.ts.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { DEMO } from '../helpers/index.js';
import { startRestApp, type RestApp } from './support/rest-app.js';

const M = DEMO.workspaces.matriz;

describe('accounts error codes not covered elsewhere (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  it('POST /v1/accounts answers 409 CONFLICT for an Idempotency-Key reused with another body, creating nothing', async () => {
    const headers = { 'idempotency-key': `acc-${randomUUID()}` };
    const name = `Conta ${randomUUID().slice(0, 8)}`;
    const first = await api.call('POST', '/v1/accounts', { workspace: M, headers, body: { name, type: 'cash' } });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const other = await api.call('POST', '/v1/accounts', { workspace: M, headers, body: { name: `${name} 2`, type: 'cash' } });
    expect(other.status, JSON.stringify(other.body)).to.equal(409);
    expect(other.body.error.code).to.equal('CONFLICT');
    const rows = await api.app.services.db.selectFrom('accounts').select('id').where('workspace_id', '=', M).where('name', '=', `${name} 2`).execute();
    expect(rows).to.deep.equal([]);
  });
});
