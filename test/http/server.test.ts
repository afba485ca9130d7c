import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { listenGracefully, type GracefulServer, type ShutdownServices } from '../../src/http/server.js';

interface Started {
  server: GracefulServer;
  port: number;
  closedAt: () => number | null;
  /** When the last handler finished (server side). */
  handledAt: () => number | null;
}

/** A test-only app: `/slow` answers after `slowMs`, everything else at once. */
async function startSlowServer(slowMs: number, shutdownGraceMs: number): Promise<Started> {
  const app = new Koa();
  let handledAt: number | null = null;
  app.use(async (ctx) => {
    if (ctx.path === '/slow') await sleep(slowMs);
    ctx.body = { ok: true };
    handledAt = Date.now();
  });
  let closedAt: number | null = null;
  const services: ShutdownServices = {
    config: { ...loadConfig({ DATA_DIR: ':memory:' }), shutdownGraceMs },
    logger: pino({ level: 'silent' }),
    async close() {
      closedAt = Date.now();
    },
  };
  const server = await listenGracefully(app, services, { port: 0, host: '127.0.0.1' });
  return { server, port: (server.address() as AddressInfo).port, closedAt: () => closedAt, handledAt: () => handledAt };
}

function get(port: number, path: string, agent?: http.Agent): Promise<{ status: number; finishedAt: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, finishedAt: Date.now() }));
    });
    req.on('error', reject);
  });
}

function connect(port: number): Promise<'connected' | string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
}

describe('listenGracefully(): server.shutdown()', () => {
  it('lets an in-flight slow request complete with 200, refuses new connections, then closes the services', async () => {
    const { server, port, closedAt, handledAt } = await startSlowServer(500, 5_000);
    const agent = new http.Agent({ keepAlive: true });
    try {
      const slow = get(port, '/slow', agent);
      await sleep(100);
      const shutdownStarted = Date.now();
      const stopped = server.shutdown();
      expect(await connect(port)).to.equal('ECONNREFUSED');
      const response = await slow;
      expect(response.status).to.equal(200);
      await stopped;
      // The keep-alive socket of the finished request did not hold the drain until the grace period.
      expect(Date.now() - shutdownStarted).to.be.below(2_000);
      expect(closedAt()).to.be.a('number');
      expect(closedAt()!).to.be.at.least(handledAt()!);
    } finally {
      agent.destroy();
    }
  });

  it('closes idle keep-alive connections at once', async () => {
    const { server, port, closedAt } = await startSlowServer(0, 5_000);
    const agent = new http.Agent({ keepAlive: true });
    try {
      expect((await get(port, '/fast', agent)).status).to.equal(200);
      const started = Date.now();
      await server.shutdown();
      expect(Date.now() - started).to.be.below(1_000);
      expect(closedAt()).to.be.a('number');
    } finally {
      agent.destroy();
    }
  });

  it('stops waiting after SHUTDOWN_GRACE_MS: remaining connections are closed and the services still close', async () => {
    const { server, port, closedAt } = await startSlowServer(10_000, 200);
    const stuck = get(port, '/slow').then(
      () => 'completed',
      (err: NodeJS.ErrnoException) => err.code ?? 'error',
    );
    await sleep(50);
    const started = Date.now();
    await server.shutdown();
    expect(Date.now() - started).to.be.within(150, 2_000);
    expect(await stuck).to.equal('ECONNRESET');
    expect(closedAt()).to.be.a('number');
  });

  it('is idempotent: a second shutdown() waits for the same drain', async () => {
    const { server } = await startSlowServer(0, 1_000);
    const first = server.shutdown();
    expect(server.shutdown()).to.equal(first);
    await first;
  });

  it('sets header and request timeouts against slow clients', async () => {
    const { server } = await startSlowServer(0, 1_000);
    expect(server.headersTimeout).to.equal(20_000);
    expect(server.requestTimeout).to.equal(120_000);
    expect(server.keepAliveTimeout).to.equal(5_000);
    await server.shutdown();
  });

  it('takes the timeouts from HTTP_KEEP_ALIVE_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS', async () => {
    const config = loadConfig({ DATA_DIR: ':memory:', HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000', HTTP_HEADERS_TIMEOUT_MS: '15000', HTTP_REQUEST_TIMEOUT_MS: '30000' });
    const services: ShutdownServices = { config, logger: pino({ level: 'silent' }), async close() {} };
    const server = await listenGracefully(new Koa(), services, { port: 0, host: '127.0.0.1' });
    expect([server.keepAliveTimeout, server.headersTimeout, server.requestTimeout]).to.deep.equal([65_000, 15_000, 30_000]);
    await server.shutdown();
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '20000' })).to.throw(/^HTTP_HEADERS_TIMEOUT_MS: /);
    expect(() => loadConfig({ MAX_INFLIGHT_BODY_BYTES: '1024' })).to.throw(/^MAX_INFLIGHT_BODY_BYTES: /);
    expect(loadConfig({}).maxInflightBodyBytes).to.equal(64 * 1024 * 1024);
  });
});
