/**
 * The demo's pending approval requests (issue 29 item 6, src/seed/approvals.ts), on a fresh seed of
 * the real app: bruno's agent asked, over MCP with an OAuth token, to settle one payable and a batch
 * of three; ana sees both under status=pending, the rows hold what a real request stores (the
 * describer's sentence for bruno, amounts, items and versions, the input, the 24-hour expiry on the
 * seed's clock), neither payable can be asked for again while they wait, and approving the single
 * one over REST settles it once.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { handlers } from '../../generated/handlers.gen.js';
import { routes } from '../../generated/registry.gen.js';
import { createConfirmationDescribers } from '../../src/api/confirmation/describe.js';
import { DEMO_MEMBERS } from '../../src/seed/identity.js';
import type { Caller } from '../../src/api/context.js';
import { DEMO } from '../helpers/index.js';
import { createManualClock } from '../helpers/clock.js';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { countSettlements, readTitle } from '../confirmation/support.js';

const WS = DEMO.workspaces.matriz;
/** A day far from the real one: the requests are laid out on the seed's clock, not the system's. */
const SEEDED_AT = Date.parse('2031-05-20T12:00:00.000Z');
const TODAY = '2031-05-20';
const HOUR = 3_600_000;
/** ana's personal token to decide (finance.approvals.write is explicit-only; the move's own scopes too). */
const APPROVER_SCOPE = 'finance.approvals.write finance.money.write finance.payables.write';

interface StoredItem { record_id: string; kind: string; cents: number; version: number; label: string }

describe('demo seed: the pending approval requests', function () {
  this.timeout(60_000);
  let api: RestApp;

  before(async () => {
    api = await startRestApp({ clock: createManualClock(SEEDED_AT) });
  });
  after(async () => api?.close());

  const db = () => api.app.services.db;
  const ana = () => api.token('ana', APPROVER_SCOPE);
  const stored = (id: string) => db().selectFrom('approval_requests').selectAll().where('workspace_id', '=', WS).where('id', '=', id).executeTakeFirstOrThrow();

  it('lists both to ana under status=pending, asked by bruno over MCP', async () => {
    const res = await api.call('GET', '/v1/approvals?status=pending&limit=100', { workspace: WS, token: await ana() });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const items = res.body.data as { id: string; operation: string; status: string; requested_by: string; requested_via: string; expires_at: string; created_at: string }[];
    expect(items.map((item) => item.id).sort()).to.deep.equal([DEMO.approvalRequests.settle, DEMO.approvalRequests.batch].sort());
    expect(items.map((item) => item.operation).sort()).to.deep.equal(['payables.settle', 'payables.settle_batch']);
    for (const item of items) {
      expect(item).to.include({ status: 'pending_approval', requested_by: DEMO.persons.bruno, requested_via: 'mcp', created_at: new Date(SEEDED_AT).toISOString() });
      expect(item.expires_at).to.equal(new Date(SEEDED_AT + 24 * HOUR).toISOString());
    }
  });

  it('stores what a real request stores: the describer\'s sentence for bruno, the measured items and versions, the input', async () => {
    const bruno = DEMO_MEMBERS.find((member) => member.personId === DEMO.persons.bruno);
    expect(bruno, 'the demo has bruno').to.not.equal(undefined);
    const caller: Caller = {
      personId: DEMO.persons.bruno, organizationId: DEMO.organizationId, scopes: new Set(['finance.payables.write', 'finance.money.write']), tokenType: 'oauth', channel: 'mcp',
      membership: { status: 'active', isAdmin: false, permissions: new Set(bruno?.permissions), workspaceIds: [WS], workspaceNames: new Map() },
    };
    const describers = createConfirmationDescribers({ routes, handlers });
    const requests = [await stored(DEMO.approvalRequests.settle), await stored(DEMO.approvalRequests.batch)];
    expect(requests).to.have.length(2);
    for (const row of requests) {
      expect(row).to.include({ requested_by: DEMO.persons.bruno, requested_via: 'mcp', token_type: 'oauth', status: 'pending_approval' });
      const input = JSON.parse(row.input) as { path: Record<string, string>; query: Record<string, unknown>; body: unknown };
      const describer = describers.describerFor(row.operation_id);
      expect(describer, row.operation_id).to.not.equal(undefined);
      const { message } = await (describer as NonNullable<typeof describer>)({ caller, db: db(), workspaceId: WS, input, now: () => new Date(SEEDED_AT) });
      expect(row.sentence).to.equal(message);
      const items = JSON.parse(row.items) as StoredItem[];
      expect(items.length).to.be.greaterThan(0);
      for (const item of items) {
        const title = await db().selectFrom('titles').select(['amount_cents', 'status', 'version', 'description']).where('workspace_id', '=', WS).where('id', '=', item.record_id).executeTakeFirstOrThrow();
        expect(title.status).to.equal('pending');
        expect(item).to.include({ kind: 'payable', cents: Number(title.amount_cents), version: Number(title.version), label: `payable ${JSON.stringify(title.description)}` });
        expect(item.cents, 'a plausible amount').to.be.at.least(100_000);
      }
      expect(Number(row.amount_cents)).to.equal(items.reduce((sum, item) => sum + item.cents, 0));
    }
    const [single, batch] = requests as [typeof requests[number], typeof requests[number]];
    expect(JSON.parse(single.input)).to.deep.equal({ path: { id: (JSON.parse(single.items) as StoredItem[])[0]?.record_id }, query: {}, body: { payment_date: TODAY } });
    const batchItems = (JSON.parse(batch.items) as StoredItem[]).map((item) => ({ id: item.record_id, payment_date: TODAY }));
    expect(JSON.parse(batch.input)).to.deep.equal({ path: {}, query: {}, body: { items: batchItems } });
  });

  it('shows the batch\'s items: three other payables than the single one, of other titles', async () => {
    const single = await api.call('GET', `/v1/approvals/${DEMO.approvalRequests.settle}`, { workspace: WS, token: await ana() });
    const batch = await api.call('GET', `/v1/approvals/${DEMO.approvalRequests.batch}`, { workspace: WS, token: await ana() });
    expect(single.status, JSON.stringify(single.body)).to.equal(200);
    expect(batch.status, JSON.stringify(batch.body)).to.equal(200);
    expect(single.body.items).to.have.length(1);
    expect(batch.body.items).to.have.length(3);
    const ids = (batch.body.items as { record_id: string }[]).map((item) => item.record_id);
    const labels = (batch.body.items as { label: string }[]).map((item) => item.label);
    expect(new Set(ids).size).to.equal(3);
    expect(ids).to.not.include(single.body.items[0].record_id);
    expect(new Set([...labels, single.body.items[0].label]).size, 'four distinct titles').to.equal(4);
    expect(batch.body.description).to.match(/^Settle 3 payables totalling R\$ /);
    expect(batch.body.amount).to.match(/^\d+\.\d{2}$/);
  });

  it('refuses a second request of a payable either one waits to settle (CONFLICT naming the request)', async () => {
    const single = await stored(DEMO.approvalRequests.settle);
    const batch = await stored(DEMO.approvalRequests.batch);
    const singleId = (JSON.parse(single.items) as StoredItem[])[0]?.record_id;
    const batchId = (JSON.parse(batch.items) as StoredItem[])[1]?.record_id;
    expect(singleId).to.be.a('string');
    expect(batchId).to.be.a('string');
    // A threshold for this test only (the demo configures none): bruno's settles then ask for approval.
    const admin = await api.token('ana', 'finance.all.write finance.security.write finance.approvals.write');
    const set = (thresholds: unknown) => api.call('PATCH', '/v1/security-settings', { workspace: WS, token: admin, body: { money_controls: { approvals: { thresholds } } } });
    expect((await set({ api: '100.00', mcp: '100.00' })).status).to.equal(200);
    try {
      const bruno = await api.token('bruno', 'finance.payables.write finance.money.write');
      for (const [id, requestId] of [[singleId, single.id], [batchId, batch.id]] as const) {
        const res = await api.call('POST', `/v1/payables/${id}/settle`, { workspace: WS, token: bruno, headers: { 'idempotency-key': randomUUID() }, body: { payment_date: TODAY } });
        expect(res.status, JSON.stringify(res.body)).to.equal(409);
        expect(res.body.error).to.deep.include({ code: 'CONFLICT', details: { approval_request_id: requestId } });
        expect(await readTitle(db(), id as string)).to.deep.equal({ status: 'pending', version: 1 });
      }
    } finally {
      expect((await set({ api: null, mcp: null })).status).to.equal(200);
    }
  });

  it('approved by ana over REST, settles the single payable once, as bruno\'s', async () => {
    const row = await stored(DEMO.approvalRequests.settle);
    const payableId = (JSON.parse(row.items) as StoredItem[])[0]?.record_id as string;
    expect(await readTitle(db(), payableId)).to.deep.equal({ status: 'pending', version: 1 });
    const key = randomUUID();
    const approve = async (idempotencyKey: string) => api.call('POST', `/v1/approvals/${DEMO.approvalRequests.settle}/approve`, {
      workspace: WS, token: await ana(), headers: { 'idempotency-key': idempotencyKey },
    });
    const approved = await approve(key);
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body).to.include({ status: 'approved', decided_by: DEMO.persons.ana, decided_via: 'api', requested_by: DEMO.persons.bruno });
    expect(approved.body.result).to.include({ id: payableId, status: 'paid' });
    expect(await readTitle(db(), payableId)).to.deep.equal({ status: 'paid', version: 2 });
    expect(await countSettlements(db(), payableId)).to.equal(1);
    // The same key answers the same decision; another one finds it decided. Nothing is paid twice.
    const replay = await approve(key);
    expect(replay.status).to.equal(200);
    expect(replay.body).to.deep.equal(approved.body);
    const again = await approve(randomUUID());
    expect(again.status, JSON.stringify(again.body)).to.equal(409);
    expect(await countSettlements(db(), payableId)).to.equal(1);
    const tx = await db().selectFrom('transactions').select(['created_by', 'created_via']).where('workspace_id', '=', WS).where('source', '=', 'settlement').where('source_id', '=', payableId).executeTakeFirstOrThrow();
    expect(tx).to.deep.equal({ created_by: DEMO.persons.bruno, created_via: 'mcp' });
    // The batch still waits.
    const pending = await api.call('GET', '/v1/approvals?status=pending&limit=100', { workspace: WS, token: await ana() });
    expect((pending.body.data as { id: string }[]).map((item) => item.id)).to.deep.equal([DEMO.approvalRequests.batch]);
  });
});
