/**
 * The database refuses orphans (migration 0003-foreign-keys): deleting a record that another
 * finance row refers to, or writing a row that refers to a missing record or to another
 * workspace's record, fails in SQL itself, on SQLite and PostgreSQL alike. Deferred keys are
 * checked at commit, so the application's settle / transfer / delete orders still commit.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.js';
import { isForeignKeyViolation } from '../../src/api/records.js';
import { openTestDatabase, DEMO, type TestDatabase } from '../helpers/index.js';
import { insertAllocation, insertPayable, insertTransaction } from '../api/support/rows.js';
import { runOperation } from '../api/rules/support.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;

function audit() {
  const now = new Date().toISOString();
  return { created_at: now, updated_at: now, created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'web' as const, updated_via: 'web' as const, version: 1 };
}

async function insertAccount(db: Kysely<Database>, workspaceId: string = M): Promise<string> {
  const id = randomUUID();
  await db.insertInto('accounts').values({
    id, workspace_id: workspaceId, name: `FK ${id}`, type: 'checking', bank_code: null, agency: null, account_number: null, active: 1, ...audit(),
  }).execute();
  return id;
}

async function insertCategory(db: Kysely<Database>, parentId: string | null = null, workspaceId: string = M): Promise<string> {
  const id = randomUUID();
  await db.insertInto('categories').values({
    id, workspace_id: workspaceId, name: `FK ${id}`, type: 'debit', parent_id: parentId, level: parentId ? 2 : 1, ...audit(),
  }).execute();
  return id;
}

async function insertPerson(db: Kysely<Database>, workspaceId: string = M): Promise<string> {
  const id = randomUUID();
  await db.insertInto('people').values({
    id, workspace_id: workspaceId, name: `FK ${id}`, kind: 'juridical', document_number: null, is_customer: 0, is_supplier: 1,
    emails: '[]', deleted_at: null, ...audit(),
  }).execute();
  return id;
}

async function insertCostCenter(db: Kysely<Database>, workspaceId: string = M): Promise<string> {
  const id = randomUUID();
  await db.insertInto('cost_centers').values({ id, workspace_id: workspaceId, name: `FK ${id}`, type: 'both', active: 1, ...audit() }).execute();
  return id;
}

async function insertAttachment(db: Kysely<Database>): Promise<string> {
  const id = randomUUID();
  await db.insertInto('attachments').values({
    id, workspace_id: M, sha256: '0'.repeat(64), file_name: 'fk.pdf', title: null, content_type: 'application/pdf', size: 1, ...audit(),
  }).execute();
  return id;
}

async function insertLink(db: Kysely<Database>, attachmentId: string, parentType: 'payable' | 'receivable' | 'transaction', parentId: string): Promise<void> {
  await db.insertInto('attachment_links').values({
    id: randomUUID(), workspace_id: M, attachment_id: attachmentId, parent_type: parentType, parent_id: parentId,
    created_at: new Date().toISOString(), created_by: DEMO.persons.ana,
  }).execute();
}

/** The write fails with a foreign-key violation (the code translateConstraintError maps to CONFLICT). */
async function expectRefused(run: () => Promise<unknown>): Promise<void> {
  const caught = await run().then(() => undefined, (err: unknown) => err);
  expect(caught, 'the database accepted the orphan').to.be.instanceOf(Error);
  expect(isForeignKeyViolation(caught), String(caught)).to.equal(true);
}

async function exists(db: Kysely<Database>, table: 'accounts' | 'categories' | 'people' | 'titles' | 'transactions' | 'cost_centers' | 'attachments', id: string): Promise<boolean> {
  return (await db.selectFrom(table).select('id').where('workspace_id', '=', M).where('id', '=', id).executeTakeFirst()) !== undefined;
}

describe('foreign keys between finance records (migration 0003)', () => {
  let store: TestDatabase;
  let db: Kysely<Database>;
  before(async () => {
    store = await openTestDatabase();
    db = store.db;
  });
  after(async () => {
    await store?.close();
  });

  describe('deleting a referenced record directly in SQL fails', () => {
    it('an account that has transactions', async () => {
      const account = await insertAccount(db);
      await insertTransaction(db, M, account, 'debit', 100);
      await expectRefused(() => db.deleteFrom('accounts').where('workspace_id', '=', M).where('id', '=', account).execute());
      expect(await exists(db, 'accounts', account)).to.equal(true);
    });

    it('an account used by a title, and one used by a transfer', async () => {
      const person = await insertPerson(db);
      const titled = await insertAccount(db);
      const title = await insertPayable(db, M, person);
      await db.updateTable('titles').set({ financial_account_id: titled }).where('workspace_id', '=', M).where('id', '=', title).execute();
      await expectRefused(() => db.deleteFrom('accounts').where('workspace_id', '=', M).where('id', '=', titled).execute());
      const [from, to] = [await insertAccount(db), await insertAccount(db)];
      const transfer = await runOperation(db, 'transfers.create', { body: { from_account_id: from, to_account_id: to, amount: '5.00', occurred_at: '2026-03-01' } });
      expect(transfer.outcome).to.equal('created');
      const legs = transfer.body as { debit_transaction_id: string };
      // Remove the legs' own reference to the account so only the transfer row still refers to it.
      await db.updateTable('transactions').set({ financial_account_id: titled }).where('workspace_id', '=', M).where('id', '=', legs.debit_transaction_id).execute();
      await expectRefused(() => db.deleteFrom('accounts').where('workspace_id', '=', M).where('id', '=', from).execute());
    });

    it('a category used by a title, and one with a child category', async () => {
      const person = await insertPerson(db);
      const used = await insertCategory(db);
      await insertPayable(db, M, person, { category_id: used });
      await expectRefused(() => db.deleteFrom('categories').where('workspace_id', '=', M).where('id', '=', used).execute());
      const parent = await insertCategory(db);
      await insertCategory(db, parent);
      await expectRefused(() => db.deleteFrom('categories').where('workspace_id', '=', M).where('id', '=', parent).execute());
      expect([await exists(db, 'categories', used), await exists(db, 'categories', parent)]).to.deep.equal([true, true]);
    });

    it('a category used by a transaction', async () => {
      const category = await insertCategory(db);
      await insertTransaction(db, M, await insertAccount(db), 'debit', 100, { category_id: category });
      await expectRefused(() => db.deleteFrom('categories').where('workspace_id', '=', M).where('id', '=', category).execute());
    });

    it('a person used by a title, even after the soft delete', async () => {
      const person = await insertPerson(db);
      await insertPayable(db, M, person);
      await db.updateTable('people').set({ deleted_at: new Date().toISOString() }).where('workspace_id', '=', M).where('id', '=', person).execute();
      await expectRefused(() => db.deleteFrom('people').where('workspace_id', '=', M).where('id', '=', person).execute());
      expect(await exists(db, 'people', person)).to.equal(true);
    });

    it('a title with allocations', async () => {
      const title = await insertPayable(db, M, await insertPerson(db));
      await insertAllocation(db, M, title, await insertCostCenter(db));
      await expectRefused(() => db.deleteFrom('titles').where('workspace_id', '=', M).where('id', '=', title).execute());
      expect(await exists(db, 'titles', title)).to.equal(true);
    });

    it('a title with an attachment link, and the linked attachment', async () => {
      const title = await insertPayable(db, M, await insertPerson(db));
      const attachment = await insertAttachment(db);
      await insertLink(db, attachment, 'payable', title);
      await expectRefused(() => db.deleteFrom('titles').where('workspace_id', '=', M).where('id', '=', title).execute());
      await expectRefused(() => db.deleteFrom('attachments').where('workspace_id', '=', M).where('id', '=', attachment).execute());
    });

    it('a transaction referenced by a title\'s transaction_id (a deferred key, checked at commit)', async () => {
      const account = await insertAccount(db);
      const title = await insertPayable(db, M, await insertPerson(db));
      const settled = await runOperation(db, 'payables.settle', { path: { id: title }, body: { payment_date: '2026-03-02', financial_account_id: account } });
      expect(settled.body).to.be.an('object');
      const transactionId = (settled.body as { transaction_id: string }).transaction_id;
      await expectRefused(() => db.deleteFrom('transactions').where('workspace_id', '=', M).where('id', '=', transactionId).execute());
      await expectRefused(() => db.transaction().execute(async (trx) => {
        await trx.deleteFrom('transactions').where('workspace_id', '=', M).where('id', '=', transactionId).execute();
      }));
      expect(await exists(db, 'transactions', transactionId)).to.equal(true);
      // The settlement transaction refers back to its title, so the title cannot go first either.
      await db.updateTable('titles').set({ transaction_id: null }).where('workspace_id', '=', M).where('id', '=', title).execute();
      await expectRefused(() => db.deleteFrom('titles').where('workspace_id', '=', M).where('id', '=', title).execute());
    });

    it('a transaction with allocations, one with an attachment link, and a transfer leg', async () => {
      const account = await insertAccount(db);
      const split = await insertTransaction(db, M, account, 'debit', 1000);
      await db.insertInto('allocations').values({
        id: randomUUID(), workspace_id: M, parent_type: 'transaction', parent_id: split, cost_center_id: await insertCostCenter(db),
        percentage: null, amount_cents: 1000, position: 0,
      }).execute();
      await expectRefused(() => db.deleteFrom('transactions').where('workspace_id', '=', M).where('id', '=', split).execute());
      const linked = await insertTransaction(db, M, account, 'debit', 1000);
      await insertLink(db, await insertAttachment(db), 'transaction', linked);
      await expectRefused(() => db.deleteFrom('transactions').where('workspace_id', '=', M).where('id', '=', linked).execute());
      const transfer = await runOperation(db, 'transfers.create', { body: { from_account_id: account, to_account_id: await insertAccount(db), amount: '1.00', occurred_at: '2026-03-01' } });
      const leg = (transfer.body as { credit_transaction_id: string }).credit_transaction_id;
      await expectRefused(() => db.deleteFrom('transactions').where('workspace_id', '=', M).where('id', '=', leg).execute());
    });

    it('a cost center used by an allocation', async () => {
      const center = await insertCostCenter(db);
      await insertAllocation(db, M, await insertPayable(db, M, await insertPerson(db)), center);
      await expectRefused(() => db.deleteFrom('cost_centers').where('workspace_id', '=', M).where('id', '=', center).execute());
      expect(await exists(db, 'cost_centers', center)).to.equal(true);
    });
  });

  describe('writing a row that refers to a missing or foreign record fails', () => {
    it('a title whose person does not exist', async () => {
      await expectRefused(() => insertPayable(db, M, randomUUID()));
    });

    it('a title whose person belongs to another workspace', async () => {
      const elsewhere = await insertPerson(db, F);
      await expectRefused(() => insertPayable(db, M, elsewhere));
    });

    it('an allocation whose cost center belongs to another workspace', async () => {
      const title = await insertPayable(db, M, await insertPerson(db));
      await expectRefused(async () => insertAllocation(db, M, title, await insertCostCenter(db, F)));
    });

    it('an allocation or link whose parent_type does not match the title\'s kind', async () => {
      const title = await insertPayable(db, M, await insertPerson(db));
      const center = await insertCostCenter(db);
      await expectRefused(() => db.insertInto('allocations').values({
        id: randomUUID(), workspace_id: M, parent_type: 'receivable', parent_id: title, cost_center_id: center, percentage: null, amount_cents: 1, position: 0,
      }).execute());
      await expectRefused(async () => insertLink(db, await insertAttachment(db), 'transaction', title));
    });

    it('a transaction on a missing account', async () => {
      await expectRefused(() => insertTransaction(db, M, randomUUID(), 'debit', 100));
    });

    it('a settlement transaction whose title does not exist', async () => {
      const account = await insertAccount(db);
      await expectRefused(() => db.insertInto('transactions').values({
        id: randomUUID(), workspace_id: M, financial_account_id: account, type: 'debit', amount_cents: 1, occurred_at: '2026-03-01',
        description: null, category_id: null, person_id: null, source: 'settlement', source_id: randomUUID(), ...audit(),
      }).execute());
    });
  });

  describe('the application\'s write orders still commit', () => {
    it('settle, reopen, settle again, then delete the settled payable', async () => {
      const account = await insertAccount(db);
      const title = await insertPayable(db, M, await insertPerson(db));
      await insertAllocation(db, M, title, await insertCostCenter(db));
      const settle = { path: { id: title }, body: { payment_date: '2026-03-03', financial_account_id: account } };
      expect((await runOperation(db, 'payables.settle', settle)).body).to.be.an('object');
      expect((await runOperation(db, 'payables.reopen', { path: { id: title } })).body).to.be.an('object');
      expect((await runOperation(db, 'payables.settle', settle)).body).to.be.an('object');
      expect((await runOperation(db, 'payables.delete', { path: { id: title } })).outcome).to.equal('deleted');
      expect(await exists(db, 'titles', title)).to.equal(false);
      const left = await db.selectFrom('transactions').select('id').where('workspace_id', '=', M).where('source_id', '=', title).execute();
      expect(left).to.deep.equal([]);
    });

    it('a manual transaction with a split deletes, and no orphan is left anywhere', async () => {
      const created = await runOperation(db, 'transactions.create', {
        body: { financial_account_id: await insertAccount(db), type: 'debit', amount: '10.00', occurred_at: '2026-03-04', cost_center_allocations: [{ cost_center_id: await insertCostCenter(db), percentage: '100' }] },
      });
      expect(created.outcome).to.equal('created');
      const id = (created.body as { id: string }).id;
      expect((await runOperation(db, 'transactions.delete', { path: { id } })).outcome).to.equal('deleted');
      if (store.dialect === 'sqlite') {
        const { rows } = await sql<{ table: string }>`select "table" from pragma_foreign_key_check`.execute(db);
        expect(rows).to.deep.equal([]);
      }
    });
  });
});
