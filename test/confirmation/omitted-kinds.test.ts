/**
 * Issue 25 (review of Build 3): a confirmation sentence names the record the call acts on, never
 * a record of another kind the person may not read (docs/security.md#resources-touched): the
 * counterparty (people), the account (accounts), the titles a reconciliation links (payables,
 * receivables). Each describer is asked twice, by a person who may read those kinds and by one who
 * may not, over one app (SQLite and, with DATABASE_URL, PostgreSQL).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DEMO } from '../helpers/index.js';
import { okCaller, startRestApp, type RestApp } from '../api/support/rest-app.js';
import { buildSmallOfx } from '../api/support/coverage-requests.js';
import { loadFixtures, type Fixtures } from '../api/rules/support.js';
import { describerFor } from './support.js';
import type { Caller } from '../../src/api/context.js';

const M = DEMO.workspaces.matriz;
const ALL_WRITE = new Set(['finance.all.write', 'finance.money.write']);

function callerWith(permissions: readonly string[]): Caller {
  return {
    personId: DEMO.persons.bruno, organizationId: DEMO.organizationId, scopes: ALL_WRITE, tokenType: 'personal', channel: 'mcp',
    membership: { status: 'active', isAdmin: false, permissions: new Set(permissions), workspaceIds: [M], workspaceNames: DEMO.workspaceNames },
  };
}

describe(`confirmation sentences leave out the kinds the person may not read (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(60_000);
  let api: RestApp;
  let f: Fixtures;
  before(async () => {
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
  });
  after(async () => { await api?.close(); });

  const ok = (method: string, path: string, body?: unknown) => okCaller(api, M)(method, path, body);

  async function sentence(operationId: string, caller: Caller, path: Record<string, string>, body?: unknown): Promise<string> {
    const describe = describerFor(operationId);
    expect(describe, operationId).to.not.equal(undefined);
    const target = await describe!({ caller, db: api.app.services.db, workspaceId: M, input: { path, query: {}, ...(body === undefined ? {} : { body }) }, now: () => new Date() });
    return target.message;
  }

  const names = async (personId: string, accountId: string) => {
    const person = await ok('GET', `/v1/people/${personId}`);
    const account = await ok('GET', `/v1/accounts/${accountId}`);
    return { person: String(person.name), account: String(account.name) };
  };

  it('settling a payable: the vendor and the account are named only to a person who may read people and accounts', async () => {
    const payable = await ok('POST', '/v1/payables', { description: 'Conta de luz', amount: '10.00', due_date: '2026-12-10', person_id: f.vendorId, financial_account_id: f.accountId });
    const { person, account } = await names(f.vendorId, f.accountId);
    const paid = { payment_date: '2026-12-10' };
    const full = await sentence('payables.settle', callerWith(['payables.view', 'payables.settle', 'people.view', 'accounts.view']), { id: payable.id }, paid);
    expect(full).to.include(person).and.include(account).and.include('Conta de luz');
    const narrow = await sentence('payables.settle', callerWith(['payables.view', 'payables.settle']), { id: payable.id }, paid);
    expect(narrow).to.include('Conta de luz').and.include('R$ 10,00');
    expect(narrow).to.not.include(person).and.not.include(account);
  });

  it('deleting a transaction: the party and the account are left out without people.view and accounts.view', async () => {
    const tx = await ok('POST', '/v1/transactions', { type: 'debit', amount: '7.00', description: 'Café', occurred_at: '2026-12-01', financial_account_id: f.accountId, person_id: f.vendorId });
    const { person, account } = await names(f.vendorId, f.accountId);
    expect(await sentence('transactions.delete', callerWith(['transactions.view', 'transactions.delete', 'people.view', 'accounts.view']), { id: tx.id }))
      .to.include(person).and.include(account);
    const narrow = await sentence('transactions.delete', callerWith(['transactions.view', 'transactions.delete']), { id: tx.id });
    expect(narrow).to.include('Café').and.not.include(person).and.not.include(account);
  });

  it('undoing a reconciliation: the payable it settled is named only to a person who may read payables', async () => {
    const acc = await ok('POST', '/v1/accounts', { name: `Conciliação ${randomUUID().slice(0, 8)}`, type: 'checking' });
    const fitid = randomUUID();
    await ok('POST', `/v1/accounts/${acc.id}/statements`, { file_name: 'x.ofx', content_base64: buildSmallOfx(fitid, -1_234).toString('base64') });
    const lines = await ok('GET', `/v1/accounts/${acc.id}/statement-lines?status=unreconciled&limit=100`);
    const line = (lines.data as { id: string; fitid: string }[]).find((l) => l.fitid === fitid);
    const description = `Segredo ${randomUUID().slice(0, 8)}`;
    const payable = await ok('POST', '/v1/payables', { description, amount: '12.34', due_date: '2026-12-10', person_id: f.vendorId });
    const rec = await ok('POST', '/v1/reconciliations', { statement_line_ids: [line?.id], items: [{ type: 'payable', id: payable.id }] });
    const managers = ['reconciliations.view', 'reconciliations.manage', 'payables.settle', 'receivables.settle'];
    expect(await sentence('reconciliations.delete', callerWith([...managers, 'payables.view', 'receivables.view']), { id: rec.id })).to.include(description);
    expect(await sentence('reconciliations.delete', callerWith(managers), { id: rec.id })).to.not.include(description);
  });
});
