/**
 * payables/receivables settle_batch and cancel_batch over REST (issue 29, item 4): one
 * transaction, all or nothing, a per-title report; a failing title rolls the whole batch back
 * and is named in details.failed; duplicates and 51 titles are refused. Runs on SQLite and, with
 * DATABASE_URL, on PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';
import { loadFixtures, type Fixtures } from '../rules/support.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;

interface Kind { readonly resource: 'payables' | 'receivables'; readonly settled: 'paid' | 'received'; readonly sign: -1 | 1 }
const KINDS: readonly Kind[] = [
  { resource: 'payables', settled: 'paid', sign: -1 },
  { resource: 'receivables', settled: 'received', sign: 1 },
];

describe('settle_batch and cancel_batch (REST)', function () {
  this.timeout(60_000);
  let api: RestApp;
  let f: Fixtures;
  let filial: Fixtures;

  before(async () => {
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
    filial = await loadFixtures(api.app.services.db, F);
  });
  after(async () => { await api?.close(); });

  async function newAccount(workspace: string = M): Promise<string> {
    const res = await api.call('POST', '/v1/accounts', { workspace, body: { name: `Lote ${randomUUID().slice(0, 8)}`, type: 'checking' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id as string;
  }
  async function balance(accountId: string): Promise<string> {
    const res = await api.call('GET', `/v1/accounts/${accountId}`, { workspace: M });
    expect(res.status).to.equal(200);
    return res.body.balance as string;
  }
  async function createTitles(kind: Kind, amounts: readonly string[], accountId: string, workspace: string = M, fixtures = f): Promise<string[]> {
    const ids: string[] = [];
    for (const [i, amount] of amounts.entries()) {
      const res = await api.call('POST', `/v1/${kind.resource}`, {
        workspace,
        body: {
          description: `Lote ${i}`, amount, due_date: '2026-03-10', financial_account_id: accountId,
          person_id: kind.resource === 'payables' ? fixtures.vendorId : fixtures.customerId,
          category_id: kind.resource === 'payables' ? fixtures.debitCategoryId : fixtures.creditCategoryId,
        },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids.push(res.body.id as string);
    }
    return ids;
  }
  async function readTitle(kind: Kind, id: string): Promise<Record<string, unknown>> {
    const res = await api.call('GET', `/v1/${kind.resource}/${id}`, { workspace: M });
    expect(res.status).to.equal(200);
    return res.body as Record<string, unknown>;
  }
  async function settlementCount(ids: readonly string[]): Promise<number> {
    const rows = await api.app.services.db.selectFrom('transactions').select('id')
      .where('workspace_id', '=', M).where('source', '=', 'settlement').where('source_id', 'in', [...ids]).execute();
    return rows.length;
  }
  const settle = (kind: Kind, items: unknown[]) => api.call('POST', `/v1/${kind.resource}/settle-batch`, { workspace: M, body: { items } });
  const cancel = (kind: Kind, ids: unknown[]) => api.call('POST', `/v1/${kind.resource}/cancel-batch`, { workspace: M, body: { ids } });

  for (const kind of KINDS) {
    describe(kind.resource, () => {
      it('settles every title in one call, each with its own settlement transaction, and answers each outcome, the count and the total', async () => {
        const account = await newAccount();
        const ids = await createTitles(kind, ['100.00', '250.50', '10.00'], account);
        const res = await settle(kind, [
          { id: ids[0], payment_date: '2026-03-09' },
          { id: ids[1], payment_date: '2026-03-09', interest_amount: '1.50', discount_amount: '2.00' },
          { id: ids[2], payment_date: '2026-03-08' },
        ]);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        // Told apart from an approval request (status pending_approval) in the tool's output union.
        expect(res.body.status).to.equal('settled');
        expect(res.body.count).to.equal(3);
        expect(res.body.total).to.equal('360.00');
        const items = res.body.items as Record<string, unknown>[];
        expect(items.map((i) => i['id'])).to.deep.equal(ids);
        expect(items[1]).to.include({ description: 'Lote 1', status: kind.settled, amount: '250.50', paid_amount: '250.00', payment_date: '2026-03-09', financial_account_id: account });
        for (const [i, id] of ids.entries()) {
          const title = await readTitle(kind, id);
          expect(title['status']).to.equal(kind.settled);
          expect(title['transaction_id']).to.equal(items[i]?.['transaction_id']);
        }
        expect(await settlementCount(ids)).to.equal(3);
        expect(await balance(account)).to.equal(kind.sign < 0 ? '-360.00' : '360.00');
      });

      it('rolls the whole batch back when one title is already settled, one is of another workspace and one has a discount too large, naming each', async () => {
        const account = await newAccount();
        const ids = await createTitles(kind, ['100.00', '200.00', '300.00'], account);
        const paidAlready = ids[0] as string;
        expect((await api.call('POST', `/v1/${kind.resource}/${paidAlready}/settle`, { workspace: M, body: { payment_date: '2026-03-01' } })).status).to.equal(200);
        const [foreign] = await createTitles(kind, ['5.00'], await newAccount(F), F, filial);
        const before = await balance(account);
        const res = await settle(kind, [
          { id: ids[1], payment_date: '2026-03-09' },
          { id: paidAlready, payment_date: '2026-03-09' },
          { id: foreign, payment_date: '2026-03-09' },
          { id: ids[2], payment_date: '2026-03-09', discount_amount: '300.00' },
        ]);
        expect(res.status, JSON.stringify(res.body)).to.equal(422);
        expect(res.body.error.code).to.equal('UNPROCESSABLE_ENTITY');
        const failed = res.body.error.details.failed as { index: number; id: string; code: string; message: string }[];
        expect(failed.map((x) => [x.index, x.id, x.code])).to.deep.equal([
          [1, paidAlready, 'UNPROCESSABLE_ENTITY'], [2, foreign, 'NOT_FOUND'], [3, ids[2], 'UNPROCESSABLE_ENTITY'],
        ]);
        expect(failed[2]?.message).to.equal('The discount must be smaller than the amount plus interest.');
        // Nothing written: the good title is still pending and has no settlement.
        expect((await readTitle(kind, ids[1] as string))['status']).to.equal('pending');
        expect(await settlementCount([ids[1] as string, ids[2] as string])).to.equal(0);
        expect(await balance(account)).to.equal(before);
      });

      it('answers 404 NOT_FOUND with the title named when the only failure is a title that does not exist', async () => {
        const account = await newAccount();
        const [id] = await createTitles(kind, ['1.00'], account);
        const missing = randomUUID();
        const res = await settle(kind, [{ id, payment_date: '2026-03-09' }, { id: missing, payment_date: '2026-03-09' }]);
        expect(res.status).to.equal(404);
        expect(res.body.error.details.failed).to.deep.equal([{ index: 1, id: missing, code: 'NOT_FOUND', message: `${kind.resource === 'payables' ? 'Payable' : 'Receivable'} not found.` }]);
        expect((await readTitle(kind, id as string))['status']).to.equal('pending');
      });

      it('refuses a title given twice (naming the later entry) and 51 titles with VALIDATION_ERROR, writing nothing', async () => {
        const account = await newAccount();
        const ids = await createTitles(kind, ['1.00', '2.00'], account);
        const twice = await settle(kind, [{ id: ids[0], payment_date: '2026-03-09' }, { id: ids[1], payment_date: '2026-03-09' }, { id: ids[0], payment_date: '2026-03-10' }]);
        expect(twice.status).to.equal(400);
        expect(twice.body.error.code).to.equal('VALIDATION_ERROR');
        expect(twice.body.error.details.issues).to.deep.equal([{ path: 'items[2].id', message: 'repeats the title of entry 0' }]);
        const tooMany = await settle(kind, Array.from({ length: 51 }, () => ({ id: randomUUID(), payment_date: '2026-03-09' })));
        expect(tooMany.status).to.equal(400);
        expect(tooMany.body.error.code).to.equal('VALIDATION_ERROR');
        expect((await settle(kind, [])).status).to.equal(400);
        const cancelTwice = await cancel(kind, [ids[1], ids[1]]);
        expect(cancelTwice.status).to.equal(400);
        expect(cancelTwice.body.error.details.issues).to.deep.equal([{ path: 'ids[1]', message: 'repeats the title of entry 0' }]);
        expect((await cancel(kind, Array.from({ length: 51 }, () => randomUUID()))).status).to.equal(400);
        expect(await settlementCount(ids)).to.equal(0);
        for (const id of ids) expect((await readTitle(kind, id))['status']).to.equal('pending');
      });

      it('cancels every title in one call, and rolls back a cancel batch with a settled title in it', async () => {
        const account = await newAccount();
        const ids = await createTitles(kind, ['10.00', '20.00', '30.00', '40.00'], account);
        const ok = await cancel(kind, [ids[0], ids[1]]);
        expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
        expect(ok.body).to.deep.include({ count: 2, total: '30.00' });
        expect(ok.body.items).to.deep.equal([
          { id: ids[0], description: 'Lote 0', status: 'cancelled', amount: '10.00' },
          { id: ids[1], description: 'Lote 1', status: 'cancelled', amount: '20.00' },
        ]);
        expect((await api.call('POST', `/v1/${kind.resource}/${ids[3]}/settle`, { workspace: M, body: { payment_date: '2026-03-01' } })).status).to.equal(200);
        const refused = await cancel(kind, [ids[2], ids[3], ids[0]]);
        expect(refused.status).to.equal(422);
        expect((refused.body.error.details.failed as { index: number }[]).map((x) => x.index)).to.deep.equal([1, 2]);
        expect((await readTitle(kind, ids[2] as string))['status']).to.equal('pending');
      });

      it('replays an Idempotency-Key: the second call answers the first report and settles nothing more', async () => {
        const account = await newAccount();
        const [id] = await createTitles(kind, ['7.00'], account);
        const headers = { 'idempotency-key': `batch-${randomUUID()}` };
        const body = { items: [{ id, payment_date: '2026-03-09' }] };
        const first = await api.call('POST', `/v1/${kind.resource}/settle-batch`, { workspace: M, body, headers });
        const again = await api.call('POST', `/v1/${kind.resource}/settle-batch`, { workspace: M, body, headers });
        expect(first.status).to.equal(200);
        expect(again.status).to.equal(200);
        expect(again.headers.get('idempotency-replayed')).to.equal('true');
        expect(again.body).to.deep.equal(first.body);
        expect(await settlementCount([id as string])).to.equal(1);
      });
    });
  }

  it('two batches over the same titles in opposite orders never deadlock: one settles them all, the other is refused, each title paid once', async () => {
    const kind = KINDS[0] as Kind;
    const account = await newAccount();
    for (let round = 0; round < 5; round += 1) {
      const ids = await createTitles(kind, Array.from({ length: 12 }, (_, i) => `${i + 1}.00`), account);
      const items = ids.map((id) => ({ id, payment_date: '2026-03-09' }));
      const answers = await Promise.all([settle(kind, items), settle(kind, [...items].reverse())]);
      expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).to.deep.equal([200, 422]);
      expect(await settlementCount(ids)).to.equal(12);
    }
    expect(await balance(account)).to.equal('-390.00');
  });

  it('writes one activity entry per title, under the batch operation', async () => {
    const kind = KINDS[0] as Kind;
    const ids = await createTitles(kind, ['1.00', '2.00'], await newAccount());
    expect((await settle(kind, ids.map((id) => ({ id, payment_date: '2026-03-09' })))).status).to.equal(200);
    const rows = await api.app.services.db.selectFrom('activity').select(['operation', 'record_id'])
      .where('workspace_id', '=', M).where('record_id', 'in', ids).where('operation', '=', 'payables.settle_batch').execute();
    expect(rows.map((r) => r.record_id).sort()).to.deep.equal([...ids].sort());
  });
});
