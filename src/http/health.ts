/**
 * Operational endpoints: `GET /healthz` (the process answers), `GET /readyz` (the database and,
 * when configured, Redis answer within a short timeout; after a write failed for lack of space,
 * the database must also take a write again: src/store/write-probe.ts) and `GET /metrics` (Prometheus text,
 * behind `METRICS_TOKEN`; wrong tokens count toward the failed-authentication limit of the
 * client address like any failed authentication). It checks dependencies only; it never reports
 * their internals.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../runtime/clock.js';
import type { Database } from '../store/schema.js';
import { createWriteProbe, type WriteProbe } from '../store/write-probe.js';
import { throttleFailure, type Limits } from './limits.js';
import type { Metrics } from './metrics.js';
import { HttpError } from './errors.js';
import type { AppContext, AppMiddleware, AppState } from './app-state.js';

/** What the health endpoints read (the app passes its Services, which satisfy it). */
export interface HealthServices {
  readonly config: Config;
  readonly db: Kysely<Database>;
  readonly limits: Limits;
  readonly metrics: Metrics;
  /** Paces the write probe (at most one per 5 s). */
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
}

type CheckState = 'ok' | 'unavailable' | 'disk_full';

const CHECK_TIMEOUT_MS = 1_000;
const READY_RETRY_AFTER_SECONDS = '5';

/** Resolves true when `probe` succeeds within the timeout; never throws. */
async function probeWithin(probe: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([probe().then(() => true, () => false), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The database: `unavailable` when `select 1` fails, `disk_full` while writes still fail for lack of space. */
async function checkDatabase(services: HealthServices, writes: WriteProbe): Promise<CheckState> {
  if (!(await probeWithin(() => sql`select 1`.execute(services.db), CHECK_TIMEOUT_MS))) return 'unavailable';
  const writable = await probeWithin(async () => {
    if ((await writes.check()) !== 'ok') throw new Error('disk full');
  }, CHECK_TIMEOUT_MS);
  return writable ? 'ok' : 'disk_full';
}

async function checkReadiness(services: HealthServices, writes: WriteProbe): Promise<Record<string, CheckState>> {
  const checks: Record<string, CheckState> = {};
  const database = checkDatabase(services, writes);
  const redis = services.config.redisUrl && services.limits.checkRedis
    ? probeWithin(async () => {
        if ((await services.limits.checkRedis?.()) !== 'up') throw new Error('redis down');
      }, CHECK_TIMEOUT_MS)
    : null;
  checks.database = await database;
  if (redis) checks.redis = (await redis) ? 'ok' : 'unavailable';
  return checks;
}

/** Constant-time comparison of the presented bearer with the configured token (digests: equal length). */
export function matchesMetricsToken(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization ?? '');
  const presented = createHash('sha256').update(match?.[1] ?? '').digest();
  const expected = createHash('sha256').update(token).digest();
  return timingSafeEqual(presented, expected) && match !== null;
}

/** Counts a failed attempt; false (and the 429 + Retry-After answered) when the address is over the limit. */
async function admitFailedAttempt(ctx: AppContext, limits: HealthServices['limits']): Promise<boolean> {
  try {
    await throttleFailure(limits, ctx.ip);
    return true;
  } catch (err) {
    if (!(err instanceof HttpError) || err.status !== 429) throw err;
    ctx.status = 429;
    ctx.set(err.headers);
    ctx.body = { error: { code: 'too_many_requests', message: err.message } };
    return false;
  }
}

function reportAlive(ctx: AppContext): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { status: 'ok' };
}

/** `GET /readyz`: 200 while every required check is ok, else 503 + Retry-After; the checks either way. */
function createReadinessReport(services: HealthServices, writes: WriteProbe): AppMiddleware {
  return async function reportReady(ctx) {
    const checks = await checkReadiness(services, writes);
    ctx.set('Cache-Control', 'no-store');
    // Limits fail open without Redis; READINESS_REQUIRES_REDIS=false keeps the replica in rotation then.
    const required = Object.entries(checks).filter(([name]) => name !== 'redis' || services.config.readinessRequiresRedis);
    if (required.every(([, state]) => state === 'ok')) {
      ctx.body = { status: 'ready', checks };
      return;
    }
    ctx.status = 503;
    ctx.set('Retry-After', READY_RETRY_AFTER_SECONDS);
    ctx.body = { status: 'unavailable', checks };
  };
}

/** `GET /metrics`: the Prometheus text behind METRICS_TOKEN; not served (404) without one. */
function createMetricsExposition(services: HealthServices): AppMiddleware {
  return async function exposeMetrics(ctx) {
    const token = services.config.metricsToken;
    // No token configured: the series are not public; scrape through a protected deployment instead.
    if (token === null) {
      ctx.status = 404;
      ctx.body = { error: { code: 'NOT_FOUND', message: 'Not found.' } };
      return;
    }
    const authorization = ctx.get('Authorization');
    if (!matchesMetricsToken(authorization || undefined, token)) {
      // A presented token that does not match is a guess: counted, and 429 once the address failed too often.
      if (authorization !== '' && !(await admitFailedAttempt(ctx, services.limits))) return;
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      ctx.body = { error: { code: 'unauthorized', message: 'A valid metrics token is required.' } };
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = services.metrics.registry.contentType;
    ctx.body = await services.metrics.registry.metrics();
  };
}

export function createHealthRouter(services: HealthServices): Router<AppState> {
  const router = new Router<AppState>();
  const writes = createWriteProbe(services.db, services.clock, services.logger);
  router.get('/healthz', reportAlive);
  router.get('/readyz', createReadinessReport(services, writes));
  router.get('/metrics', createMetricsExposition(services));
  return router;
}
