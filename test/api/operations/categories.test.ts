import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { insertPayable, insertTransaction } from '../support/rows.js';
import { DEMO } from '../../helpers/index.js';

const M = DEMO.workspaces.matriz;

describe('categories.* (REST)', () => {
  let api: RestApp;
  before(async () => { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  async function create(body: Record<string, unknown>) {
    return api.call('POST', '/v1/categories', { workspace: M, body });
  }

  it('POST /v1/categories builds three levels, computing level and inheriting the type', async () => {
    const root = await create({ name: 'Despesas', type: 'debit' });
    expect(root.status, JSON.stringify(root.body)).to.equal(201);
    expect(root.body).to.include({ level: 1, parent_id: null, type: 'debit' });
    const child = await create({ name: 'Pessoal', type: 'debit', parent_id: root.body.id });
    expect(child.body).to.include({ level: 2, parent_id: root.body.id, type: 'debit' });
    const leaf = await create({ name: 'Salários', type: 'debit', parent_id: child.body.id });
    expect(leaf.status).to.equal(201);
    expect(leaf.body.level).to.equal(3);
  });

  it('POST /v1/categories refuses a fourth level with UNPROCESSABLE_ENTITY', async () => {
    const l1 = await create({ name: 'A', type: 'credit' });
    const l2 = await create({ name: 'B', type: 'credit', parent_id: l1.body.id });
    const l3 = await create({ name: 'C', type: 'credit', parent_id: l2.body.id });
    const l4 = await create({ name: 'D', type: 'credit', parent_id: l3.body.id });
    expect(l4.status).to.equal(422);
    expect(l4.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
  });

  it("POST /v1/categories refuses a child whose type differs from its parent's", async () => {
    const root = await create({ name: 'Receitas', type: 'credit' });
    const res = await create({ name: 'Errada', type: 'debit', parent_id: root.body.id });
    expect(res.status).to.equal(422);
  });

  it('POST /v1/categories answers UNPROCESSABLE_ENTITY for a parent of another workspace, as for any unknown id in a body', async () => {
    const other = await api.call('POST', '/v1/categories', { workspace: DEMO.workspaces.filial, body: { name: 'Filial', type: 'debit' } });
    const res = await create({ name: 'x', type: 'debit', parent_id: other.body.id });
    expect(res.status).to.equal(422);
    expect(res.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
  });

  it('POST /v1/categories answers CONFLICT for an Idempotency-Key reused with another body', async () => {
    const key = `cat-${Date.now()}`;
    const first = await api.call('POST', '/v1/categories', { workspace: M, body: { name: 'K1', type: 'debit' }, headers: { 'idempotency-key': key } });
    expect(first.status).to.equal(201);
    const second = await api.call('POST', '/v1/categories', { workspace: M, body: { name: 'K2', type: 'debit' }, headers: { 'idempotency-key': key } });
    expect(second.status).to.equal(409);
  });

  it('PATCH /v1/categories/:id renames; type or parent are not accepted (VALIDATION_ERROR)', async () => {
    const root = await create({ name: 'Old', type: 'debit' });
    const res = await api.call('PATCH', `/v1/categories/${root.body.id}`, { workspace: M, body: { name: 'New' } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ name: 'New', version: 2, level: 1 });
    const bad = await api.call('PATCH', `/v1/categories/${root.body.id}`, { workspace: M, body: { type: 'credit' } });
    expect(bad.status).to.equal(400);
    expect(bad.body.error.details.issues.map((i: { path: string }) => i.path)).to.include('type');
  });

  it('DELETE /v1/categories/:id with children answers UNPROCESSABLE_ENTITY', async () => {
    const root = await create({ name: 'P', type: 'debit' });
    await create({ name: 'C', parent_id: root.body.id, type: 'debit' });
    const res = await api.call('DELETE', `/v1/categories/${root.body.id}`, { workspace: M });
    expect(res.status).to.equal(422);
  });

  it('DELETE /v1/categories/:id in use by a payable or a transaction answers CONFLICT', async () => {
    const db = api.app.services.db;
    const a = await create({ name: 'Used by payable', type: 'debit' });
    const person = await api.call('POST', '/v1/people', { workspace: M, body: { name: 'F', kind: 'juridical' } });
    await insertPayable(db, M, person.body.id, { category_id: a.body.id });
    expect((await api.call('DELETE', `/v1/categories/${a.body.id}`, { workspace: M })).status).to.equal(409);
    const b = await create({ name: 'Used by transaction', type: 'debit' });
    const account = await api.call('POST', '/v1/accounts', { workspace: M, body: { name: 'Acc', type: 'cash' } });
    await insertTransaction(db, M, account.body.id, 'debit', 100, { category_id: b.body.id });
    expect((await api.call('DELETE', `/v1/categories/${b.body.id}`, { workspace: M })).status).to.equal(409);
  });

  it('DELETE /v1/categories/:id removes an unused leaf (204)', async () => {
    const leaf = await create({ name: 'Leaf', type: 'debit' });
    expect((await api.call('DELETE', `/v1/categories/${leaf.body.id}`, { workspace: M })).status).to.equal(204);
    expect((await api.call('GET', `/v1/categories/${leaf.body.id}`, { workspace: M })).status).to.equal(404);
  });

  it('GET /v1/categories filters by level[lte], parent_id and type', async () => {
    const root = await create({ name: 'Filterable', type: 'credit' });
    await create({ name: 'Kid', type: 'credit', parent_id: root.body.id });
    const kids = await api.call('GET', `/v1/categories?parent_id=${root.body.id}`, { workspace: M });
    expect(kids.body.data.map((c: { name: string }) => c.name)).to.deep.equal(['Kid']);
    const top = await api.call('GET', '/v1/categories?level[lte]=1&type=credit&limit=100', { workspace: M });
    expect(top.body.data.every((c: { level: number; type: string }) => c.level === 1 && c.type === 'credit')).to.equal(true);
  });
});
