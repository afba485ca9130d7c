/**
 * A replica started while the database is down becomes ready once it is up (src/startup.ts):
 * it listens at once — /healthz 200, /readyz 503, every other request 503 + Retry-After — keeps
 * retrying with backoff, and serves once the database answers; past DATABASE_STARTUP_TIMEOUT_MS
 * start-up fails with a message naming the variable. The database is reached through a TCP
 * proxy that is not listening at first (test/helpers/tcp-proxy.ts).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { skipWithReason } from '../helpers/mocha.js';
import { pino } from 'pino';
import type { Config } from '../../src/config.js';
import { startServer, type StartedServer } from '../../src/startup.js';
import { DEMO, buildTestConfig, createTestSchema, type TestSchema } from '../helpers/index.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

async function get(base: string, route: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: unknown }> {
  const response = await fetch(`${base}${route}`, { headers, signal: AbortSignal.timeout(15_000) });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('start-up while the database is down', function () {
  this.timeout(60_000);
  let dataDir: string;
  let proxy: TcpProxy;
  let started: StartedServer | undefined;

  /** A config whose DATABASE_URL goes through the (not yet listening) proxy; port 0 = any free port. */
  function buildConfig(databaseUrl: string, overrides: Partial<Config> = {}): Config {
    return buildTestConfig({ port: 0, dataDir, databaseUrl, databaseConnectTimeoutMs: 500, ...overrides });
  }

  function baseUrl(server: StartedServer['server']): string {
    const address = server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kf-startup-'));
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 }, { listening: false });
  });
  afterEach(async () => {
    await started?.server.shutdown();
    started = undefined;
    await proxy.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('answers /healthz 200, /readyz 503 and requests 503 + Retry-After while it waits; fails past DATABASE_STARTUP_TIMEOUT_MS', async () => {
    const config = buildConfig(`postgres://postgres@127.0.0.1:${proxy.port}/none`, { databaseStartupTimeoutMs: 1_500 });
    started = await startServer(config, pino({ level: 'silent' }));
    const failure = started.ready.then(() => null, (err: unknown) => err);
    const base = baseUrl(started.server);
    expect((await get(base, '/healthz')).status).to.equal(200);
    const ready = await get(base, '/readyz');
    expect(ready.status).to.equal(503);
    expect(ready.headers.get('retry-after')).to.equal('2');
    const rest = await get(base, '/v1/accounts');
    expect(rest.status).to.equal(503);
    expect(rest.headers.get('retry-after')).to.equal('2');
    expect(rest.body).to.deep.include({ error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry shortly.', details: { retry_after_seconds: 2, reason: 'database' } } });
    const mcp = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(mcp.status).to.equal(503);
    expect(mcp.headers.get('retry-after')).to.equal('2');
    expect(((await mcp.json()) as { error: { code: number } }).error.code).to.equal(-32003);
    const error = await failure;
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/DATABASE_STARTUP_TIMEOUT_MS/);
  });

  describe('on PostgreSQL', () => {
    let schema: TestSchema;
    beforeEach(async function () {
      if (!process.env.DATABASE_URL) skipWithReason(this, 'DATABASE_URL is unset; the database to wait for is PostgreSQL');
      schema = await createTestSchema();
    });
    afterEach(async () => {
      await started?.server.shutdown();
      started = undefined;
      await schema?.drop();
    });

    it('becomes ready once the database is up, and serves REST', async () => {
      const target = new URL(schema.databaseUrl as string);
      await proxy.close();
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) }, { listening: false });
      const proxied = new URL(target);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      started = await startServer(buildConfig(proxied.toString(), { databaseStartupTimeoutMs: 30_000 }), pino({ level: 'silent' }));
      const base = baseUrl(started.server);
      expect((await get(base, '/readyz')).status).to.equal(503);
      expect((await get(base, '/healthz')).status).to.equal(200);
      await proxy.start();
      const services = await started.ready;
      expect((await get(base, '/readyz')).status).to.equal(200);
      const token = await services.auth.mintToken?.({ person: 'ana@demo.test', scope: 'finance.all', aud: 'api' });
      const accounts = await get(base, '/v1/accounts?limit=1', { authorization: `Bearer ${token}`, 'x-workspace-id': DEMO.workspaces.matriz });
      expect(accounts.status, JSON.stringify(accounts.body)).to.equal(200);
    });
  });
});
