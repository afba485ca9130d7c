/**
 * Every call has a deadline (REQUEST_DEADLINE_MS, issue 25 Build 1): past it, its work stops and
 * it is answered like a database outage — REST `503 SERVICE_UNAVAILABLE` + `Retry-After` with
 * `details.reason: "deadline"`, MCP HTTP 503 + `-32003`, and a destructive MCP call the person
 * already confirmed `confirmation_unavailable`, nothing changed. No sleeping: the app's clock
 * steps one millisecond on every read (src/runtime/clock.ts), so a 1 ms deadline has passed by
 * the operation's first check; the chunked walk is shown with a manual clock moved inside it.
 */
import { expect } from 'chai';
import type { Clock } from '../../src/runtime/clock.js';
import { createDeadline, DeadlineExceededError } from '../../src/runtime/deadline.js';
import { forEachChunk } from '../../src/api/chunks.js';
import { createManualClock } from '../helpers/clock.js';
import { DEMO } from '../helpers/index.js';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { accept, callTool, expectInputRequired, expectToolError } from '../confirmation/support.js';

const M = DEMO.workspaces.matriz;

/** A clock that moves one millisecond each time it is read. */
function steppingClock(): Clock {
  let now = Date.now();
  return { now: () => (now += 1) };
}

describe('forEachChunk: a walk over rows stops at the deadline between chunks', () => {
  it('visits chunks until the deadline has passed, then throws DeadlineExceededError', async () => {
    const clock = createManualClock(0);
    const deadline = createDeadline(clock, 1_000);
    const visited: number[] = [];
    const rows = Array.from({ length: 10 }, (_, i) => i);
    let thrown: unknown;
    try {
      await forEachChunk(rows, deadline, (chunk) => {
        visited.push(...chunk);
        clock.advance(600);
      }, 2);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(DeadlineExceededError);
    expect(visited).to.deep.equal([0, 1, 2, 3]);
  });
});

describe(`REQUEST_DEADLINE_MS: past the deadline a call answers as an outage (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(60_000);
  let api: RestApp;
  let mcpToken: string;

  before(async () => {
    api = await startRestApp({ clock: steppingClock(), config: { requestDeadlineMs: 1 } });
    mcpToken = await api.app.mintToken({ person: 'ana@demo.test', scope: 'finance.all.write', aud: 'mcp' });
  });
  after(async () => { await api?.close(); });

  it('REST read and write: 503 SERVICE_UNAVAILABLE, Retry-After, details.reason "deadline"', async () => {
    for (const [method, path, body] of [['GET', '/v1/cash-flow', undefined], ['POST', '/v1/classification_rules', { name: 'Prazo' }]] as const) {
      const res = await api.call(method, path, { workspace: M, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('2');
      expect(res.body.error.code).to.equal('SERVICE_UNAVAILABLE');
      expect(res.body.error.details).to.deep.equal({ retry_after_seconds: 2, reason: 'deadline' });
    }
    const rules = await api.app.services.db.selectFrom('classification_rules').select('id').where('workspace_id', '=', M).where('name', '=', 'Prazo').execute();
    expect(rules, 'the write past its deadline was rolled back').to.deep.equal([]);
  });

  it('MCP tools/call: HTTP 503 + Retry-After and JSON-RPC -32003 with the reason', async () => {
    const response = await fetch(`${api.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${mcpToken}`, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'finance_cash_flow_get', arguments: { workspace_id: M } } }),
    });
    expect(response.status).to.equal(503);
    expect(response.headers.get('retry-after')).to.equal('2');
    const body = (await response.json()) as { id: number; error: { code: number; data: { error: { code: string; details: Record<string, unknown> } } } };
    expect(body.id).to.equal(41);
    expect(body.error.code).to.equal(-32003);
    expect(body.error.data.error.code).to.equal('SERVICE_UNAVAILABLE');
    expect(body.error.data.error.details['reason']).to.equal('deadline');
  });

  it('MCP: a destructive call already confirmed answers confirmation_unavailable, and nothing changed', async () => {
    const { db } = api.app.services;
    const account = await db.selectFrom('accounts').select(['id', 'version']).where('workspace_id', '=', M).orderBy('id').executeTakeFirstOrThrow();
    const args = { workspace_id: M, id: account.id };
    const asked = expectInputRequired(await callTool(api.url, mcpToken, 'finance_accounts_delete', args));
    const confirmed = await callTool(api.url, mcpToken, 'finance_accounts_delete', args, { requestState: asked.requestState, inputResponses: accept() });
    expectToolError(confirmed, 'confirmation_unavailable');
    const after = await db.selectFrom('accounts').select(['id', 'version']).where('workspace_id', '=', M).where('id', '=', account.id).executeTakeFirst();
    expect(after).to.deep.equal(account);
  });
});
