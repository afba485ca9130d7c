import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { openDatabase } from '../../src/store/db.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { seedDemoData } from '../../src/seed/index.js';
import { seedFinanceDemo } from '../../src/seed/finance.js';
import { hasValidCheckDigits } from '../../src/seed/finance-documents.js';
import { FILIAL_WORKSPACE_ID, MATRIZ_WORKSPACE_ID } from '../../src/seed/ids.js';
import type { Database } from '../../src/store/schema.js';
import type { Config } from '../../src/config.js';
import { createManualClock } from '../helpers/clock.js';

describe('seedFinanceDemo()', () => {
  // The seed's "today" is the clock's (docs/architecture.md#conventions): a day far from the real
  // one shows the records are laid out around it, and the assertions never straddle a midnight.
  const SEEDED_AT = Date.parse('2031-05-20T12:00:00Z');
  let db: Kysely<Database>;
  let close: () => Promise<void>;

  before(async () => {
    const opened = await openDatabase({ dataDir: ':memory:', databaseUrl: null } as Config);
    db = opened.db;
    close = opened.close;
    await migrateToLatest(db);
    await seedDemoData(db, createManualClock(SEEDED_AT));
  });
  after(async () => close());

  it('seeds about 200 payables and receivables over both workspaces', async () => {
    const rows = await db.selectFrom('titles').select(['workspace_id', 'kind']).where('workspace_id', 'in', [MATRIZ_WORKSPACE_ID, FILIAL_WORKSPACE_ID]).execute();
    expect(rows.length).to.be.within(180, 240);
    for (const ws of [MATRIZ_WORKSPACE_ID, FILIAL_WORKSPACE_ID]) {
      expect(rows.filter((r) => r.workspace_id === ws && r.kind === 'payable').length).to.be.greaterThan(20);
      expect(rows.filter((r) => r.workspace_id === ws && r.kind === 'receivable').length).to.be.greaterThan(20);
    }
  });

  it('gives every person a CPF or CNPJ with valid check digits', async () => {
    const people = await db.selectFrom('people').select(['document_number', 'kind']).where('workspace_id', 'in', [MATRIZ_WORKSPACE_ID, FILIAL_WORKSPACE_ID]).execute();
    expect(people.length).to.be.greaterThan(15);
    for (const p of people) {
      expect(hasValidCheckDigits(p.document_number ?? ''), p.document_number ?? '').to.equal(true);
      expect(p.document_number?.length).to.equal(p.kind === 'natural' ? 11 : 14);
    }
  });

  it('links one settlement transaction of the right amount to every settled title', async () => {
    const settled = await db.selectFrom('titles').selectAll().where('workspace_id', '=', MATRIZ_WORKSPACE_ID).where('status', 'in', ['paid', 'received']).execute();
    expect(settled.length).to.be.greaterThan(20);
    const txs = await db.selectFrom('transactions').selectAll().where('workspace_id', '=', MATRIZ_WORKSPACE_ID).where('source', '=', 'settlement').execute();
    expect(txs.length).to.equal(settled.length);
    for (const t of settled) {
      const tx = txs.find((x) => x.id === t.transaction_id);
      expect(tx?.source_id).to.equal(t.id);
      expect(Number(tx?.amount_cents)).to.equal(Number(t.amount_cents) + Number(t.interest_cents) - Number(t.discount_cents));
      expect(tx?.type).to.equal(t.kind === 'payable' ? 'debit' : 'credit');
    }
  });

  it('has overdue payables, payables due this week and apportioned titles whose split sums to the amount', async () => {
    const today = new Date(SEEDED_AT).toISOString().slice(0, 10);
    const week = new Date(SEEDED_AT + 7 * 86_400_000).toISOString().slice(0, 10);
    const pending = await db.selectFrom('titles').selectAll().where('workspace_id', '=', MATRIZ_WORKSPACE_ID).where('kind', '=', 'payable').where('status', '=', 'pending').execute();
    expect(pending.filter((t) => t.due_date < today).length).to.be.greaterThan(2);
    expect(pending.filter((t) => t.due_date >= today && t.due_date <= week).length).to.be.greaterThan(2);
    const allocations = await db.selectFrom('allocations').selectAll().where('workspace_id', '=', MATRIZ_WORKSPACE_ID).execute();
    const parents = new Set(allocations.map((a) => a.parent_id));
    expect(parents.size).to.be.greaterThan(5);
    const titles = await db.selectFrom('titles').select(['id', 'amount_cents']).where('workspace_id', '=', MATRIZ_WORKSPACE_ID).execute();
    for (const id of parents) {
      const sum = allocations.filter((a) => a.parent_id === id).reduce((s, a) => s + Number(a.amount_cents), 0);
      expect(sum).to.equal(Number(titles.find((t) => t.id === id)?.amount_cents));
    }
  });

  it('stamps the seeded identity with the clock\'s instant', async () => {
    const orgs = await db.selectFrom('organizations').select('created_at').execute();
    expect(orgs.map((o) => o.created_at)).to.deep.equal([new Date(SEEDED_AT).toISOString()]);
  });

  it('builds a three-level chart of accounts whose children share their parent type', async () => {
    const cats = await db.selectFrom('categories').selectAll().where('workspace_id', '=', MATRIZ_WORKSPACE_ID).execute();
    expect(Math.max(...cats.map((c) => c.level))).to.equal(3);
    for (const c of cats.filter((x) => x.parent_id)) {
      const parent = cats.find((p) => p.id === c.parent_id);
      expect(parent?.type).to.equal(c.type);
      expect(parent?.level).to.equal(c.level - 1);
    }
  });

  it('records two transfers as a debit and a credit each', async () => {
    const transfers = await db.selectFrom('transfers').selectAll().where('workspace_id', '=', MATRIZ_WORKSPACE_ID).execute();
    expect(transfers).to.have.length(2);
    const txs = await db.selectFrom('transactions').selectAll().where('workspace_id', '=', MATRIZ_WORKSPACE_ID).where('source', '=', 'transfer').execute();
    expect(txs).to.have.length(4);
  });

  it('is idempotent', async () => {
    const before = await db.selectFrom('titles').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', MATRIZ_WORKSPACE_ID).executeTakeFirstOrThrow();
    await seedFinanceDemo(db, new Date());
    const after = await db.selectFrom('titles').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', MATRIZ_WORKSPACE_ID).executeTakeFirstOrThrow();
    expect(Number(after.n)).to.equal(Number(before.n));
  });
});
