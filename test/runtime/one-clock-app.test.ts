/**
 * One clock, end to end (docs/architecture.md#conventions, docs/testing.md#time): the real app on
 * a manual clock (`startTestApp({clock})`, test/helpers/clock.ts). Each expiry and window is
 * crossed by moving that clock, never by sleeping — token expiry and the subject check's cache,
 * the confirmation's 5-minute state, the idempotency key's 24 h, the API budget's window — and
 * the prompts' and completions' "today" is the clock's day (a prompt's in its workspace's time zone).
 */
import { expect } from 'chai';
import { CONFIRMATION_TTL_SECONDS } from '../../src/api/confirmation/state.js';
import { IDEMPOTENCY_TTL_MS } from '../../src/api/idempotency.js';
import { CLOCK_TOLERANCE_SECONDS } from '../../src/auth/verify.js';
import { createManualClock, type ManualClock } from '../helpers/clock.js';
import { DEMO, startTestApp, type TestApp } from '../helpers/index.js';
import {
  ALL_WRITE, accept, callTool, countSettlements, expectInputRequired, expectInvalidParams, expectSuccess, pickPendingPayable, readTitle, settleArgs,
} from '../confirmation/support.js';

const M = DEMO.workspaces.matriz;

interface Reply {
  readonly status: number;
  readonly headers: Headers;
  // Response JSON is checked field by field in the tests.
  readonly body: any;
}

async function rest(app: TestApp, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(`${app.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-workspace-id': M, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}

/** A 2025-06-18 JSON-RPC call (no envelope needed for prompts and completions). */
async function rpc(app: TestApp, token: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const json = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (json.result === undefined) throw new Error(`${method} failed: ${JSON.stringify(json.error)}`);
  return json.result;
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

describe('one clock: expiries and windows move with the services\' clock', function () {
  this.timeout(30_000);
  let clock: ManualClock;
  let app: TestApp;
  const used = new Set<string>();

  before(async () => {
    clock = createManualClock();
    app = await startTestApp({ clock });
  });
  after(async () => app?.close());

  describe('tokens', function () {
    it('a token expires when the clock passes exp plus the 30 s tolerance, even once cached as verified', async () => {
      const token = await app.mintToken({ person: DEMO.emails.ana, aud: 'api', ttlSeconds: 120 });
      expect((await rest(app, token, 'GET', '/v1/accounts')).status).to.equal(200);
      clock.advance((120 + CLOCK_TOLERANCE_SECONDS - 1) * 1000);
      expect((await rest(app, token, 'GET', '/v1/accounts')).status, 'within the tolerance').to.equal(200);
      clock.advance(2_000);
      const expired = await rest(app, token, 'GET', '/v1/accounts');
      expect(expired.status).to.equal(401);
      expect(expired.body.error.message).to.match(/expired/);
    });

    it('a token minted on the clock is valid on it: iat and exp come from the clock, not the machine', async () => {
      clock.advance(10 * 86_400_000); // ten days ahead of the machine: a real-time iat/exp would be long expired
      const token = await app.mintToken({ person: DEMO.emails.ana, aud: 'api', ttlSeconds: 60 });
      expect((await rest(app, token, 'GET', '/v1/accounts')).status).to.equal(200);
    });

    it('a deleted person is refused once the subject check\'s 5 s cache runs out on the clock', async () => {
      const token = await app.mintToken({ person: DEMO.emails.bruno, aud: 'api' });
      const read = await rest(app, token, 'GET', '/v1/payables?limit=1');
      expect(read.status, JSON.stringify(read.body)).to.equal(200);
      const db = app.services.db;
      await db.updateTable('persons').set({ deleted_at: new Date(clock.now()).toISOString() }).where('id', '=', DEMO.persons.bruno).execute();
      try {
        clock.advance(5_000);
        const refused = await rest(app, token, 'GET', '/v1/payables?limit=1');
        expect(refused.status).to.equal(401);
        expect(refused.body.error.message).to.match(/no longer exists/);
      } finally {
        await db.updateTable('persons').set({ deleted_at: null }).where('id', '=', DEMO.persons.bruno).execute();
        clock.advance(5_000);
      }
    });
  });

  describe('confirmation of destructive tools', function () {
    let token: string;
    before(async () => {
      token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    });

    it('an accepted state is refused once the clock passes its 5 minutes, and nothing is written', async () => {
      const id = await pickPendingPayable(app.services.db, used);
      const before = await readTitle(app.services.db, id);
      const asked = expectInputRequired(await callTool(app.url, token, 'finance_payables_settle', settleArgs(id)));
      clock.advance(CONFIRMATION_TTL_SECONDS * 1000);
      expectInvalidParams(await callTool(app.url, token, 'finance_payables_settle', settleArgs(id), { requestState: asked.requestState, inputResponses: accept() }));
      expect(await readTitle(app.services.db, id)).to.deep.equal(before);
      expect(await countSettlements(app.services.db, id)).to.equal(0);
    });

    it('an accepted state one second before its expiry on the clock runs once', async () => {
      const id = await pickPendingPayable(app.services.db, used);
      const asked = expectInputRequired(await callTool(app.url, token, 'finance_payables_settle', settleArgs(id)));
      clock.advance((CONFIRMATION_TTL_SECONDS - 1) * 1000);
      expectSuccess(await callTool(app.url, token, 'finance_payables_settle', settleArgs(id), { requestState: asked.requestState, inputResponses: accept() }));
      expect(await countSettlements(app.services.db, id)).to.equal(1);
      // The burnt nonce's row carries the clock's instant, not the machine's.
      const nonce = await app.services.db.selectFrom('confirmation_nonces').select('consumed_at')
        .where('workspace_id', '=', M).orderBy('consumed_at', 'desc').executeTakeFirstOrThrow();
      expect(nonce.consumed_at).to.equal(new Date(clock.now()).toISOString());
    });
  });

  describe('idempotency keys', function () {
    it('replay for 24 h on the clock, then the key is forgotten and the request runs again', async () => {
      const key = { 'idempotency-key': `clock-${clock.now()}` };
      const body = { name: `Clock ${clock.now()}`, type: 'cost' };
      const write = async () => rest(app, await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE, aud: 'api' }), 'POST', '/v1/cost_centers', body, key);
      const first = await write();
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      clock.advance(IDEMPOTENCY_TTL_MS - 1_000);
      const replay = await write();
      expect(replay.headers.get('idempotency-replayed')).to.equal('true');
      expect(replay.body.id).to.equal(first.body.id);
      clock.advance(1_000);
      const after = await write();
      expect(after.status, JSON.stringify(after.body)).to.equal(201);
      expect(after.headers.get('idempotency-replayed')).to.equal(null);
      expect(after.body.id).to.not.equal(first.body.id);
    });
  });

  describe('"today" of prompts and completions', function () {
    it('is the clock\'s day: in the workspace\'s time zone for a prompt, UTC for a completion', async () => {
      // 02:00Z, at least 400 days on: 23:00 of the day before in São Paulo (Matriz's zone).
      const DAY_MS = 86_400_000;
      clock.set(Math.ceil((clock.now() + 400 * DAY_MS) / DAY_MS) * DAY_MS + 2 * 3_600_000);
      const token = await app.mintToken({ person: DEMO.emails.ana });
      const prompt = await rpc(app, token, 'prompts/get', { name: 'review_overdue_payables', arguments: { workspace: M } });
      const text = (prompt['messages'] as { content: { text: string } }[]).map((m) => m.content.text).join('\n');
      expect(text).to.include(`as of ${utcDay(clock.now() - DAY_MS)}`);
      const completion = await rpc(app, token, 'completion/complete', {
        ref: { type: 'ref/prompt', name: 'month_close_checklist' }, argument: { name: 'month', value: '' }, context: { arguments: { workspace: M } },
      });
      expect((completion['completion'] as { values: string[] }).values).to.include(utcDay(clock.now()).slice(0, 7));
    });
  });
});

describe('one clock: the API budget window moves with the services\' clock', function () {
  this.timeout(30_000);
  const WINDOW_SECONDS = 60;
  let clock: ManualClock;
  let app: TestApp;

  before(async () => {
    // The start of a sub-window, so "two windows later" leaves no weight of this one.
    clock = createManualClock(Math.ceil(Date.now() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000);
    app = await startTestApp({ clock, config: { apiWriteBudget: 2, apiBudgetWindowSeconds: WINDOW_SECONDS } });
  });
  after(async () => app?.close());

  it('refuses the third write of the window, and admits writes again two windows later on the clock', async () => {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE, aud: 'api' });
    const write = (i: number) => rest(app, token, 'POST', '/v1/cost_centers', { name: `Budget ${clock.now()} ${i}`, type: 'cost' });
    expect((await write(1)).status).to.equal(201);
    expect((await write(2)).status).to.equal(201);
    const refused = await write(3);
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('RATE_LIMITED');
    clock.advance(2 * WINDOW_SECONDS * 1000);
    const again = await write(4);
    expect(again.status, JSON.stringify(again.body)).to.equal(201);
  });
});
