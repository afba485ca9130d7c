import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { insertPayable, insertTransaction } from '../support/rows.js';
import { DEMO } from '../../helpers/index.js';

const M = DEMO.workspaces.matriz;

describe('accounts.* (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  async function createAccount(body: Record<string, unknown> = {}) {
    const res = await api.call('POST', '/v1/accounts', { workspace: M, body: { name: 'Conta Teste', type: 'checking', bank_code: '341', ...body } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  }

  it('POST /v1/accounts creates an account (201) with defaults', async () => {
    const account = await createAccount({ agency: '0001', account_number: '12345-6' });
    expect(account).to.include({ name: 'Conta Teste', type: 'checking', bank_code: '341', agency: '0001', account_number: '12345-6', active: true, version: 1 });
  });

  it('GET /v1/accounts/:id returns the signed balance (credits − debits)', async () => {
    const account = await createAccount();
    const db = api.app.services.db;
    await insertTransaction(db, M, account.id, 'credit', 10_050);
    await insertTransaction(db, M, account.id, 'debit', 20_001);
    const res = await api.call('GET', `/v1/accounts/${account.id}`, { workspace: M });
    expect(res.status).to.equal(200);
    expect(res.body.balance).to.equal('-99.51');
  });

  it('GET /v1/accounts/:id shows 0.00 for an account without transactions', async () => {
    const account = await createAccount();
    expect((await api.call('GET', `/v1/accounts/${account.id}`, { workspace: M })).body.balance).to.equal('0.00');
  });

  it('PATCH /v1/accounts/:id updates fields and version', async () => {
    const account = await createAccount();
    const res = await api.call('PATCH', `/v1/accounts/${account.id}`, { workspace: M, body: { active: false, bank_code: null } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ active: false, bank_code: null, version: 2 });
  });

  it('PATCH /v1/accounts/:id rejects an empty body (minProperties) with VALIDATION_ERROR', async () => {
    const account = await createAccount();
    const res = await api.call('PATCH', `/v1/accounts/${account.id}`, { workspace: M, body: {} });
    expect(res.status).to.equal(400);
    expect(res.body.error.code).to.equal('VALIDATION_ERROR');
  });

  it('DELETE /v1/accounts/:id deletes an unused account (204) and then it is NOT_FOUND', async () => {
    const account = await createAccount();
    const res = await api.call('DELETE', `/v1/accounts/${account.id}`, { workspace: M });
    expect(res.status).to.equal(204);
    expect(res.body).to.equal(undefined);
    expect((await api.call('GET', `/v1/accounts/${account.id}`, { workspace: M })).status).to.equal(404);
    expect((await api.call('DELETE', `/v1/accounts/${account.id}`, { workspace: M })).status).to.equal(404);
  });

  it('DELETE /v1/accounts/:id answers CONFLICT when the account has transactions', async () => {
    const account = await createAccount();
    await insertTransaction(api.app.services.db, M, account.id, 'credit', 100);
    const res = await api.call('DELETE', `/v1/accounts/${account.id}`, { workspace: M });
    expect(res.status).to.equal(409);
    expect(res.body.error.code).to.equal('CONFLICT');
  });

  it('DELETE /v1/accounts/:id answers CONFLICT when a payable names it as settlement account', async () => {
    const account = await createAccount();
    const db = api.app.services.db;
    const person = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'Fornecedor', kind: 'juridical' } });
    const payable = await insertPayable(db, M, person.body.id);
    await db.updateTable('titles').set({ financial_account_id: account.id }).where('workspace_id', '=', M).where('id', '=', payable).execute();
    expect((await api.call('DELETE', `/v1/accounts/${account.id}`, { workspace: M })).status).to.equal(409);
  });

  it('POST /v1/accounts rejects an unknown type with VALIDATION_ERROR', async () => {
    const res = await api.call('POST', '/v1/accounts', { workspace: M, body: { name: 'x', type: 'gold' } });
    expect(res.status).to.equal(400);
    expect(res.body.error.details.issues[0].path).to.equal('type');
  });

  it('GET /v1/accounts filters by type[in] and sorts by -name', async () => {
    await createAccount({ name: 'ZZZ Caixa', type: 'cash', bank_code: null });
    const res = await api.call('GET', '/v1/accounts?type[in]=cash,credit&sort=-name&limit=100', { workspace: M });
    expect(res.status).to.equal(200);
    const names = res.body.data.map((a: { name: string }) => a.name);
    expect(res.body.data.every((a: { type: string }) => a.type === 'cash' || a.type === 'credit')).to.equal(true);
    expect(names).to.include('ZZZ Caixa');
    // Collation differs between SQLite and PostgreSQL; the Z-name leads a descending list in both.
    expect(names[0]).to.equal('ZZZ Caixa');
  });
});
