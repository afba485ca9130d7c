import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { sql } from 'kysely';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { systemClock } from '../../src/runtime/clock.js';
import { openDatabase } from '../../src/store/db.js';
import { createMetrics } from '../../src/http/metrics.js';
import { createLimits } from '../../src/http/limits.js';
import { requestObservability } from '../../src/http/observability.js';
import { createHealthRouter, matchesMetricsToken, type HealthServices } from '../../src/http/health.js';
import { startTestApp } from '../helpers/index.js';

interface Harness {
  url: string;
  services: HealthServices;
  closeDb(): Promise<void>;
  close(): Promise<void>;
}

/** The health router on a real database and real limits, behind the real request middleware. */
async function startHealthApp(overrides: Partial<Config> = {}): Promise<Harness> {
  const config: Config = { ...loadConfig({ DATA_DIR: ':memory:' }), ...overrides };
  const logger = pino({ level: 'silent' });
  const store = await openDatabase(config);
  // Kysely only closes a driver it has initialised; a first query makes `close()` really close it.
  if (!config.databaseUrl) await sql`select 1`.execute(store.db);
  const metrics = createMetrics();
  const limits = await createLimits(config, logger, metrics);
  const services: HealthServices = { config, db: store.db, limits, metrics, clock: systemClock, logger };
  const app = new Koa();
  app.use(requestObservability({ logger, metrics }));
  const router = createHealthRouter(services);
  app.use(router.routes()).use(router.allowedMethods());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let dbClosed = false;
  const closeDb = async () => {
    if (!dbClosed) await store.close();
    dbClosed = true;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    closeDb,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await limits.close();
      await closeDb();
    },
  };
}

describe('GET /healthz', () => {
  it('returns 200 {status: "ok"} while the process runs, even with the database gone', async () => {
    const app = await startHealthApp();
    try {
      await app.closeDb();
      const res = await fetch(`${app.url}/healthz`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ status: 'ok' });
    } finally {
      await app.close();
    }
  });
});

describe('GET /readyz', () => {
  it('returns 200 with the checks when the database answers', async () => {
    const app = await startHealthApp();
    try {
      const res = await fetch(`${app.url}/readyz`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ status: 'ready', checks: { database: 'ok' } });
    } finally {
      await app.close();
    }
  });

  it('returns 503 with Retry-After naming the database when it is unreachable (closed SQLite)', async () => {
    const app = await startHealthApp();
    try {
      await app.closeDb();
      const res = await fetch(`${app.url}/readyz`);
      expect(res.status).to.equal(503);
      expect(res.headers.get('retry-after')).to.equal('5');
      expect(await res.json()).to.deep.equal({ status: 'unavailable', checks: { database: 'unavailable' } });
    } finally {
      await app.close();
    }
  });

  it('returns 503 when PostgreSQL does not answer (closed port), without internals', async () => {
    const app = await startHealthApp({ databaseUrl: 'postgres://postgres@127.0.0.1:1/test' });
    try {
      const res = await fetch(`${app.url}/readyz`);
      expect(res.status).to.equal(503);
      const text = await res.text();
      expect(JSON.parse(text)).to.deep.equal({ status: 'unavailable', checks: { database: 'unavailable' } });
      expect(text).not.to.match(/ECONNREFUSED|127\.0\.0\.1/);
    } finally {
      await app.close();
    }
  });

  it('checks Redis when configured: 200 when it answers PING', async () => {
    const app = await startHealthApp({ redisUrl: 'redis://127.0.0.1:6379' });
    try {
      const res = await fetch(`${app.url}/readyz`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });
    } finally {
      await app.close();
    }
  });

  it('returns 503 naming redis when the configured Redis is unreachable', async () => {
    const app = await startHealthApp({ redisUrl: 'redis://127.0.0.1:1' });
    try {
      const res = await fetch(`${app.url}/readyz`);
      expect(res.status).to.equal(503);
      expect(await res.json()).to.deep.equal({ status: 'unavailable', checks: { database: 'ok', redis: 'unavailable' } });
    } finally {
      await app.close();
    }
  });
});

describe('GET /metrics', () => {
  const token = 'metrics-token-for-tests';

  it('returns 404 when no METRICS_TOKEN is configured', async () => {
    const app = await startHealthApp({ metricsToken: null });
    try {
      expect((await fetch(`${app.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } })).status).to.equal(404);
    } finally {
      await app.close();
    }
  });

  it('requires the bearer token (401 without or with a wrong one)', async () => {
    const app = await startHealthApp({ metricsToken: token });
    try {
      const missing = await fetch(`${app.url}/metrics`);
      expect(missing.status).to.equal(401);
      expect(missing.headers.get('www-authenticate')).to.match(/^Bearer/);
      expect((await fetch(`${app.url}/metrics`, { headers: { Authorization: 'Bearer wrong' } })).status).to.equal(401);
      expect((await fetch(`${app.url}/metrics`, { headers: { Authorization: token } })).status).to.equal(401);
    } finally {
      await app.close();
    }
  });

  it('throttles wrong tokens like failed authentication (429 + Retry-After), never the valid token', async () => {
    const LIMIT = 3;
    const app = await startHealthApp({ metricsToken: token, authFailureLimitPerMinute: LIMIT });
    const scrape = (authorization?: string) => fetch(`${app.url}/metrics`, authorization === undefined ? {} : { headers: { Authorization: authorization } });
    try {
      // Without credentials nothing is guessed: not counted.
      for (let i = 0; i < LIMIT + 2; i += 1) expect((await scrape()).status).to.equal(401);
      const guesses: number[] = [];
      for (let i = 0; i < LIMIT + 2; i += 1) guesses.push((await scrape(`Bearer guess-${i}`)).status);
      expect(guesses).to.deep.equal([...Array(LIMIT).fill(401), 429, 429]);
      const throttled = await scrape('Bearer guess-again');
      expect(throttled.status).to.equal(429);
      expect(Number(throttled.headers.get('retry-after'))).to.be.within(1, 60);
      expect(((await throttled.json()) as { error: { code: string } }).error.code).to.equal('too_many_requests');
      // The same address with the valid token still scrapes.
      expect((await scrape(`Bearer ${token}`)).status).to.equal(200);
      const rejections = await app.services.metrics.rateLimitRejections.get();
      expect(rejections.values.find((v) => v.labels.kind === 'auth_failure')?.value).to.be.greaterThan(0);
    } finally {
      await app.close();
    }
  });

  it('exposes the request series and every named collector after a few requests', async () => {
    const app = await startHealthApp({ metricsToken: token });
    try {
      await fetch(`${app.url}/healthz`);
      await fetch(`${app.url}/healthz`);
      await fetch(`${app.url}/readyz`);
      app.services.metrics.toolCalls.inc({ tool: 'finance_payables_list', status: 'ok' });
      const res = await fetch(`${app.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      const text = await res.text();
      expect(text).to.include('http_requests_total{route="/healthz",method="GET",status="200"} 2');
      expect(text).to.include('http_requests_total{route="/readyz",method="GET",status="200"} 1');
      expect(text).to.include('mcp_tool_calls_total{tool="finance_payables_list",status="ok"} 1');
      for (const name of [
        'mcp_tool_call_duration_seconds', 'mcp_confirmations_total', 'rate_limit_rejections_total',
        'token_verification_failures_total', 'account_jwks_fetches_total', 'redis_errors_total', 'process_cpu_user_seconds_total',
      ]) expect(text).to.include(`# TYPE ${name}`);
    } finally {
      await app.close();
    }
  });
});

describe('matchesMetricsToken()', () => {
  const table: Array<{ given: string | undefined; want: boolean }> = [
    { given: 'Bearer s3', want: true },
    { given: 'bearer s3', want: true },
    { given: 'Bearer s4', want: false },
    { given: 'Bearer s3 extra', want: false },
    { given: 's3', want: false },
    { given: 'Bearer ', want: false },
    { given: undefined, want: false },
  ];
  for (const { given, want } of table) {
    it(`returns ${want} for ${JSON.stringify(given)}`, () => {
      expect(matchesMetricsToken(given, 's3')).to.equal(want);
    });
  }
});

describe('GET /readyz with READINESS_REQUIRES_REDIS=false', () => {
  it('reports an unreachable Redis but stays ready (the limits fail open)', async () => {
    const app = await startHealthApp({ redisUrl: 'redis://127.0.0.1:1', readinessRequiresRedis: false });
    try {
      const res = await fetch(`${app.url}/readyz`);
      expect(res.status).to.equal(200);
      expect(await res.json()).to.deep.equal({ status: 'ready', checks: { database: 'ok', redis: 'unavailable' } });
    } finally {
      await app.close();
    }
  });
});

describe('health endpoints of the real app (SQLite, or PostgreSQL when DATABASE_URL is set)', () => {
  it('answers /healthz and /readyz with 200, and hides /metrics without METRICS_TOKEN', async () => {
    const app = await startTestApp({ config: { metricsToken: null } });
    try {
      expect((await fetch(`${app.url}/healthz`)).status).to.equal(200);
      const ready = await fetch(`${app.url}/readyz`);
      expect(ready.status).to.equal(200);
      expect(((await ready.json()) as { checks: Record<string, string> }).checks.database).to.equal('ok');
      expect((await fetch(`${app.url}/metrics`)).status).to.equal(404);
    } finally {
      await app.close();
    }
  });
});
