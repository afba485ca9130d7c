import { expect } from 'chai';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { DEMO } from '../../../src/seed/ids.js';
import { describeTitleForConfirmation } from '../../../src/api/rules/titles.js';
import { codeOf, loadFixtures, runOperation, type Fixtures } from './support.js';

type Json = Record<string, unknown>;

describe('title rules (payables and receivables)', () => {
  let t: TestDatabase;
  let f: Fixtures;
  let filial: Fixtures;

  before(async () => {
    t = await openTestDatabase();
    f = await loadFixtures(t.db);
    filial = await loadFixtures(t.db, DEMO.workspaces.filial);
  });
  after(async () => t.close());

  const payable = (extra: Json = {}): Json => ({ description: 'Aluguel março', amount: '100.00', due_date: '2026-03-10', person_id: f.vendorId, ...extra });
  const create = async (extra: Json = {}, op = 'payables.create'): Promise<Json> =>
    (await runOperation(t.db, op, { body: op.startsWith('payables') ? payable(extra) : { ...payable(extra), person_id: f.customerId, ...extra } })).body as Json;

  describe('payables.create', () => {
    it('creates a pending payable with defaults, audit columns and an activity entry', async () => {
      const out = await runOperation(t.db, 'payables.create', { body: payable({ category_id: f.debitCategoryId, financial_account_id: f.accountId }) });
      expect(out.outcome).to.equal('created');
      const body = out.body as Json;
      expect(body).to.include({ status: 'pending', amount: '100.00', competence_date: '2026-03-10', version: 1, created_via: 'api', attachments_count: 0, paid_amount: null, transaction_id: null });
      expect(body['created_by']).to.equal(DEMO.persons.ana);
      const activity = await t.db.selectFrom('activity').selectAll().where('workspace_id', '=', DEMO.workspaces.matriz).where('record_id', '=', body['id'] as string).execute();
      expect(activity.map((a) => a.operation)).to.deep.equal(['payables.create']);
    });

    it('splits 3 × 33.33% of 100.00 into 33.33, 33.33 and 33.34', async () => {
      const centers = [f.costCenters.cost, f.costCenters.both];
      const cost2 = (await t.db.selectFrom('cost_centers').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).where('type', '=', 'cost').execute()).map((r) => r.id).find((id) => id !== f.costCenters.cost) as string;
      const body = await create({ cost_center_allocations: [centers[0], centers[1], cost2].map((id) => ({ cost_center_id: id, percentage: '33.33' })) });
      expect((body['cost_center_allocations'] as Json[]).map((a) => a['amount'])).to.deep.equal(['33.33', '33.33', '33.34']);
      expect((body['cost_center_allocations'] as Json[])[0]).to.include({ percentage: '33.33' });
    });

    const rejections: { name: string; body: () => Json; want: string }[] = [
      { name: 'a credit category', body: () => payable({ category_id: f.creditCategoryId }), want: 'UNPROCESSABLE_ENTITY' },
      { name: 'a person of the other workspace', body: () => payable({ person_id: filial.vendorId }), want: 'UNPROCESSABLE_ENTITY' },
      { name: 'an account of the other workspace', body: () => payable({ financial_account_id: filial.accountId }), want: 'UNPROCESSABLE_ENTITY' },
      { name: 'a revenue cost center', body: () => payable({ cost_center_allocations: [{ cost_center_id: f.costCenters.revenue, percentage: 100 }] }), want: 'UNPROCESSABLE_ENTITY' },
      { name: 'a cost center of the other workspace', body: () => payable({ cost_center_allocations: [{ cost_center_id: filial.costCenters.cost, percentage: 100 }] }), want: 'UNPROCESSABLE_ENTITY' },
      { name: 'allocations that do not add up', body: () => payable({ cost_center_allocations: [{ cost_center_id: f.costCenters.cost, amount: '60.00' }, { cost_center_id: f.costCenters.both, amount: '39.98' }] }), want: 'UNPROCESSABLE_ENTITY' },
      { name: 'an allocation with both percentage and amount', body: () => payable({ cost_center_allocations: [{ cost_center_id: f.costCenters.cost, percentage: 100, amount: '100.00' }] }), want: 'VALIDATION_ERROR' },
      { name: 'an amount with three decimals', body: () => payable({ amount: 10.005 }), want: 'VALIDATION_ERROR' },
    ];
    for (const { name, body, want } of rejections) {
      it(`rejects ${name} with ${want}`, async () => {
        expect(await codeOf(runOperation(t.db, 'payables.create', { body: body() }))).to.equal(want);
      });
    }

    it('rejects a soft-deleted person with UNPROCESSABLE_ENTITY', async () => {
      const person = await t.db.selectFrom('people').selectAll().where('workspace_id', '=', DEMO.workspaces.matriz).where('id', '!=', f.vendorId).where('is_supplier', '=', 1).executeTakeFirstOrThrow();
      await t.db.updateTable('people').set({ deleted_at: new Date().toISOString() }).where('workspace_id', '=', DEMO.workspaces.matriz).where('id', '=', person.id).execute();
      expect(await codeOf(runOperation(t.db, 'payables.create', { body: payable({ person_id: person.id }) }))).to.equal('UNPROCESSABLE_ENTITY');
    });
  });

  describe('receivables.create', () => {
    it('accepts credit categories and revenue centers', async () => {
      const body = await create({ category_id: f.creditCategoryId, cost_center_allocations: [{ cost_center_id: f.costCenters.revenue, amount: '100' }] }, 'receivables.create');
      expect(body['status']).to.equal('pending');
      expect(body['cost_center_allocations']).to.deep.equal([{ cost_center_id: f.costCenters.revenue, percentage: null, amount: '100.00' }]);
    });
    it('rejects a debit category and a cost center with UNPROCESSABLE_ENTITY', async () => {
      expect(await codeOf(runOperation(t.db, 'receivables.create', { body: { ...payable(), person_id: f.customerId, category_id: f.debitCategoryId } }))).to.equal('UNPROCESSABLE_ENTITY');
      expect(await codeOf(runOperation(t.db, 'receivables.create', { body: { ...payable(), person_id: f.customerId, cost_center_allocations: [{ cost_center_id: f.costCenters.cost, percentage: 100 }] } }))).to.equal('UNPROCESSABLE_ENTITY');
    });
  });

  describe('payables.get', () => {
    it('returns NOT_FOUND for an id of the other workspace and for a receivable id', async () => {
      const mine = await create();
      expect(await codeOf(runOperation(t.db, 'payables.get', { path: { id: mine['id'] as string } }, { workspaceId: DEMO.workspaces.filial }))).to.equal('NOT_FOUND');
      const receivable = await create({ person_id: f.customerId }, 'receivables.create');
      expect(await codeOf(runOperation(t.db, 'payables.get', { path: { id: receivable['id'] as string } }))).to.equal('NOT_FOUND');
      expect(await codeOf(runOperation(t.db, 'payables.get', { path: { id: 'not-a-uuid' } }))).to.equal('NOT_FOUND');
    });
    it('reports overdue for a pending payable due before today', async () => {
      const body = await create({ due_date: '2020-01-01' });
      expect(body['overdue']).to.equal(true);
      const future = await create({ due_date: '2999-01-01' });
      expect(future['overdue']).to.equal(false);
    });
  });

  describe('payables.update', () => {
    it('recomputes percentage splits when the amount changes, keeps them when absent and clears them with []', async () => {
      const made = await create({ cost_center_allocations: [{ cost_center_id: f.costCenters.cost, percentage: '50' }, { cost_center_id: f.costCenters.both, percentage: '50' }] });
      const id = made['id'] as string;
      const updated = (await runOperation(t.db, 'payables.update', { path: { id }, body: { amount: '10.01' } })).body as Json;
      expect((updated['cost_center_allocations'] as Json[]).map((a) => a['amount'])).to.deep.equal(['5.01', '5.00']);
      expect(updated['version']).to.equal(2);
      const kept = (await runOperation(t.db, 'payables.update', { path: { id }, body: { notes: 'x' } })).body as Json;
      expect(kept['cost_center_allocations']).to.have.length(2);
      const cleared = (await runOperation(t.db, 'payables.update', { path: { id }, body: { cost_center_allocations: [] } })).body as Json;
      expect(cleared['cost_center_allocations']).to.deep.equal([]);
      expect(cleared['version']).to.equal(4);
    });
    it('rejects an amount change that breaks a fixed-amount split with UNPROCESSABLE_ENTITY', async () => {
      const made = await create({ cost_center_allocations: [{ cost_center_id: f.costCenters.cost, amount: '100.00' }] });
      expect(await codeOf(runOperation(t.db, 'payables.update', { path: { id: made['id'] as string }, body: { amount: '90.00' } }))).to.equal('UNPROCESSABLE_ENTITY');
    });
    it('rejects editing a paid payable with UNPROCESSABLE_ENTITY and a missing one with NOT_FOUND', async () => {
      const made = await create({ financial_account_id: f.accountId });
      await runOperation(t.db, 'payables.settle', { path: { id: made['id'] as string }, body: { payment_date: '2026-03-09' } });
      expect(await codeOf(runOperation(t.db, 'payables.update', { path: { id: made['id'] as string }, body: { notes: 'x' } }))).to.equal('UNPROCESSABLE_ENTITY');
      expect(await codeOf(runOperation(t.db, 'payables.update', { path: { id: made['id'] as string }, body: { notes: 'x' } }, { workspaceId: DEMO.workspaces.filial }))).to.equal('NOT_FOUND');
    });
  });

  describe('payables.settle and payables.reopen', () => {
    it('settles into exactly one linked debit transaction of amount + interest − discount, and reopen removes it', async () => {
      const made = await create({ amount: '1000.00' });
      const id = made['id'] as string;
      const settled = (await runOperation(t.db, 'payables.settle', { path: { id }, body: { payment_date: '2026-03-12', financial_account_id: f.accountId, interest_amount: '12.30', discount_amount: 2 } })).body as Json;
      expect(settled).to.include({ status: 'paid', payment_date: '2026-03-12', paid_amount: '1010.30', interest_amount: '12.30', discount_amount: '2.00', financial_account_id: f.accountId, version: 2 });
      const txs = await t.db.selectFrom('transactions').selectAll().where('workspace_id', '=', DEMO.workspaces.matriz).where('source_id', '=', id).execute();
      expect(txs).to.have.length(1);
      expect(txs[0]).to.include({ id: settled['transaction_id'], type: 'debit', source: 'settlement', occurred_at: '2026-03-12', financial_account_id: f.accountId });
      expect(Number(txs[0]?.amount_cents)).to.equal(101_030);

      expect(await codeOf(runOperation(t.db, 'payables.settle', { path: { id }, body: { payment_date: '2026-03-12' } }))).to.equal('UNPROCESSABLE_ENTITY');
      const reopened = (await runOperation(t.db, 'payables.reopen', { path: { id } })).body as Json;
      expect(reopened).to.include({ status: 'pending', payment_date: null, paid_amount: null, transaction_id: null, version: 3 });
      expect(await t.db.selectFrom('transactions').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).where('source_id', '=', id).execute()).to.have.length(0);
      expect(await codeOf(runOperation(t.db, 'payables.reopen', { path: { id } }))).to.equal('UNPROCESSABLE_ENTITY');
    });
    it('rejects a settlement without any account with UNPROCESSABLE_ENTITY', async () => {
      const made = await create();
      expect(await codeOf(runOperation(t.db, 'payables.settle', { path: { id: made['id'] as string }, body: { payment_date: '2026-03-12' } }))).to.equal('UNPROCESSABLE_ENTITY');
    });
    it('rejects a discount that swallows the amount and an account of the other workspace with UNPROCESSABLE_ENTITY', async () => {
      const made = await create({ financial_account_id: f.accountId });
      const id = made['id'] as string;
      expect(await codeOf(runOperation(t.db, 'payables.settle', { path: { id }, body: { payment_date: '2026-03-12', discount_amount: '100.00' } }))).to.equal('UNPROCESSABLE_ENTITY');
      expect(await codeOf(runOperation(t.db, 'payables.settle', { path: { id }, body: { payment_date: '2026-03-12', financial_account_id: filial.accountId } }))).to.equal('UNPROCESSABLE_ENTITY');
    });
    it('settles a receivable as received with a credit transaction', async () => {
      const made = await create({ person_id: f.customerId, financial_account_id: f.accountId }, 'receivables.create');
      const settled = (await runOperation(t.db, 'receivables.settle', { path: { id: made['id'] as string }, body: { payment_date: '2026-03-12' } })).body as Json;
      expect(settled['status']).to.equal('received');
      const tx = await t.db.selectFrom('transactions').selectAll().where('workspace_id', '=', DEMO.workspaces.matriz).where('id', '=', settled['transaction_id'] as string).executeTakeFirstOrThrow();
      expect(tx.type).to.equal('credit');
    });
    it('lets exactly one of 20 concurrent settlements win', async () => {
      const made = await create({ financial_account_id: f.accountId });
      const id = made['id'] as string;
      const results = await Promise.all(Array.from({ length: 20 }, () => codeOf(runOperation(t.db, 'payables.settle', { path: { id }, body: { payment_date: '2026-03-12' } }))));
      expect(results.filter((r) => r === 'ok')).to.have.length(1);
      expect(results.filter((r) => r !== 'ok').every((r) => r === 'UNPROCESSABLE_ENTITY')).to.equal(true);
      expect(await t.db.selectFrom('transactions').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).where('source_id', '=', id).execute()).to.have.length(1);
    });
  });

  describe('payables.cancel and payables.delete', () => {
    it('cancels a pending payable once, then refuses cancel and settle with UNPROCESSABLE_ENTITY', async () => {
      const made = await create({ financial_account_id: f.accountId });
      const id = made['id'] as string;
      expect(((await runOperation(t.db, 'payables.cancel', { path: { id } })).body as Json)['status']).to.equal('cancelled');
      expect(await codeOf(runOperation(t.db, 'payables.cancel', { path: { id } }))).to.equal('UNPROCESSABLE_ENTITY');
      expect(await codeOf(runOperation(t.db, 'payables.settle', { path: { id }, body: { payment_date: '2026-03-12' } }))).to.equal('UNPROCESSABLE_ENTITY');
      expect(await codeOf(runOperation(t.db, 'payables.cancel', { path: { id } }, { workspaceId: DEMO.workspaces.filial }))).to.equal('NOT_FOUND');
    });
    it('deletes a paid payable with its split, settlement transaction and attachment links', async () => {
      const made = await create({ financial_account_id: f.accountId, cost_center_allocations: [{ cost_center_id: f.costCenters.cost, percentage: 100 }] });
      const id = made['id'] as string;
      const settled = (await runOperation(t.db, 'payables.settle', { path: { id }, body: { payment_date: '2026-03-12' } })).body as Json;
      const attachment = await t.db.selectFrom('attachments').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).executeTakeFirstOrThrow();
      await t.db.insertInto('attachment_links').values({ id: crypto.randomUUID(), workspace_id: DEMO.workspaces.matriz, attachment_id: attachment.id, parent_type: 'payable', parent_id: id, created_at: new Date().toISOString(), created_by: DEMO.persons.ana }).execute();
      expect(((await runOperation(t.db, 'payables.get', { path: { id } })).body as Json)['attachments_count']).to.equal(1);
      expect(await codeOf(runOperation(t.db, 'payables.delete', { path: { id } }, { workspaceId: DEMO.workspaces.filial }))).to.equal('NOT_FOUND');
      expect((await runOperation(t.db, 'payables.delete', { path: { id } })).outcome).to.equal('deleted');
      const ws = DEMO.workspaces.matriz;
      expect(await t.db.selectFrom('titles').select('id').where('workspace_id', '=', ws).where('id', '=', id).execute()).to.have.length(0);
      expect(await t.db.selectFrom('transactions').select('id').where('workspace_id', '=', ws).where('id', '=', settled['transaction_id'] as string).execute()).to.have.length(0);
      expect(await t.db.selectFrom('allocations').select('id').where('workspace_id', '=', ws).where('parent_id', '=', id).execute()).to.have.length(0);
      expect(await t.db.selectFrom('attachment_links').select('id').where('workspace_id', '=', ws).where('parent_id', '=', id).execute()).to.have.length(0);
      expect(await codeOf(runOperation(t.db, 'payables.get', { path: { id } }))).to.equal('NOT_FOUND');
    });
  });

  describe('payables.list', () => {
    const list = (filters: Json, extra: Json = {}, workspaceId?: string) =>
      runOperation(t.db, 'payables.list', { list: { limit: 100, filters: filters as never, ...extra } }, workspaceId ? { workspaceId } : {});
    it('filters pending payables due this week, sorted by due date', async () => {
      const today = new Date().toISOString().slice(0, 10);
      const week = new Date(Date.now() + 6 * 86_400_000).toISOString().slice(0, 10);
      const page = (await list({ status: { eq: 'pending' }, due_date: { gte: today, lte: week } })).body as { data: Json[] };
      expect(page.data.length).to.be.greaterThan(0);
      for (const p of page.data) expect(p['status']).to.equal('pending');
      const dates = page.data.map((p) => p['due_date'] as string);
      expect(dates).to.deep.equal([...dates].sort());
    });
    it('filters overdue payables and returns only the requested fields', async () => {
      const page = (await list({ overdue: { eq: 'true' } }, { fields: ['amount', 'overdue'] })).body as { data: Json[] };
      expect(page.data.length).to.be.greaterThan(0);
      for (const p of page.data) expect(Object.keys(p).sort()).to.deep.equal(['amount', 'id', 'overdue']);
      for (const p of page.data) expect(p['overdue']).to.equal(true);
    });
    it('pages with a cursor without repeating rows', async () => {
      const first = (await list({}, { limit: 10, sort: '-amount' })).body as { data: Json[]; meta: { next_cursor: string } };
      const second = (await list({}, { limit: 10, sort: '-amount', cursor: first.meta.next_cursor })).body as { data: Json[] };
      const ids = new Set([...first.data, ...second.data].map((p) => p['id']));
      expect(ids.size).to.equal(20);
    });
    it('rejects an unknown filter with BAD_REQUEST', async () => {
      expect(await codeOf(list({ colour: { eq: 'red' } }))).to.equal('BAD_REQUEST');
    });
    it('never lists records of another workspace', async () => {
      const page = (await list({ person_id: { eq: f.vendorId } }, {}, DEMO.workspaces.filial)).body as { data: Json[] };
      expect(page.data).to.deep.equal([]);
    });
  });

  describe('describeTitleForConfirmation()', () => {
    it('returns version, description, counterparty, amount and account; null from the other workspace', async () => {
      const made = await create({ financial_account_id: f.accountId, amount: '55.10' });
      const summary = await describeTitleForConfirmation(t.db, DEMO.workspaces.matriz, 'payable', made['id'] as string);
      expect(summary).to.include({ version: 1, description: 'Aluguel março', amountCents: 5510 });
      expect(summary?.counterparty).to.be.a('string');
      expect(summary?.accountName).to.be.a('string');
      expect(await describeTitleForConfirmation(t.db, DEMO.workspaces.filial, 'payable', made['id'] as string)).to.equal(null);
      expect(await describeTitleForConfirmation(t.db, DEMO.workspaces.matriz, 'receivable', made['id'] as string)).to.equal(null);
    });
  });
});
