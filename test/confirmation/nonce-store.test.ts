/** consumeNonce() / purgeExpiredNonces(): single use on the real database (SQLite, or PostgreSQL with DATABASE_URL). */
import { expect } from 'chai';
import { consumeNonce, purgeExpiredNonces } from '../../src/api/confirmation/nonce-store.js';
import { ApiError } from '../../src/api/errors.js';
import { DEMO } from '../../src/seed/ids.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';

describe('consumeNonce()', function () {
  let store: TestDatabase;
  const use = (nonce: string, expiresAt: number) => ({ nonce, workspaceId: DEMO.workspaces.matriz, personId: DEMO.persons.ana, tool: 'finance_payables_settle', expiresAt });
  const nonces = async () => (await store.db.selectFrom('confirmation_nonces').select('nonce').where('workspace_id', '=', DEMO.workspaces.matriz).execute()).map((r) => r.nonce).sort();

  before(async function () {
    store = await openTestDatabase({ seed: true });
  });
  after(async function () {
    await store?.close();
  });

  it('records a nonce once and answers confirmation_replayed the second time', async function () {
    const now = new Date();
    await consumeNonce(store.db, use('n1', Math.floor(now.getTime() / 1000) + 300), now);
    const error = await consumeNonce(store.db, use('n1', Math.floor(now.getTime() / 1000) + 300), now).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(ApiError);
    expect((error as ApiError).code).to.equal('confirmation_replayed');
  });

  it('does not burn the nonce when the surrounding transaction rolls back', async function () {
    const now = new Date();
    await store.db.transaction().execute(async (trx) => {
      await consumeNonce(trx, use('n2', Math.floor(now.getTime() / 1000) + 300), now);
      throw new Error('the write failed');
    }).catch(() => undefined);
    expect(await nonces()).to.not.include('n2');
    await consumeNonce(store.db, use('n2', Math.floor(now.getTime() / 1000) + 300), now);
    expect(await nonces()).to.include('n2');
  });

  it('purges only the nonces whose states expired more than an hour ago', async function () {
    const now = new Date();
    const seconds = Math.floor(now.getTime() / 1000);
    await consumeNonce(store.db, use('old', seconds - 2 * 3600), now);
    await consumeNonce(store.db, use('recent', seconds - 60), now);
    await purgeExpiredNonces(store.db, DEMO.workspaces.matriz, now);
    const left = await nonces();
    expect(left).to.not.include('old');
    expect(left).to.include.members(['recent', 'n1', 'n2']);
  });
});
