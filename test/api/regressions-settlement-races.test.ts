/**
 * Regression: settlement races on one title over REST (PostgreSQL, READ COMMITTED). `reopen`
 * deleted the transaction id it had read before its conditional UPDATE, so a reopen racing a
 * reopen + settle pair removed the old settlement and left the new one orphaned (the payable
 * back in `pending`, its account at −200.00); `delete` read `transaction_id` before taking the
 * row lock, so a settlement committed in between outlived the payable (−50.00 on its account).
 * An amount edit racing a settlement let it pay the old amount, and an attachment link racing a
 * reopen survived the settlement transaction it pointed at. Every state-changing title operation
 * now locks the title row before reading it, and removing a settlement transaction locks it
 * first. The fixed-interleaving case holds one reopen after its read to hit the window every
 * time (PostgreSQL only); the others race over REST and run on SQLite too, where write
 * transactions are serialised and the rounds must simply stay clean.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { skipWithReason } from '../helpers/mocha.js';
import { sql, type KyselyPlugin, type PluginTransformResultArgs, type QueryResult, type UnknownRow } from 'kysely';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { checkLedger } from './support/ledger.js';
import { loadFixtures, runOperation, type Fixtures } from './rules/support.js';
import { DEMO } from '../helpers/index.js';

const M = DEMO.workspaces.matriz;
const ROUNDS = 8;
const FANOUT = 6;

/** Holds an operation right after it has read the title row, until `release()`. */
function pauseAfterTitleRead(): { plugin: KyselyPlugin; paused: Promise<void>; release(): void } {
  let onPaused = (): void => {};
  let release = (): void => {};
  const paused = new Promise<void>((resolve) => { onPaused = resolve; });
  const released = new Promise<void>((resolve) => { release = resolve; });
  let done = false;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const row = args.result.rows[0];
      if (!done && row && 'status' in row && 'transaction_id' in row) {
        done = true;
        onPaused();
        await released;
      }
      return args.result;
    },
  };
  return { plugin, paused, release };
}

describe('regression: settle, reopen, delete and update racing on one payable keep the ledger whole', function () {
  this.timeout(120_000);
  let api: RestApp;
  let f: Fixtures;

  before(async () => {
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
  });
  after(async () => { await api?.close(); });

  async function newAccount(): Promise<string> {
    const res = await api.call('POST', '/v1/accounts', { workspace: M, body: { name: `Race ${randomUUID()}`, type: 'checking' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id as string;
  }

  async function newPayable(accountId: string, amount = '100.00'): Promise<string> {
    const res = await api.call('POST', '/v1/payables', {
      workspace: M, body: { description: 'race', amount, due_date: '2026-03-10', person_id: f.vendorId, financial_account_id: accountId },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id as string;
  }

  const settle = (id: string) => api.call('POST', `/v1/payables/${id}/settle`, { workspace: M, body: { payment_date: '2026-03-10' } });
  const reopen = (id: string) => api.call('POST', `/v1/payables/${id}/reopen`, { workspace: M });

  async function balanceOf(accountId: string): Promise<string> {
    const res = await api.call('GET', `/v1/accounts/${accountId}`, { workspace: M });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.balance as string;
  }

  async function expectLedgerClean(round: number): Promise<void> {
    const report = await checkLedger(api.app.services.db, M);
    expect({ round, violations: report.violations }).to.deep.equal({ round, violations: [] });
  }

  it(`settled payable: ${FANOUT} parallel reopen + ${FANOUT} parallel settle, ${ROUNDS} rounds`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const accountId = await newAccount();
      const id = await newPayable(accountId);
      expect((await settle(id)).status).to.equal(200);
      const calls = Array.from({ length: FANOUT }, () => [reopen(id), settle(id)]).flat();
      const results = await Promise.all(calls);
      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 200 || s === 422), JSON.stringify(statuses)).to.equal(true);
      const title = await api.call('GET', `/v1/payables/${id}`, { workspace: M });
      const expected = title.body.status === 'paid' ? '-100.00' : '0.00';
      expect({ round, status: title.body.status, balance: await balanceOf(accountId) })
        .to.deep.equal({ round, status: title.body.status, balance: expected });
      await expectLedgerClean(round);
    }
  });

  it('a reopen that read the payable before another reopen + settle committed deletes no newer settlement (fixed interleaving)', async function () {
    if (!process.env.DATABASE_URL) {
      skipWithReason(this, 'DATABASE_URL is unset; holding one transaction open would block every other SQLite write');
    }
    const db = api.app.services.db;
    const accountId = await newAccount();
    const id = await newPayable(accountId);
    expect((await settle(id)).status).to.equal(200);
    const gate = pauseAfterTitleRead();
    // Reopen #2 reads the paid payable (settlement T1) and stops there, its transaction open.
    const late = runOperation(db, 'payables.reopen', { path: { id } }, { wrapDb: (d) => d.withPlugin(gate.plugin) });
    await gate.paused;
    // Reopen #1 either completes (then a settle writes T2 before #2 goes on) or waits for #2's row lock.
    const early = reopen(id);
    let earlyDone = false;
    void early.then(() => { earlyDone = true; });
    while (!earlyDone && !(await someoneWaitsForALock())) await new Promise((resolve) => setTimeout(resolve, 5));
    if (earlyDone) expect((await settle(id)).status).to.equal(200);
    gate.release();
    await late.catch(() => undefined);
    await early;
    if (!earlyDone) await settle(id);
    await expectLedgerClean(0);
    const title = await api.call('GET', `/v1/payables/${id}`, { workspace: M });
    expect({ status: title.body.status, balance: await balanceOf(accountId) })
      .to.deep.equal({ status: title.body.status, balance: title.body.status === 'paid' ? '-100.00' : '0.00' });

    async function someoneWaitsForALock(): Promise<boolean> {
      const { rows } = await sql<{ n: number | string }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
      return Number(rows[0]?.n ?? 0) > 0;
    }
  });

  it(`payable delete vs settle and vs reopen, ${ROUNDS} rounds each`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const accountId = await newAccount();
      const pending = await newPayable(accountId, '50.00');
      const settled = await newPayable(accountId, '25.00');
      expect((await settle(settled)).status).to.equal(200);
      const [deletedPending, settledPending, deletedSettled, reopenedSettled] = await Promise.all([
        api.call('DELETE', `/v1/payables/${pending}`, { workspace: M }), settle(pending),
        api.call('DELETE', `/v1/payables/${settled}`, { workspace: M }), reopen(settled),
      ]);
      const statuses = [deletedPending, settledPending, deletedSettled, reopenedSettled].map((r) => r.status);
      expect([statuses[0], statuses[2]], JSON.stringify(statuses)).to.deep.equal([204, 204]);
      // Both payables are gone, so whatever ran first, nothing of them stays on the account.
      expect({ round, balance: await balanceOf(accountId) }).to.deep.equal({ round, balance: '0.00' });
      await expectLedgerClean(round);
    }
  });

  it(`amount update vs settle: the settlement pays the amount the payable ends with, ${ROUNDS} rounds`, async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const accountId = await newAccount();
      const id = await newPayable(accountId);
      const [updated, settled] = await Promise.all([
        api.call('PATCH', `/v1/payables/${id}`, { workspace: M, body: { amount: '70.00' } }), settle(id),
      ]);
      expect(settled.status, JSON.stringify(settled.body)).to.equal(200);
      const title = await api.call('GET', `/v1/payables/${id}`, { workspace: M });
      expect({ round, updated: updated.status, paid: title.body.paid_amount, amount: title.body.amount })
        .to.deep.equal({ round, updated: updated.status, paid: title.body.amount, amount: updated.status === 200 ? '70.00' : '100.00' });
      await expectLedgerClean(round);
    }
  });

  it(`attachment link to a settlement transaction vs reopen leaves no link to a removed transaction, ${ROUNDS} rounds`, async () => {
    const db = api.app.services.db;
    for (let round = 0; round < ROUNDS; round += 1) {
      const accountId = await newAccount();
      const id = await newPayable(accountId);
      const settled = await settle(id);
      const transactionId = settled.body.transaction_id as string;
      const attachmentId = randomUUID();
      const now = new Date().toISOString();
      await db.insertInto('attachments').values({
        id: attachmentId, workspace_id: M, sha256: randomUUID().replace(/-/g, '').padEnd(64, '0'), file_name: `race-${round}.pdf`, title: null,
        content_type: 'application/pdf', size: 10, created_at: now, updated_at: now, created_by: DEMO.persons.ana,
        updated_by: DEMO.persons.ana, created_via: 'web', updated_via: 'web', version: 1,
      }).execute();
      const [reopened, linked] = await Promise.all([
        reopen(id),
        api.call('POST', `/v1/attachments/${attachmentId}/links`, { workspace: M, body: { parent_type: 'transaction', parent_id: transactionId } }),
      ]);
      const statuses = `reopen ${reopened.status}, link ${linked.status} ${JSON.stringify(linked.body)}`;
      expect(reopened.status, statuses).to.equal(200);
      expect([201, 404], statuses).to.include(linked.status);
      await expectLedgerClean(round);
    }
  });
});
