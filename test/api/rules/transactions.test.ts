import { expect } from 'chai';
import type { KyselyPlugin, Kysely } from 'kysely';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { DEMO } from '../../../src/seed/ids.js';
import type { Database } from '../../../src/store/schema.js';
import { codeOf, loadFixtures, runOperation, type Fixtures } from './support.js';

type Json = Record<string, unknown>;

describe('transaction and transfer rules', () => {
  let t: TestDatabase;
  let f: Fixtures;
  let filial: Fixtures;
  const ws = DEMO.workspaces.matriz;

  before(async () => {
    t = await openTestDatabase();
    f = await loadFixtures(t.db);
    filial = await loadFixtures(t.db, DEMO.workspaces.filial);
  });
  after(async () => t.close());

  const debit = (extra: Json = {}): Json => ({ financial_account_id: f.accountId, type: 'debit', amount: '45.90', occurred_at: '2026-03-09', description: 'Tarifa bancária', ...extra });

  describe('transactions.create / update / delete', () => {
    it('creates a manual debit with a debit category and a cost split', async () => {
      const out = await runOperation(t.db, 'transactions.create', { body: debit({ category_id: f.debitCategoryId, cost_center_allocations: [{ cost_center_id: f.costCenters.cost, percentage: 100 }] }) });
      expect(out.outcome).to.equal('created');
      expect(out.body).to.include({ source: 'manual', source_id: null, amount: '45.90', type: 'debit', version: 1, created_via: 'api' });
      expect((out.body as Json)['cost_center_allocations']).to.deep.equal([{ cost_center_id: f.costCenters.cost, percentage: '100.00', amount: '45.90' }]);
    });

    const rejections: { name: string; body: () => Json; want: string }[] = [
      { name: 'a credit category on a debit', body: () => debit({ category_id: f.creditCategoryId }), want: 'UNPROCESSABLE_ENTITY' },
      { name: 'a revenue center on a debit', body: () => debit({ cost_center_allocations: [{ cost_center_id: f.costCenters.revenue, percentage: 100 }] }), want: 'UNPROCESSABLE_ENTITY' },
      { name: 'a cost center on a credit', body: () => debit({ type: 'credit', cost_center_allocations: [{ cost_center_id: f.costCenters.cost, percentage: 100 }] }), want: 'UNPROCESSABLE_ENTITY' },
      { name: 'an account of the other workspace', body: () => debit({ financial_account_id: filial.accountId }), want: 'UNPROCESSABLE_ENTITY' },
      { name: 'a person of the other workspace', body: () => debit({ person_id: filial.vendorId }), want: 'UNPROCESSABLE_ENTITY' },
    ];
    for (const { name, body, want } of rejections) {
      it(`rejects ${name} with ${want}`, async () => {
        expect(await codeOf(runOperation(t.db, 'transactions.create', { body: body() }))).to.equal(want);
      });
    }

    it('updates a manual transaction, recomputing its split, and deletes it', async () => {
      const made = (await runOperation(t.db, 'transactions.create', { body: debit({ cost_center_allocations: [{ cost_center_id: f.costCenters.cost, percentage: 50 }, { cost_center_id: f.costCenters.both, percentage: 50 }] }) })).body as Json;
      const id = made['id'] as string;
      const updated = (await runOperation(t.db, 'transactions.update', { path: { id }, body: { amount: '0.03' } })).body as Json;
      expect((updated['cost_center_allocations'] as Json[]).map((a) => a['amount'])).to.deep.equal(['0.02', '0.01']);
      expect(updated['version']).to.equal(2);
      expect(await codeOf(runOperation(t.db, 'transactions.update', { path: { id }, body: { type: 'credit' } }))).to.equal('UNPROCESSABLE_ENTITY');
      expect(await codeOf(runOperation(t.db, 'transactions.delete', { path: { id } }, { workspaceId: DEMO.workspaces.filial }))).to.equal('NOT_FOUND');
      expect((await runOperation(t.db, 'transactions.delete', { path: { id } })).outcome).to.equal('deleted');
      expect(await codeOf(runOperation(t.db, 'transactions.get', { path: { id } }))).to.equal('NOT_FOUND');
      expect(await t.db.selectFrom('allocations').select('id').where('workspace_id', '=', ws).where('parent_id', '=', id).execute()).to.have.length(0);
    });

    it('refuses to delete or re-price a settlement transaction but lets its description change', async () => {
      const tx = await t.db.selectFrom('transactions').selectAll().where('workspace_id', '=', ws).where('source', '=', 'settlement').executeTakeFirstOrThrow();
      expect(await codeOf(runOperation(t.db, 'transactions.delete', { path: { id: tx.id } }))).to.equal('UNPROCESSABLE_ENTITY');
      expect(await codeOf(runOperation(t.db, 'transactions.update', { path: { id: tx.id }, body: { amount: '1.00' } }))).to.equal('UNPROCESSABLE_ENTITY');
      const renamed = (await runOperation(t.db, 'transactions.update', { path: { id: tx.id }, body: { description: 'Boleto pago' } })).body as Json;
      expect(renamed['description']).to.equal('Boleto pago');
    });

    it('lists by source and account and never shows the other workspace', async () => {
      const page = (await runOperation(t.db, 'transactions.list', { list: { limit: 100, filters: { source: { eq: 'transfer' } } } })).body as { data: Json[] };
      expect(page.data).to.have.length(4);
      const other = (await runOperation(t.db, 'transactions.list', { list: { limit: 100, filters: { financial_account_id: { eq: f.accountId } } } }, { workspaceId: DEMO.workspaces.filial })).body as { data: Json[] };
      expect(other.data).to.deep.equal([]);
    });
  });

  describe('transfers.create / get', () => {
    it('creates a debit on the source and a credit on the destination', async () => {
      const out = await runOperation(t.db, 'transfers.create', { body: { from_account_id: f.accountId, to_account_id: f.otherAccountId, amount: '250.00', occurred_at: '2026-03-09' } });
      expect(out.outcome).to.equal('created');
      const body = out.body as Json;
      const legs = await t.db.selectFrom('transactions').selectAll().where('workspace_id', '=', ws).where('source_id', '=', body['id'] as string).orderBy('type').execute();
      expect(legs.map((l) => [l.type, l.financial_account_id, Number(l.amount_cents), l.source])).to.deep.equal([
        ['credit', f.otherAccountId, 25_000, 'transfer'], ['debit', f.accountId, 25_000, 'transfer'],
      ]);
      expect(body['debit_transaction_id']).to.equal(legs[1]?.id);
      const got = (await runOperation(t.db, 'transfers.get', { path: { id: body['id'] as string } })).body as Json;
      expect(got).to.deep.equal(body);
      expect(await codeOf(runOperation(t.db, 'transfers.get', { path: { id: body['id'] as string } }, { workspaceId: DEMO.workspaces.filial }))).to.equal('NOT_FOUND');
      expect(await codeOf(runOperation(t.db, 'transactions.delete', { path: { id: legs[0]?.id as string } }))).to.equal('UNPROCESSABLE_ENTITY');
    });

    it('rejects the same account twice and an account of the other workspace with UNPROCESSABLE_ENTITY', async () => {
      expect(await codeOf(runOperation(t.db, 'transfers.create', { body: { from_account_id: f.accountId, to_account_id: f.accountId, amount: '1', occurred_at: '2026-03-09' } }))).to.equal('UNPROCESSABLE_ENTITY');
      expect(await codeOf(runOperation(t.db, 'transfers.create', { body: { from_account_id: f.accountId, to_account_id: filial.accountId, amount: '1', occurred_at: '2026-03-09' } }))).to.equal('UNPROCESSABLE_ENTITY');
    });

    it('leaves no half transfer when a write fails midway', async () => {
      const before = await t.db.selectFrom('transactions').select('id').where('workspace_id', '=', ws).execute();
      // Fails the statement that records the transfer, after both legs were inserted.
      const failOnTransfer: KyselyPlugin = {
        transformQuery(args) {
          const into = (args.node as { into?: { table?: { identifier?: { name?: string } } } }).into;
          if (args.node.kind === 'InsertQueryNode' && into?.table?.identifier?.name === 'transfers') throw new Error('simulated failure');
          return args.node;
        },
        async transformResult(args) {
          return args.result;
        },
      };
      const wrapDb = (db: Kysely<Database>) => db.withPlugin(failOnTransfer);
      let failed = false;
      try {
        await runOperation(t.db, 'transfers.create', { body: { from_account_id: f.accountId, to_account_id: f.otherAccountId, amount: '99.00', occurred_at: '2026-03-09' } }, { wrapDb });
      } catch (error) {
        failed = (error as Error).message === 'simulated failure';
      }
      expect(failed).to.equal(true);
      const after = await t.db.selectFrom('transactions').select('id').where('workspace_id', '=', ws).execute();
      expect(after.length).to.equal(before.length);
    });
  });
});
