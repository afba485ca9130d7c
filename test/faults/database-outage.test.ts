/**
 * Database faults are outages, not crashes — with real faults on PostgreSQL: the app reaches
 * its database through a TCP proxy the test controls (test/helpers/tcp-proxy.ts).
 *
 * - terminated backends (`pg_terminate_backend`): the process stays up, the next requests succeed
 * - an outage (nothing listens): REST 503 + Retry-After `SERVICE_UNAVAILABLE`, MCP HTTP 503 +
 *   Retry-After with a JSON-RPC error (never 500 / -32603), /readyz 503; back by itself after
 * - a frozen database (connections accepted, nothing answered): 503 within the timeouts, not a hang
 * - a write cut in flight is either not applied (the retry creates it once) or committed (the
 *   retry with the same Idempotency-Key replays the same answer) — never twice
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { skipWithReason } from '../helpers/mocha.js';
import pg from 'pg';
import { DEMO, createTestSchema, startTestApp, type TestApp, type TestSchema } from '../helpers/index.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { APPLICATION_NAME } from '../../src/store/db.js';

const M = DEMO.workspaces.matriz;
/** Small timeouts keep the suite fast; the behaviour is the same at the defaults. */
const CONNECT_TIMEOUT_MS = 500;
const STATEMENT_TIMEOUT_MS = 1_000;
const RECOVERY_MS = 5_000;
const COMMIT_MESSAGE = Buffer.from('Q\0\0\0\x0bcommit\0', 'latin1');

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // Checked field by field.
  readonly body: any;
}

describe('database faults are outages, not crashes (PostgreSQL, through a TCP proxy)', function () {
  this.timeout(60_000);
  let schema: TestSchema;
  let proxy: TcpProxy;
  let app: TestApp;
  let direct: pg.Client;
  let apiToken: string;
  let mcpToken: string;

  before(async function () {
    if (!process.env.DATABASE_URL) return;
    schema = await createTestSchema();
    const target = new URL(schema.databaseUrl as string);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const proxied = new URL(target);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    app = await startTestApp({
      config: { databaseUrl: proxied.toString(), databaseConnectTimeoutMs: CONNECT_TIMEOUT_MS, databaseStatementTimeoutMs: STATEMENT_TIMEOUT_MS },
    });
    apiToken = await app.mintToken({ person: 'ana@demo.test', scope: 'finance.all.write', aud: 'api' });
    mcpToken = await app.mintToken({ person: 'ana@demo.test', scope: 'finance.all.write' });
    direct = new pg.Client({ connectionString: schema.databaseUrl as string });
    await direct.connect();
  });
  after(async () => {
    await direct?.end();
    await app?.close();
    await proxy?.close();
    await schema?.drop();
  });
  beforeEach(async function () {
    if (!process.env.DATABASE_URL) skipWithReason(this, 'DATABASE_URL is unset; connection faults exist on PostgreSQL only');
    proxy.onClientData = null;
    proxy.thaw();
    await proxy.start();
  });

  async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${apiToken}`, 'x-workspace-id': M, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      // A hang fails the test here, well before mocha's timeout.
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
  }

  function callTool(id: number): Promise<Answer> {
    return send('POST', '/mcp', {
      jsonrpc: '2.0', id, method: 'tools/call',
      params: { name: 'finance_accounts_list', arguments: { workspace_id: M, limit: 1 } },
    }, { authorization: `Bearer ${mcpToken}`, 'mcp-protocol-version': '2025-06-18', accept: 'application/json' });
  }

  function readyz(): Promise<Answer> {
    return send('GET', '/readyz');
  }

  /** Polls until `GET /v1/accounts` answers 200; every answer on the way is an outage answer, never a 500. */
  async function expectServiceBack(): Promise<void> {
    const deadline = Date.now() + RECOVERY_MS;
    for (;;) {
      const answer = await send('GET', '/v1/accounts?limit=1');
      if (answer.status === 200) return;
      expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
      if (Date.now() > deadline) expect.fail(`service not back within ${RECOVERY_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  function expectRestOutage(answer: Answer): void {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
    expect(answer.headers.get('retry-after')).to.equal('2');
    // Our own sentence only: no driver message, no SQL, no parameters.
    expect(answer.body).to.deep.equal({
      error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry shortly.', details: { retry_after_seconds: 2, reason: 'database' } },
    });
  }

  function expectMcpOutage(answer: Answer): void {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
    expect(answer.headers.get('retry-after')).to.equal('2');
    expect(answer.headers.get('cache-control')).to.equal('no-store');
    expect(answer.body.jsonrpc).to.equal('2.0');
    expect(answer.body.error.code).to.equal(-32003);
    expect(answer.body.error.data.error.code).to.equal('SERVICE_UNAVAILABLE');
  }

  async function countAccounts(name: string): Promise<number> {
    const result = await direct.query<{ n: string }>('select count(*) as n from accounts where workspace_id = $1 and name = $2', [M, name]);
    return Number(result.rows[0]?.n);
  }

  it(`terminating every backend of the app (application_name=${APPLICATION_NAME}) leaves the process up; the next requests succeed`, async () => {
    // Several pooled connections, idle and in use, so both kinds get terminated.
    const warm = await Promise.all([1, 2, 3, 4].map(() => send('GET', '/v1/accounts?limit=1')));
    expect(warm.map((a) => a.status)).to.deep.equal([200, 200, 200, 200]);
    const slow = send('GET', '/v1/accounts?limit=1');
    const terminated = await direct.query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = $1 and pid <> pg_backend_pid()',
      [APPLICATION_NAME],
    );
    expect(terminated.rowCount).to.be.greaterThan(0);
    expect([200, 503]).to.include((await slow).status);
    await expectServiceBack();
    expect((await callTool(1)).status).to.equal(200);
    expect((await readyz()).status).to.equal(200);
  });

  it('an outage answers REST 503 + Retry-After SERVICE_UNAVAILABLE, MCP HTTP 503 + Retry-After, /readyz 503; service returns by itself', async () => {
    expect((await send('GET', '/v1/accounts?limit=1')).status).to.equal(200);
    await proxy.stop();
    expectRestOutage(await send('GET', '/v1/accounts?limit=1'));
    expectRestOutage(await send('POST', '/v1/accounts', { name: `Outage ${randomUUID().slice(0, 8)}`, type: 'cash' }));
    expectMcpOutage(await callTool(2));
    const notReady = await readyz();
    expect(notReady.status).to.equal(503);
    expect(notReady.body.checks.database).to.equal('unavailable');
    await proxy.start();
    await expectServiceBack();
    const tool = await callTool(3);
    expect(tool.status).to.equal(200);
    expect(tool.body.result.isError).to.equal(undefined);
    expect((await readyz()).status).to.equal(200);
  });

  it('a frozen database (connections accepted, nothing answered) gets 503 within the timeouts, not a hang; service returns after', async () => {
    expect((await send('GET', '/v1/accounts?limit=1')).status).to.equal(200);
    proxy.freeze();
    expectRestOutage(await send('GET', '/v1/accounts?limit=1'));
    expectMcpOutage(await callTool(4));
    expect((await readyz()).status).to.equal(503);
    proxy.thaw();
    await expectServiceBack();
  });

  it('a write cut before its commit is not applied; the retry with the same Idempotency-Key creates it once', async () => {
    const name = `Cut early ${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    proxy.onClientData = (chunk) => {
      // The INSERT reaches the server inside the transaction; its answer (and all that follows) never comes back.
      if (chunk.includes('insert into "accounts"')) proxy.freezeResponses();
    };
    expectRestOutage(await send('POST', '/v1/accounts', { name, type: 'cash' }, { 'idempotency-key': key }));
    proxy.onClientData = null;
    proxy.dropConnections();
    proxy.thaw();
    expect(await countAccounts(name)).to.equal(0);
    await expectServiceBack();
    const retried = await send('POST', '/v1/accounts', { name, type: 'cash' }, { 'idempotency-key': key });
    expect(retried.status, JSON.stringify(retried.body)).to.equal(201);
    expect(retried.headers.get('idempotency-replayed')).to.equal(null);
    expect(await countAccounts(name)).to.equal(1);
  });

  it('a write whose commit reached the database but whose answer was lost replays the same answer for the same Idempotency-Key', async () => {
    const name = `Answer lost ${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    proxy.onClientData = (chunk) => {
      // Kysely's COMMIT is a simple-protocol Query message: 'Q', int32 length 11, "commit\0".
      if (chunk.includes(COMMIT_MESSAGE)) proxy.freezeResponses();
    };
    expectRestOutage(await send('POST', '/v1/accounts', { name, type: 'cash' }, { 'idempotency-key': key }));
    proxy.onClientData = null;
    proxy.dropConnections();
    proxy.thaw();
    expect(await countAccounts(name)).to.equal(1);
    await expectServiceBack();
    const retried = await send('POST', '/v1/accounts', { name, type: 'cash' }, { 'idempotency-key': key });
    expect(retried.status, JSON.stringify(retried.body)).to.equal(201);
    expect(retried.headers.get('idempotency-replayed')).to.equal('true');
    const stored = await direct.query<{ id: string }>('select id from accounts where workspace_id = $1 and name = $2', [M, name]);
    expect(retried.body.id).to.equal(stored.rows[0]?.id);
    expect(await countAccounts(name)).to.equal(1);
  });
});
