/**
 * Balances stay renderable (issue 13 finding 4): a write that would take an account's balance
 * past ±999,999,999,999.99 is UNPROCESSABLE_ENTITY and leaves nothing behind, and an account
 * already past it (legacy data, 92 maximum credits) still answers GET and PATCH exactly.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { loadFixtures } from './rules/support.js';
import { DEMO } from '../helpers/index.js';

const M = DEMO.workspaces.matriz;
const MAX = '999999999999.99';
const MAX_CENTS = 99_999_999_999_999;

describe('account balance bound', function () {
  let api: RestApp;
  before(async function () { api = await startRestApp(); });
  after(async () => { await api?.close(); });

  async function createAccount(name: string): Promise<string> {
    const res = await api.call('POST', '/v1/accounts', { workspace: M, body: { name, type: 'checking' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id as string;
  }

  function move(accountId: string, type: 'credit' | 'debit', amount: string) {
    return api.call('POST', '/v1/transactions', {
      workspace: M, body: { financial_account_id: accountId, type, amount, occurred_at: '2026-03-01' },
    });
  }

  async function balanceOf(accountId: string): Promise<string> {
    const res = await api.call('GET', `/v1/accounts/${accountId}`, { workspace: M });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.balance as string;
  }

  it('accepts a balance at the bound and refuses the cent past it, both ways', async function () {
    const id = await createAccount(`Bound ${randomUUID()}`);
    expect((await move(id, 'credit', MAX)).status).to.equal(201);
    const over = await move(id, 'credit', '0.01');
    expect(over.status, JSON.stringify(over.body)).to.equal(422);
    expect(over.body.error).to.deep.include({ code: 'UNPROCESSABLE_ENTITY', details: { financial_account_id: id } });
    expect(await balanceOf(id)).to.equal(MAX);

    const negative = await createAccount(`Bound ${randomUUID()}`);
    expect((await move(negative, 'debit', MAX)).status).to.equal(201);
    expect((await move(negative, 'debit', '0.01')).status).to.equal(422);
    expect(await balanceOf(negative)).to.equal(`-${MAX}`);
  });

  it('refuses a transfer that would take the destination past the bound, writing neither leg', async function () {
    const from = await createAccount(`From ${randomUUID()}`);
    const to = await createAccount(`To ${randomUUID()}`);
    expect((await move(to, 'credit', MAX)).status).to.equal(201);
    const res = await api.call('POST', '/v1/transfers', {
      workspace: M, body: { from_account_id: from, to_account_id: to, amount: '1.00', occurred_at: '2026-03-02' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(422);
    expect(res.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
    expect(await balanceOf(from)).to.equal('0.00');
    expect(await balanceOf(to)).to.equal(MAX);
  });

  it('refuses re-pricing or removing a transaction when the result would be out of bounds', async function () {
    const id = await createAccount(`Edit ${randomUUID()}`);
    const credit = await move(id, 'credit', '999999999999.00');
    const debit = await move(id, 'debit', '5.00');
    expect([credit.status, debit.status]).to.deep.equal([201, 201]);
    const raise = await api.call('PATCH', `/v1/transactions/${credit.body.id}`, { workspace: M, body: { amount: MAX } });
    expect(raise.status, JSON.stringify(raise.body)).to.equal(200);
    const topUp = await move(id, 'credit', '5.00');
    expect(topUp.status).to.equal(201);
    expect(await balanceOf(id)).to.equal(MAX);
    // Removing the debit raises the balance by 5.00; re-pricing the top-up by a cent raises it too.
    const remove = await api.call('DELETE', `/v1/transactions/${debit.body.id}`, { workspace: M });
    expect(remove.status, JSON.stringify(remove.body)).to.equal(422);
    const reprice = await api.call('PATCH', `/v1/transactions/${topUp.body.id}`, { workspace: M, body: { amount: '5.01' } });
    expect(reprice.status, JSON.stringify(reprice.body)).to.equal(422);
    expect(await balanceOf(id)).to.equal(MAX);
  });

  it('refuses a settlement that would take the account past the bound, and one whose interest makes the paid amount unrenderable', async function () {
    const { customerId } = await loadFixtures(api.app.services.db, M);
    const id = await createAccount(`Settle ${randomUUID()}`);
    expect((await move(id, 'credit', MAX)).status).to.equal(201);
    const receivable = await api.call('POST', '/v1/receivables', {
      workspace: M, body: { description: 'Over the bound', amount: '1.00', due_date: '2026-03-10', person_id: customerId, financial_account_id: id },
    });
    expect(receivable.status, JSON.stringify(receivable.body)).to.equal(201);
    const settle = await api.call('POST', `/v1/receivables/${receivable.body.id}/settle`, { workspace: M, body: { payment_date: '2026-03-10' } });
    expect(settle.status, JSON.stringify(settle.body)).to.equal(422);
    expect(settle.body.error).to.deep.include({ code: 'UNPROCESSABLE_ENTITY', details: { financial_account_id: id } });
    const after = await api.call('GET', `/v1/receivables/${receivable.body.id}`, { workspace: M });
    expect(after.body.status).to.equal('pending');
    expect(await balanceOf(id)).to.equal(MAX);

    const other = await createAccount(`Interest ${randomUUID()}`);
    const big = await api.call('POST', '/v1/receivables', {
      workspace: M, body: { description: 'Huge interest', amount: MAX, due_date: '2026-03-10', person_id: customerId, financial_account_id: other },
    });
    expect(big.status, JSON.stringify(big.body)).to.equal(201);
    const huge = await api.call('POST', `/v1/receivables/${big.body.id}/settle`, { workspace: M, body: { payment_date: '2026-03-10', interest_amount: '1.00' } });
    expect(huge.status, JSON.stringify(huge.body)).to.equal(400);
    expect(huge.body.error.code).to.equal('VALIDATION_ERROR');
    expect(await balanceOf(other)).to.equal('0.00');
  });

  it('renders an account already past the bound (legacy: 92 maximum credits) on GET and PATCH, never 500', async function () {
    const id = await createAccount(`Legacy ${randomUUID()}`);
    const now = new Date().toISOString();
    const rows = Array.from({ length: 92 }, () => ({
      id: randomUUID(), workspace_id: M, financial_account_id: id, type: 'credit' as const, amount_cents: MAX_CENTS,
      occurred_at: '2026-03-01', description: null, category_id: null, person_id: null, source: 'manual' as const, source_id: null,
      created_at: now, updated_at: now, created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'api' as const, updated_via: 'api' as const, version: 1,
    }));
    await api.app.services.db.insertInto('transactions').values(rows).execute();
    // 9,199,999,999,999,908 cents: past Number.MAX_SAFE_INTEGER (9,007,199,254,740,991), rendered exactly.
    const want = '91999999999999.08';
    expect(await balanceOf(id)).to.equal(want);
    const patch = await api.call('PATCH', `/v1/accounts/${id}`, { workspace: M, body: { name: `Legacy renamed ${randomUUID()}` } });
    expect(patch.status, JSON.stringify(patch.body)).to.equal(200);
    expect(patch.body.balance).to.equal(want);
  });
});
