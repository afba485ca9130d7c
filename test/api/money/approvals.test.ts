/**
 * A second approver (maker-checker; issue 29 item 3, docs/security.md#money-controls), on both
 * databases: above the workspace's threshold a confirmed money move does not run — REST answers
 * 202 with the approval request (an Idempotency-Key replay the same request), MCP the union
 * output and a plain note — and another person with `approvals.approve` and the move's own
 * permission approves it (the move runs once, as the requester's) or rejects it. The requester,
 * and an approver without the move's permission, are refused; rejection, expiry and a changed
 * record leave the ledger untouched; the activity names both people; no tool approves. On
 * PostgreSQL, two app instances approving at once run the move once.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { tools } from '../../../generated/registry.gen.js';
import { startRestApp, type CallResult, type RestApp } from '../support/rest-app.js';
import { DEMO } from '../../helpers/index.js';
import { createManualClock, type ManualClock } from '../../helpers/clock.js';
import { skipWithReason } from '../../helpers/mocha.js';
import { createTestSchema, type TestSchema } from '../../helpers/database.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { accept, callTool, countSettlements, expectInputRequired, pickPendingPayable, readTitle } from '../../confirmation/support.js';
import { modernRequest, postMcp } from '../../mcp/support/wire.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../../src/store/schema.js';
import { restoreDemoPermissions, setPermissions } from './support.js';

const WS = DEMO.workspaces.matriz;
const START = Date.parse('2026-06-10T12:00:00.000Z');
const HOUR = 3_600_000;
const ANA_SCOPE = 'finance.all.write finance.security.write finance.approvals.write';
const BRUNO_SCOPE = 'finance.payables.write finance.money.write finance.approvals.write';
/** What bruno may do here: ask for a settle and see approval requests (he approves only where a test says so). */
const BRUNO_REQUESTER = ['payables.view', 'payables.settle', 'approvals.view'];

const setBrunoPermissions = (db: Kysely<Database>, permissions: readonly string[]) => setPermissions(db, DEMO.persons.bruno, permissions);

/** The ledger of one payable: its status and version, and the transactions its settles wrote. */
async function ledgerOf(db: Kysely<Database>, payableId: string): Promise<unknown> {
  return { title: await readTitle(db, payableId), settlements: await countSettlements(db, payableId) };
}

describe('money controls: a second approver (REST and MCP)', function () {
  this.timeout(60_000);
  let api: RestApp;
  let clock: ManualClock;
  const used = new Set<string>();

  before(async () => {
    clock = createManualClock(START);
    api = await startRestApp({ clock });
  });
  after(async () => {
    await restoreDemoPermissions(api.app.services.db, DEMO.persons.bruno);
    await api?.close();
  });
  beforeEach(async () => {
    clock.set(START);
    await setBrunoPermissions(api.app.services.db, BRUNO_REQUESTER);
    await setControls({ approvals: { thresholds: { api: '100.00', mcp: '100.00' }, expires_after_hours: 24 } });
  });
  afterEach(async () => {
    await setControls({ approvals: { thresholds: { api: null, mcp: null } } });
  });

  const ana = () => api.token('ana', ANA_SCOPE);
  const bruno = () => api.token('bruno', BRUNO_SCOPE);

  async function setControls(moneyControls: unknown): Promise<void> {
    const res = await api.call('PATCH', '/v1/security-settings', { workspace: WS, token: await ana(), body: { money_controls: moneyControls } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  async function askToSettle(token: string, key = randomUUID()): Promise<{ res: CallResult; payableId: string; key: string }> {
    const payableId = await pickPendingPayable(api.app.services.db, used);
    const res = await api.call('POST', `/v1/payables/${payableId}/settle`, {
      workspace: WS, token, headers: { 'idempotency-key': key }, body: { payment_date: '2026-06-10' },
    });
    return { res, payableId, key };
  }

  async function pendingRequest(token?: string): Promise<{ id: string; payableId: string; before: unknown; body: any }> { // JSON under test
    const { res, payableId } = await askToSettle(token ?? await bruno());
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    return { id: res.body.id, payableId, before: await ledgerOf(api.app.services.db, payableId), body: res.body };
  }

  const decide = async (id: string, action: 'approve' | 'reject', token: string, body?: unknown) =>
    api.call('POST', `/v1/approvals/${id}/${action}`, { workspace: WS, token, headers: { 'idempotency-key': randomUUID() }, ...(body ? { body } : {}) });

  it('answers 202 with the request over the threshold, nothing paid; a replay of its Idempotency-Key answers the same request', async () => {
    const token = await bruno();
    const { res, payableId, key } = await askToSettle(token);
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body).to.include({ status: 'pending_approval', operation: 'payables.settle', tool: 'finance_payables_settle', requested_by: DEMO.persons.bruno, requested_via: 'api' });
    expect(res.body.description).to.match(/R\$ /);
    expect(res.body.expires_at).to.equal(new Date(START + 24 * HOUR).toISOString());
    expect(res.body.items).to.have.length(1);
    expect(res.body.items[0]).to.include({ record_id: payableId, kind: 'payable', amount: res.body.amount });
    expect(await ledgerOf(api.app.services.db, payableId)).to.deep.equal({ title: { status: 'pending', version: 1 }, settlements: 0 });
    const replay = await api.call('POST', `/v1/payables/${payableId}/settle`, { workspace: WS, token, headers: { 'idempotency-key': key }, body: { payment_date: '2026-06-10' } });
    expect(replay.status).to.equal(202);
    expect(replay.headers.get('idempotency-replayed')).to.equal('true');
    expect(replay.body).to.deep.equal(res.body);
    const stored = await api.app.services.db.selectFrom('approval_requests').select(['input']).where('workspace_id', '=', WS).where('id', '=', res.body.id).executeTakeFirstOrThrow();
    expect(stored.input).to.not.include(key);
  });

  it('refuses the requester their own request (even with approvals.approve), and an approver without the move\'s own permission (who does not see it)', async () => {
    await setBrunoPermissions(api.app.services.db, [...BRUNO_REQUESTER, 'approvals.approve']);
    const own = await pendingRequest();
    const refused = await decide(own.id, 'approve', await bruno());
    expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
    expect(refused.body.error).to.deep.include({ code: 'insufficient_permission', details: { permission: 'approvals.approve', reason: 'own_request' } });
    expect((await decide(own.id, 'reject', await bruno())).status).to.equal(403);
    // Ana asks; bruno may approve requests but may not settle payables.
    const anas = await pendingRequest(await ana());
    await setBrunoPermissions(api.app.services.db, ['payables.view', 'approvals.view', 'approvals.approve']);
    // An approver who could not make the move does not see the request (approvals.get answers the
    // same), so deciding it answers NOT_FOUND rather than confirming it exists.
    const lacking = await decide(anas.id, 'approve', await bruno());
    expect(lacking.status, JSON.stringify(lacking.body)).to.equal(404);
    expect(lacking.body.error).to.deep.include({ code: 'NOT_FOUND' });
    expect((await api.call('GET', `/v1/approvals/${anas.id}`, { workspace: WS, token: await bruno() })).status).to.equal(404);
    for (const request of [own, anas]) {
      expect(await ledgerOf(api.app.services.db, request.payableId)).to.deep.equal(request.before);
      expect((await api.call('GET', `/v1/approvals/${request.id}`, { workspace: WS, token: await ana() })).body.status).to.equal('pending_approval');
    }
  });

  it('approved by another person runs the move once, as the requester\'s; the activity shows both people and the channel', async () => {
    const request = await pendingRequest();
    const approved = await decide(request.id, 'approve', await ana());
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body).to.include({ status: 'approved', decided_by: DEMO.persons.ana, decided_via: 'api' });
    expect(approved.body.result).to.include({ id: request.payableId, status: 'paid' });
    expect(await ledgerOf(api.app.services.db, request.payableId)).to.deep.include({ settlements: 1 });
    const again = await decide(request.id, 'approve', await ana());
    expect(again.status, JSON.stringify(again.body)).to.equal(409);
    expect(await countSettlements(api.app.services.db, request.payableId)).to.equal(1);
    const entries = await api.app.services.db.selectFrom('activity').select(['person_id', 'channel', 'operation', 'resource', 'record_id', 'details'])
      .where('workspace_id', '=', WS).where((eb) => eb.or([eb('record_id', '=', request.payableId), eb('record_id', '=', request.id)])).orderBy('created_at').execute();
    const move = entries.find((e) => e.operation === 'payables.settle' && e.record_id === request.payableId);
    expect(move, JSON.stringify(entries)).to.include({ person_id: DEMO.persons.bruno, channel: 'api' });
    expect(JSON.parse(String(move?.details))).to.deep.equal({ approval_request_id: request.id, requested_by: DEMO.persons.bruno, approved_by: DEMO.persons.ana });
    const approval = entries.find((e) => e.operation === 'approvals.approve');
    expect(approval).to.include({ person_id: DEMO.persons.ana, channel: 'api', resource: 'approvals', record_id: request.id });
    expect(JSON.parse(String(approval?.details))).to.include({ approval_request_id: request.id, requested_by: DEMO.persons.bruno, approved_by: DEMO.persons.ana });
    const asked = entries.find((e) => e.operation === 'payables.settle' && e.record_id === request.id);
    expect(asked).to.include({ person_id: DEMO.persons.bruno, resource: 'approvals' });
  });

  it('a batch over the threshold becomes one approval request; approved, every title of it runs once, counted per title', async () => {
    await setBrunoPermissions(api.app.services.db, BRUNO_REQUESTER);
    const ids = [await pickPendingPayable(api.app.services.db, used), await pickPendingPayable(api.app.services.db, used), await pickPendingPayable(api.app.services.db, used)];
    const asked = await api.call('POST', '/v1/payables/settle-batch', {
      workspace: WS, token: await bruno(), headers: { 'idempotency-key': randomUUID() }, body: { items: ids.map((id) => ({ id, payment_date: '2026-06-10' })) },
    });
    expect(ids).to.have.length(3);
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    expect(asked.body).to.include({ status: 'pending_approval', operation: 'payables.settle_batch' });
    expect((asked.body.items as { record_id: string }[]).map((item) => item.record_id).sort()).to.deep.equal([...ids].sort());
    expect(asked.body.description).to.match(/^Settle 3 payables totalling R\$ /);
    for (const id of ids) expect(await ledgerOf(api.app.services.db, id)).to.deep.include({ settlements: 0 });
    const approved = await decide(asked.body.id, 'approve', await ana());
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(approved.body.status).to.equal('approved');
    for (const id of ids) expect(await ledgerOf(api.app.services.db, id)).to.deep.equal({ title: { status: 'paid', version: 2 }, settlements: 1 });
    const moves = await api.app.services.db.selectFrom('money_moves').select(['record_id', 'person_id', 'approval_request_id'])
      .where('workspace_id', '=', WS).where('approval_request_id', '=', asked.body.id).execute();
    expect(moves.map((m) => m.record_id).sort()).to.deep.equal([...ids].sort());
    expect(moves.map((m) => m.person_id)).to.deep.equal(ids.map(() => DEMO.persons.bruno));
  });

  it('does not run a request whose requester may no longer make the move (deactivated, or the permission removed)', async () => {
    const db = api.app.services.db;
    const request = await pendingRequest();
    await setBrunoPermissions(db, ['payables.view', 'approvals.view']);
    const withoutPermission = await decide(request.id, 'approve', await ana());
    expect(withoutPermission.status, JSON.stringify(withoutPermission.body)).to.equal(409);
    expect(withoutPermission.body.error.message).to.match(/can no longer make it/);
    await setBrunoPermissions(db, BRUNO_REQUESTER);
    await db.updateTable('memberships').set({ status: 'inactive' }).where('organization_id', '=', DEMO.organizationId).where('person_id', '=', DEMO.persons.bruno).execute();
    try {
      expect((await decide(request.id, 'approve', await ana())).status).to.equal(409);
    } finally {
      await db.updateTable('memberships').set({ status: 'active' }).where('organization_id', '=', DEMO.organizationId).where('person_id', '=', DEMO.persons.bruno).execute();
    }
    expect(await ledgerOf(db, request.payableId)).to.deep.equal(request.before);
    const after = await api.call('GET', `/v1/approvals/${request.id}`, { workspace: WS, token: await ana() });
    expect(after.body.status).to.equal('pending_approval');
  });

  it('does not open a second live request for a title already waiting; once that one is rejected it may be asked again', async () => {
    const first = await pendingRequest();
    const again = await api.call('POST', `/v1/payables/${first.payableId}/settle`, {
      workspace: WS, token: await bruno(), headers: { 'idempotency-key': randomUUID() }, body: { payment_date: '2026-06-10' },
    });
    expect(again.status, JSON.stringify(again.body)).to.equal(409);
    expect(again.body.error).to.deep.include({ code: 'CONFLICT', details: { approval_request_id: first.id } });
    expect(await ledgerOf(api.app.services.db, first.payableId)).to.deep.equal(first.before);
    expect((await decide(first.id, 'reject', await ana())).status).to.equal(200);
    const afterRejection = await api.call('POST', `/v1/payables/${first.payableId}/settle`, {
      workspace: WS, token: await bruno(), headers: { 'idempotency-key': randomUUID() }, body: { payment_date: '2026-06-10' },
    });
    expect(afterRejection.status, JSON.stringify(afterRejection.body)).to.equal(202);
    expect(afterRejection.body.id).to.not.equal(first.id);
    expect((await decide(afterRejection.body.id, 'reject', await ana())).status).to.equal(200);
  });

  it('rejection, expiry and a changed record leave the ledger untouched; the request says why', async () => {
    const rejected = await pendingRequest();
    const rejection = await decide(rejected.id, 'reject', await ana(), { reason: 'Not this month' });
    expect(rejection.status, JSON.stringify(rejection.body)).to.equal(200);
    expect(rejection.body).to.include({ status: 'rejected', reason: 'Not this month', result: null });
    expect((await decide(rejected.id, 'approve', await ana())).status).to.equal(409);
    expect(await ledgerOf(api.app.services.db, rejected.payableId)).to.deep.equal(rejected.before);

    const expiring = await pendingRequest();
    clock.set(START + 24 * HOUR);
    expect((await api.call('GET', `/v1/approvals/${expiring.id}`, { workspace: WS, token: await ana() })).body.status).to.equal('expired');
    const late = await decide(expiring.id, 'approve', await ana());
    expect(late.status, JSON.stringify(late.body)).to.equal(409);
    expect(late.body.error.details).to.deep.equal({ approval_request_id: expiring.id, status: 'expired' });
    expect(await ledgerOf(api.app.services.db, expiring.payableId)).to.deep.equal(expiring.before);
    clock.set(START);

    const changed = await pendingRequest();
    const edit = await api.call('PATCH', `/v1/payables/${changed.payableId}`, { workspace: WS, token: await ana(), body: { description: `changed ${randomUUID()}` } });
    expect(edit.status, JSON.stringify(edit.body)).to.equal(200);
    const afterEdit = await ledgerOf(api.app.services.db, changed.payableId);
    const stale = await decide(changed.id, 'approve', await ana());
    expect(stale.status, JSON.stringify(stale.body)).to.equal(409);
    expect(stale.body.error.message).to.match(/stays pending until it expires or is rejected/);
    expect(await ledgerOf(api.app.services.db, changed.payableId)).to.deep.equal(afterEdit);
    expect((await api.call('GET', `/v1/approvals/${changed.id}`, { workspace: WS, token: await ana() })).body.status).to.equal('pending_approval');
  });

  it('lists under status=pending what the caller may approve (never their own); the requester sees their own', async () => {
    const request = await pendingRequest();
    const forAna = await api.call('GET', '/v1/approvals?status=pending&limit=100', { workspace: WS, token: await ana() });
    expect(forAna.status, JSON.stringify(forAna.body)).to.equal(200);
    const anaIds = forAna.body.data.map((r: { id: string }) => r.id);
    expect(anaIds).to.include(request.id);
    await setBrunoPermissions(api.app.services.db, [...BRUNO_REQUESTER, 'approvals.approve']);
    const brunoToken = await api.token('bruno', 'finance.approvals');
    const forBruno = await api.call('GET', '/v1/approvals?status=pending&limit=100', { workspace: WS, token: brunoToken });
    expect(forBruno.body.data.map((r: { id: string }) => r.id)).to.not.include(request.id);
    const own = await api.call('GET', '/v1/approvals?status=pending_approval&limit=100', { workspace: WS, token: brunoToken });
    expect(own.body.data.map((r: { id: string }) => r.id)).to.include(request.id);
  });

  it('over MCP the confirmed call answers the request (the union output validates) and says plainly that nothing ran', async () => {
    const token = await api.app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
    const payableId = await pickPendingPayable(api.app.services.db, used);
    const args = { workspace_id: WS, id: payableId, payment_date: '2026-06-10', idempotency_key: randomUUID() };
    const first = await callTool(api.app.url, token, 'finance_payables_settle', args);
    const { requestState } = expectInputRequired(first);
    const answer = await callTool(api.app.url, token, 'finance_payables_settle', args, { requestState, inputResponses: accept() });
    const result = answer.body.result as { content: { text: string }[]; structuredContent: Record<string, unknown>; isError?: boolean };
    expect(result.isError, JSON.stringify(answer.body)).to.equal(undefined);
    expect(result.structuredContent).to.include({ status: 'pending_approval', requested_via: 'mcp' });
    const tool = tools.find((t) => t.name === 'finance_payables_settle');
    const ajv = new Ajv2020({ strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    expect(ajv.validate(tool!.output!.schema, result.structuredContent), ajv.errorsText()).to.equal(true);
    const getter = tools.find((t) => t.name === 'finance_approvals_get');
    expect(ajv.validate(getter!.output!.schema, result.structuredContent), ajv.errorsText()).to.equal(true);
    expect(result.content[1]?.text).to.match(/^Nothing ran yet/).and.include(String(result.structuredContent['id'])).and.include(String(result.structuredContent['expires_at']));
    expect(result.content[1]?.text).to.include('approvals.approve');
    // The embedded Account's page for the second person is named, so the agent can hand it over.
    expect(result.structuredContent['approval_url']).to.equal(`${api.app.url}/account/approval-requests/${String(result.structuredContent['id'])}?workspace_id=${WS}`);
    expect(result.content[1]?.text).to.include(String(result.structuredContent['approval_url']));
    expect(await ledgerOf(api.app.services.db, payableId)).to.deep.equal({ title: { status: 'pending', version: 1 }, settlements: 0 });
  });

  it('no approve or reject tool in any tools/list (every profile and revision)', async () => {
    const decisions = new Set(['approvals.approve', 'approvals.reject']);
    expect(tools.filter((t) => decisions.has(t.operation.operationId))).to.deep.equal([]);
    const token = await api.app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
    const seen: string[] = [];
    for (const profile of ['', '?schema=openai', '?schema=gemini']) {
      for (const revision of ['2026-07-28', '2025-06-18', '2025-03-26']) {
        const request = revision === '2026-07-28' ? modernRequest(1, 'tools/list') : { body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, headers: { 'mcp-protocol-version': revision } };
        const response = await postMcp(`${api.app.url}/mcp${profile}`, request.body, { authorization: `Bearer ${token}`, ...request.headers });
        const names = ((JSON.parse(response.text) as { result: { tools: { name: string }[] } }).result.tools).map((t) => t.name);
        expect(names, `${revision} ${profile}`).to.include('finance_approvals_get');
        expect(names.filter((n) => /approve|reject/.test(n)), `${revision} ${profile}`).to.deep.equal([]);
        seen.push(`${revision}${profile}`);
      }
    }
    expect(seen).to.have.length(9);
  });
});

describe('an approval request approved on two app instances at once runs once (PostgreSQL)', function () {
  this.timeout(60_000);
  let dataDir: string;
  let schema: TestSchema;
  let a: TestApp;
  let b: TestApp;

  before(async function () {
    if (!process.env.DATABASE_URL) skipWithReason(this, 'DATABASE_URL is unset; replicas share one database on PostgreSQL only');
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-approvals-'));
    schema = await createTestSchema();
    const config = { dataDir, databaseUrl: schema.databaseUrl, confirmationKey: randomBytes(32).toString('base64url') };
    a = await startTestApp({ config });
    b = await startTestApp({ config });
    await setBrunoPermissions(a.services.db, BRUNO_REQUESTER);
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await schema?.drop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function rest(app: TestApp, token: string, method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> { // JSON under test
    const res = await fetch(`${app.url}${url}`, {
      method, headers: { authorization: `Bearer ${token}`, 'x-workspace-id': WS, 'idempotency-key': randomUUID(), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: await res.json() };
  }

  it('ten rounds: one 200 and one 409, one settlement each', async () => {
    const anaA = await a.mintToken({ person: DEMO.emails.ana, scope: ANA_SCOPE, aud: 'api' });
    const anaB = await b.mintToken({ person: DEMO.emails.ana, scope: ANA_SCOPE, aud: 'api' });
    const brunoA = await a.mintToken({ person: DEMO.emails.bruno, scope: BRUNO_SCOPE, aud: 'api' });
    const set = await rest(a, anaA, 'PATCH', '/v1/security-settings', { money_controls: { approvals: { thresholds: { api: '100.00' } } } });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    const used = new Set<string>();
    const rounds = Array.from({ length: 10 }, (_, i) => i);
    expect(rounds).to.not.be.empty;
    for (const round of rounds) {
      const payableId = await pickPendingPayable(a.services.db, used);
      const asked = await rest(a, brunoA, 'POST', `/v1/payables/${payableId}/settle`, { payment_date: '2026-06-10' });
      expect(asked.status, `round ${round}: ${JSON.stringify(asked.body)}`).to.equal(202);
      const answers = await Promise.all([
        rest(a, anaA, 'POST', `/v1/approvals/${asked.body.id}/approve`),
        rest(b, anaB, 'POST', `/v1/approvals/${asked.body.id}/approve`),
      ]);
      expect(answers.map((x) => x.status).sort(), `round ${round}: ${JSON.stringify(answers)}`).to.deep.equal([200, 409]);
      expect(await countSettlements(a.services.db, payableId), `round ${round}`).to.equal(1);
      const moves = await a.services.db.selectFrom('money_moves').select('id').where('workspace_id', '=', WS).where('approval_request_id', '=', asked.body.id).execute();
      expect(moves, `round ${round}`).to.have.length(1);
    }
  });
});
