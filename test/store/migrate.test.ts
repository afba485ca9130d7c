import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { migrateToLatest } from '../../src/store/migrate.js';
import { seedDemoData } from '../../src/seed/index.js';
import { ALL_PERMISSIONS } from '../../src/identity/permissions.js';
import { openTestDatabase, DEMO, type TestDatabase } from '../helpers/index.js';

const WS = DEMO.workspaces.matriz;

function audit(now: string) {
  return { created_at: now, updated_at: now, created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'api' as const, updated_via: 'api' as const, version: 1 };
}

async function expectConstraintError(run: () => Promise<unknown>): Promise<void> {
  const caught = await run().then(() => undefined, (err: unknown) => err);
  expect(caught, 'the duplicate was accepted').to.be.instanceOf(Error);
  expect(String((caught as Error).message)).to.match(/unique|duplicate/i);
}

function buildPerson(document: string | null, deletedAt: string | null = null) {
  const now = new Date().toISOString();
  return {
    id: randomUUID(), workspace_id: WS, name: 'Fornecedor', kind: 'juridical' as const, document_number: document,
    is_customer: 0, is_supplier: 1, emails: '[]', deleted_at: deletedAt, ...audit(now),
  };
}

describe('migrateToLatest(db) and seedDemoData(db)', () => {
  let store: TestDatabase;
  before(async () => {
    store = await openTestDatabase();
  });
  after(async () => {
    await store?.close();
  });

  it('is idempotent, and so is the seed', async () => {
    await migrateToLatest(store.db);
    await seedDemoData(store.db);
    const persons = await store.db.selectFrom('persons').select('email').orderBy('email').execute();
    expect(persons.map((p) => p.email)).to.deep.equal(['ana@demo.test', 'bruno@demo.test', 'carla@demo.test']);
  });

  it('seeds the demo identity with fixed ids', async () => {
    const org = await store.db.selectFrom('organizations').selectAll().where('id', '=', DEMO.organizationId).executeTakeFirstOrThrow();
    expect(org.name).to.equal('Demo Ltda');
    const workspaces = await store.db.selectFrom('workspaces').select(['id', 'name']).orderBy('name').execute();
    expect(workspaces).to.deep.equal([{ id: DEMO.workspaces.filial, name: 'Filial' }, { id: DEMO.workspaces.matriz, name: 'Matriz' }]);
    const memberships = await store.db.selectFrom('memberships').selectAll().orderBy('person_id').execute();
    const byPerson = new Map(memberships.map((m) => [m.person_id, m]));
    expect(byPerson.get(DEMO.persons.ana)).to.include({ status: 'active', is_admin: 1 });
    expect(JSON.parse(byPerson.get(DEMO.persons.ana)?.permissions ?? '[]')).to.deep.equal([...ALL_PERMISSIONS]);
    expect(byPerson.get(DEMO.persons.bruno)).to.include({ status: 'active', is_admin: 0 });
    expect(JSON.parse(byPerson.get(DEMO.persons.bruno)?.permissions ?? '[]')).to.deep.equal(['payables.view', 'payables.settle', 'receivables.view']);
    expect(byPerson.get(DEMO.persons.carla)?.status).to.equal('inactive');
    const brunoWorkspaces = await store.db.selectFrom('membership_workspaces').select('workspace_id')
      .where('membership_id', '=', byPerson.get(DEMO.persons.bruno)?.id ?? '').execute();
    expect(brunoWorkspaces.map((w) => w.workspace_id)).to.deep.equal([WS]);
  });

  it('returns bigint cents as numbers', async () => {
    const now = new Date().toISOString();
    const id = randomUUID();
    await store.db.insertInto('accounts').values({ id, workspace_id: WS, name: 'Caixa', type: 'cash', bank_code: null, agency: null, account_number: null, active: 1, ...audit(now) }).execute();
    await store.db.insertInto('transactions').values({
      id: randomUUID(), workspace_id: WS, financial_account_id: id, type: 'credit', amount_cents: 9_007_199_254_740, occurred_at: '2026-01-01',
      description: null, category_id: null, person_id: null, source: 'manual', source_id: null, ...audit(now),
    }).execute();
    const row = await store.db.selectFrom('transactions').select('amount_cents').where('workspace_id', '=', WS).where('financial_account_id', '=', id).executeTakeFirstOrThrow();
    expect(row.amount_cents).to.equal(9_007_199_254_740);
    const count = await store.db.selectFrom('transactions').select((eb) => eb.fn.countAll<number>().as('n')).where('workspace_id', '=', WS).where('financial_account_id', '=', id).executeTakeFirstOrThrow();
    expect(Number(count.n)).to.equal(1);
  });

  it('stores and returns blob bytes', async () => {
    const bytes = new Uint8Array([0, 1, 2, 255, 254]);
    const sha256 = randomUUID();
    await store.db.insertInto('blobs').values({ workspace_id: WS, sha256, size: bytes.length, bytes, created_at: new Date().toISOString() }).execute();
    const row = await store.db.selectFrom('blobs').select('bytes').where('workspace_id', '=', WS).where('sha256', '=', sha256).executeTakeFirstOrThrow();
    expect([...row.bytes]).to.deep.equal([...bytes]);
  });

  it('keeps people document numbers unique per workspace among live records only', async () => {
    const document = `${Date.now()}`.padStart(14, '0');
    await store.db.insertInto('people').values(buildPerson(document)).execute();
    await expectConstraintError(() => store.db.insertInto('people').values(buildPerson(document)).execute());
    await store.db.insertInto('people').values(buildPerson(document, new Date().toISOString())).execute();
    await store.db.insertInto('people').values(buildPerson(null)).execute();
    await store.db.insertInto('people').values(buildPerson(null)).execute();
    await store.db.insertInto('people').values({ ...buildPerson(document), workspace_id: DEMO.workspaces.filial }).execute();
  });

  it('keeps tax names unique per workspace', async () => {
    const now = new Date().toISOString();
    const name = `Tax ${randomUUID()}`;
    const tax = () => ({ id: randomUUID(), workspace_id: WS, name, default_rate: '0.65', active: 1, ...audit(now) });
    await store.db.insertInto('taxes').values(tax()).execute();
    await expectConstraintError(() => store.db.insertInto('taxes').values(tax()).execute());
  });

  it('keys idempotency records by (workspace, person, key) and nonces by nonce', async () => {
    const now = new Date().toISOString();
    const record = {
      workspace_id: WS, person_id: DEMO.persons.ana, key: 'k-1', operation_id: 'payables.create', request_hash: 'h',
      response_status: 201, response_body: '{}', created_at: now, expires_at: now,
    };
    await store.db.insertInto('idempotency_keys').values(record).execute();
    await expectConstraintError(() => store.db.insertInto('idempotency_keys').values(record).execute());
    await store.db.insertInto('idempotency_keys').values({ ...record, person_id: DEMO.persons.bruno }).execute();
    const nonce = { nonce: randomUUID(), workspace_id: WS, person_id: DEMO.persons.ana, tool: 't', consumed_at: now, expires_at: now };
    await store.db.insertInto('confirmation_nonces').values(nonce).execute();
    await expectConstraintError(() => store.db.insertInto('confirmation_nonces').values(nonce).execute());
  });

  it('rejects a finance row for a workspace that does not exist', async () => {
    const now = new Date().toISOString();
    const caught = await store.db.insertInto('taxes')
      .values({ id: randomUUID(), workspace_id: randomUUID(), name: 'X', default_rate: '1', active: 1, ...audit(now) })
      .execute().then(() => undefined, (err: unknown) => err);
    expect(caught).to.be.instanceOf(Error);
    expect(String((caught as Error).message)).to.match(/foreign key/i);
  });
});
