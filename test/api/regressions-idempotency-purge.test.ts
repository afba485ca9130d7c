/**
 * Regression: idempotency_keys rows were never purged (only an expired key that was reused got
 * deleted), so the table grew forever. storeResponse now purges, on 1 write in 100, at most
 * 100 expired keys of the current workspace (the workspace guard wants every delete scoped).
 * Runs on SQLite, and on PostgreSQL with DATABASE_URL set.
 */
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import {
  findReplay, IDEMPOTENCY_TTL_MS, PURGE_BATCH, PURGE_PROBABILITY, purgeExpiredKeys, storeResponse, type IdempotencyScope,
} from '../../src/api/idempotency.js';
import type { Database } from '../../src/store/schema.js';
import { DEMO, openTestDatabase, type TestDatabase } from '../helpers/index.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;
const NOW = new Date('2026-06-01T12:00:00.000Z');
const HOUR = 60 * 60 * 1000;

async function insertKeys(db: Kysely<Database>, workspaceId: string, prefix: string, count: number, expiresAt: Date): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => ({
    workspace_id: workspaceId, person_id: DEMO.persons.ana, key: `${prefix}-${i}`, operation_id: 'taxes.create', request_hash: 'h',
    response_status: 201, response_body: '{}', created_at: new Date(expiresAt.getTime() - IDEMPOTENCY_TTL_MS).toISOString(),
    expires_at: expiresAt.toISOString(),
  }));
  for (let i = 0; i < rows.length; i += 50) await db.insertInto('idempotency_keys').values(rows.slice(i, i + 50)).execute();
}

async function countKeys(db: Kysely<Database>, workspaceId: string, prefix: string): Promise<number> {
  const row = await db.selectFrom('idempotency_keys').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId).where('key', 'like', `${prefix}-%`).executeTakeFirstOrThrow();
  return Number(row.n);
}

const scope = (key: string, workspaceId = M): IdempotencyScope => ({ workspaceId, personId: DEMO.persons.ana, key, operationId: 'taxes.create' });

describe(`regression: expired idempotency keys are purged, boundedly (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(120_000);
  let store: TestDatabase;
  before(async () => { store = await openTestDatabase(); });
  after(async () => { await store?.close(); });
  beforeEach(async () => { await store.db.deleteFrom('idempotency_keys').where('workspace_id', 'in', [M, F]).execute(); });

  it('purgeExpiredKeys deletes at most 100 expired keys per call, only of its workspace, never live ones', async () => {
    const { db } = store;
    await insertKeys(db, M, 'old', 150, new Date(NOW.getTime() - HOUR));
    await insertKeys(db, M, 'live', 3, new Date(NOW.getTime() + HOUR));
    await insertKeys(db, F, 'old', 5, new Date(NOW.getTime() - HOUR));
    expect(PURGE_BATCH).to.equal(100);
    expect(await purgeExpiredKeys(db, M, NOW)).to.equal(100);
    expect(await countKeys(db, M, 'old')).to.equal(50);
    expect(await purgeExpiredKeys(db, M, NOW)).to.equal(50);
    expect(await purgeExpiredKeys(db, M, NOW)).to.equal(0);
    expect(await countKeys(db, M, 'old')).to.equal(0);
    expect(await countKeys(db, M, 'live')).to.equal(3);
    expect(await countKeys(db, F, 'old')).to.equal(5);
    expect(await purgeExpiredKeys(db, F, NOW, 2)).to.equal(2);
    expect(await countKeys(db, F, 'old')).to.equal(3);
  });

  it('storeResponse purges expired keys of its workspace when the 1% draw hits, inside the write transaction (workspace guard passes)', async () => {
    const { db } = store;
    await insertKeys(db, M, 'old', 10, new Date(NOW.getTime() - HOUR));
    await insertKeys(db, F, 'old', 4, new Date(NOW.getTime() - HOUR));
    expect(PURGE_PROBABILITY).to.equal(0.01);
    await db.transaction().execute((trx) => storeResponse(trx, scope('miss'), 'hash', { outcome: 'created', body: { id: 1 } }, NOW, () => 0.5));
    expect(await countKeys(db, M, 'old')).to.equal(10);
    await db.transaction().execute((trx) => storeResponse(trx, scope('hit'), 'hash', { outcome: 'created', body: { id: 2 } }, NOW, () => 0.001));
    expect(await countKeys(db, M, 'old')).to.equal(0);
    expect(await countKeys(db, F, 'old')).to.equal(4);
    // The responses themselves were stored and replay.
    expect(await findReplay(db, scope('miss'), 'hash', NOW)).to.deep.equal({ body: { id: 1 } });
    expect(await findReplay(db, scope('hit'), 'hash', NOW)).to.deep.equal({ body: { id: 2 } });
  });

  it('storeResponse with the default Math.random purges about 1 write in 100', async () => {
    const { db } = store;
    const original = Math.random;
    let draws = 0;
    // Deterministic stand-in: 1 draw in 100 lands under the threshold.
    Math.random = () => { draws += 1; return draws % 100 === 0 ? 0.001 : 0.5; };
    try {
      await insertKeys(db, M, 'old', 5, new Date(NOW.getTime() - HOUR));
      for (let i = 0; i < 99; i += 1) await storeResponse(db, scope(`k${i}`), 'h', { outcome: 'created' }, NOW);
      expect(await countKeys(db, M, 'old')).to.equal(5);
      await storeResponse(db, scope('k99'), 'h', { outcome: 'created' }, NOW);
      expect(await countKeys(db, M, 'old')).to.equal(0);
    } finally {
      Math.random = original;
    }
    expect(await countKeys(db, M, 'k')).to.equal(0); // prefix 'k-' matches none of k0..k99: they stay
    const stored = await db.selectFrom('idempotency_keys').select('key').where('workspace_id', '=', M).execute();
    expect(stored).to.have.length(100);
  });

  it('two concurrent purges of one workspace both finish (no lock wait or deadlock) and delete each row once', async () => {
    const { db } = store;
    await insertKeys(db, M, 'old', 150, new Date(NOW.getTime() - HOUR));
    const [a, b] = await Promise.all([
      db.transaction().execute((trx) => purgeExpiredKeys(trx, M, NOW)),
      db.transaction().execute((trx) => purgeExpiredKeys(trx, M, NOW)),
    ]);
    expect(a + b).to.be.within(100, 150);
    expect(await countKeys(db, M, 'old')).to.equal(150 - a - b);
  });
});
