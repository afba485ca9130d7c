/**
 * The identity-version read behind every cached call (src/store/db.ts `identityStateReader`, which
 * reads the calling token's revocation in the same statement):
 * on SQLite it runs straight on the connection when no transaction holds it, and must then still
 * never see uncommitted work — a read issued while a transaction that bumps the version is open
 * waits for the commit (SQLite: one connection) or reads the committed value (PostgreSQL). Query
 * observers see the read either way (test/auth/caller-cache.test.ts counts on them).
 */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { identityStateReader, observeQueries } from '../../src/store/db.js';
import { openTestDatabase, DEMO, type TestDatabase } from '../helpers/index.js';

describe('identityStateReader()', () => {
  let store: TestDatabase;
  before(async () => {
    store = await openTestDatabase({ seed: true });
  });
  after(async () => {
    await store?.close();
  });

  it('reads the committed version, reported to query observers, and undefined for an unknown organization', async () => {
    const readState = identityStateReader(store.db);
    const read = async (organizationId: string) => (await readState(organizationId, 'a-token-id'))?.version;
    const seen: string[] = [];
    const stop = observeQueries(store.db, (text) => seen.push(text));
    const version = await read(DEMO.organizationId);
    stop();
    const row = await store.db.selectFrom('identity_versions').select('version').where('organization_id', '=', DEMO.organizationId).executeTakeFirstOrThrow();
    expect(version).to.equal(Number(row.version));
    expect(seen).to.have.length(1);
    expect(seen[0]).to.match(/from "identity_versions"/);
    expect(await read('00000000-0000-4000-8000-00000000dead')).to.equal(undefined);
  });

  it('says whether the token is revoked, in the same statement', async () => {
    const readState = identityStateReader(store.db);
    const jti = `revoked-${Date.now()}`;
    expect((await readState(DEMO.organizationId, jti))?.revoked).to.equal(false);
    await store.db.insertInto('revoked_tokens').values({ jti, revoked_at: new Date().toISOString(), expires_at: new Date(Date.now() + 60_000).toISOString() }).execute();
    const seen: string[] = [];
    const stop = observeQueries(store.db, (text) => seen.push(text));
    const state = await readState(DEMO.organizationId, jti);
    stop();
    expect(state?.revoked).to.equal(true);
    expect(seen).to.have.length(1);
  });

  it('never returns a version bumped by a transaction that has not committed', async () => {
    const readState = identityStateReader(store.db);
    const read = async (organizationId: string) => (await readState(organizationId, 'a-token-id'))?.version;
    const before = (await read(DEMO.organizationId)) as number;
    let settled = false;
    let settledBeforeCommit = false;
    let pending: Promise<number | undefined> | undefined;
    await store.db.transaction().execute(async (trx) => {
      await trx.updateTable('identity_versions').set({ version: before + 1 }).where('organization_id', '=', DEMO.organizationId).execute();
      pending = read(DEMO.organizationId);
      void pending.then(() => { settled = true; });
      await sleep(50);
      settledBeforeCommit = settled;
      // A read that already answered inside the open transaction may only have read the committed value.
      if (settledBeforeCommit) expect(await pending).to.equal(before);
    });
    const value = await pending;
    if (store.dialect === 'sqlite') {
      // One connection: the read waited for the transaction, then read its committed bump.
      expect(settledBeforeCommit).to.equal(false);
      expect(value).to.equal(before + 1);
    } else {
      expect(value).to.equal(before);
    }
    expect(await read(DEMO.organizationId)).to.equal(before + 1);
  });
});
