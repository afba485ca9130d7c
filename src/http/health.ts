/**
 * Operational endpoints: `GET /healthz` (the process answers), `GET /readyz` (the database and,
 * when configured, Redis answer within a short timeout) and `GET /metrics` (Prometheus text,
 * behind `METRICS_TOKEN`; wrong tokens count toward the failed-authentication limit of the
 * client address like any failed authentication). It checks dependencies only; it never reports
 * their internals.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type Koa from 'koa';
import { sql } from 'kysely';
import type { Services } from '../bootstrap.js';
import { throttleFailure } from './limits.js';
import { HttpError } from './errors.js';

export type HealthServices = Pick<Services, 'config' | 'db' | 'limits' | 'metrics'>;

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

async function checkReadiness(services: HealthServices): Promise<Record<string, 'ok' | 'unavailable'>> {
  const checks: Record<string, 'ok' | 'unavailable'> = {};
  const database = probeWithin(() => sql`select 1`.execute(services.db), CHECK_TIMEOUT_MS);
  const redis = services.config.redisUrl && services.limits.checkRedis
    ? probeWithin(async () => {
        if ((await services.limits.checkRedis?.()) !== 'up') throw new Error('redis down');
      }, CHECK_TIMEOUT_MS)
    : null;
  checks.database = (await database) ? 'ok' : 'unavailable';
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
async function admitFailedAttempt(ctx: Koa.Context, limits: HealthServices['limits']): Promise<boolean> {
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

export function createHealthRouter(services: HealthServices): Router {
  const router = new Router();

  router.get('/healthz', function reportAlive(ctx) {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async function reportReady(ctx) {
    const checks = await checkReadiness(services);
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
  });

  router.get('/metrics', async function exposeMetrics(ctx) {
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
  });

  return router;
}
