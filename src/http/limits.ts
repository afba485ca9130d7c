/**
 * Every counter-based limit of docs/security.md#limits: the protocol limit per token subject, the
 * failed-authentication limit per address, the OAuth client registrations per address, and the API budget per person per organization
 * (read and write, sliding window) that REST and MCP share through OperationService. Counters
 * live in Redis when `REDIS_URL` is set (all replicas share them), in memory otherwise. This
 * module decides and throws; rendering the 429/`RATE_LIMITED` is left to each surface.
 *
 * Redis failure mode: FAIL OPEN, degraded to per-process memory counters (see `failOver`), behind
 * a circuit breaker so that a hung Redis costs one command timeout, not one per call.
 */
import type { Redis } from 'ioredis';
import CircuitBreaker from 'opossum';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ApiBudget, BudgetDecision } from '../api/index.js';
import { ApiError } from '../api/index.js';
import { HttpError } from './errors.js';
import type { Metrics, RateLimitKind } from './metrics.js';
import { systemClock } from '../runtime/clock.js';

/** What failed-authentication throttling needs of the limits (a structural subset of `Limits`). */
export interface AuthLimits {
  assertAuthAllowed(address: string): Promise<void>;
  recordAuthFailure(address: string): Promise<void>;
}

/**
 * A failed authentication from an address that already failed too often is answered 429 +
 * Retry-After instead of its 401/400; either way the attempt is counted. Only failures are ever
 * throttled: the token is verified first, so a valid token always passes, however many bad
 * attempts share its address (e.g. every client behind one load balancer). `/metrics` shares it.
 */
export async function throttleFailure(limits: AuthLimits, address: string): Promise<void> {
  let overLimit: unknown = null;
  try {
    await limits.assertAuthAllowed(address);
  } catch (err) {
    overLimit = err;
  }
  await limits.recordAuthFailure(address);
  if (overLimit !== null) throw overLimit;
}

/** Unauthenticated dynamic client registrations (RFC 7591) one address may make per hour. */
export const REGISTRATION_LIMIT_PER_HOUR = 20;

/** What the embedded authorization server needs of the limits (a structural subset of `Limits`). */
export interface OAuthLimits extends AuthLimits {
  /** Counts one client registration from the address; over the limit → HttpError 429 + Retry-After. */
  consumeRegistration(address: string): Promise<void>;
}

export interface Limits extends OAuthLimits {
  readonly budget: ApiBudget;
  /** Counts one protocol request of a token subject; over the limit → HttpError 429 + Retry-After. */
  consumeProtocol(subject: string, channel?: 'mcp' | 'api'): Promise<void>;
  /** After a failed authentication: HttpError 429 + Retry-After when the address failed too often (valid tokens are never refused). */
  assertAuthAllowed(address: string): Promise<void>;
  recordAuthFailure(address: string): Promise<void>;
  /** Readiness of the shared counter store: 'absent' when counters are in memory by configuration. */
  checkRedis?(): Promise<'up' | 'down' | 'absent'>;
  close(): Promise<void>;
}

export interface LimitsOptions {
  /** Milliseconds since the epoch, from the services' clock (src/runtime/clock.ts): the API budget's window reads it. Default the system clock. */
  readonly now?: () => number;
  /** Prefix of every Redis key (default `config.redisKeyPrefix`). */
  readonly keyPrefix?: string;
  /** Minimum interval between two "Redis unavailable" log lines. */
  readonly errorLogIntervalMs?: number;
  /** While the circuit is open, how often a background PING tries Redis again (default 1 s). */
  readonly redisRetryIntervalMs?: number;
}

// ---------------------------------------------------------------------------------------------
// Sliding window (approximate, two fixed sub-windows). The budget window W is split at multiples
// of W; a call at time t in window i is counted against
//     estimate = prev × (1 − elapsed / W) + cur
// where prev/cur are the calls counted in windows i−1 and i, and elapsed = t − i·W. A call is
// allowed when estimate + 1 ≤ limit and only allowed calls are counted (a client that keeps
// retrying does not push its own reset further away). This is Cloudflare's approximation of a
// sliding log: O(1) memory per key, never more than `limit` calls in any window of length W
// when calls are evenly spread in the previous window, and no burst of 2×limit at a boundary as a
// fixed window allows.
// ---------------------------------------------------------------------------------------------

export interface WindowCounts {
  readonly prev: number;
  readonly cur: number;
}

export interface WindowPosition {
  readonly index: number;
  readonly elapsedMs: number;
  /** Weight of the previous window's count, 1 − elapsed / W. */
  readonly prevWeight: number;
}

export function locateWindow(nowMs: number, windowMs: number): WindowPosition {
  const index = Math.floor(nowMs / windowMs);
  const elapsedMs = nowMs - index * windowMs;
  return { index, elapsedMs, prevWeight: 1 - elapsedMs / windowMs };
}

/** The one admission rule, mirrored by the Redis script below. */
export function admits(counts: WindowCounts, prevWeight: number, limit: number): boolean {
  return counts.prev * prevWeight + counts.cur + 1 <= limit;
}

/** Milliseconds until one more call would be admitted, given the counts after this call. */
export function computeRetryMs(counts: WindowCounts, position: WindowPosition, windowMs: number, limit: number): number {
  if (counts.cur + 1 > limit) {
    // Only the next window can admit: there, cur becomes prev and decays. Solve cur·(1−e/W)+1 ≤ limit.
    const e = windowMs * (1 - (limit - 1) / counts.cur);
    return windowMs - position.elapsedMs + Math.max(0, e);
  }
  if (counts.prev === 0) return 0;
  // Within this window: prev·(1−e/W) + cur + 1 ≤ limit.
  const e = windowMs * (1 - (limit - counts.cur - 1) / counts.prev);
  return Math.max(0, e - position.elapsedMs);
}

function describeBudget(counts: WindowCounts, position: WindowPosition, windowMs: number, limit: number): BudgetDecision {
  const used = counts.prev * position.prevWeight + counts.cur;
  return {
    limit,
    remaining: Math.max(0, Math.floor(limit - used)),
    // When the current sub-window ends, the calls counted so far start to decay.
    resetSeconds: Math.max(1, Math.ceil((windowMs - position.elapsedMs) / 1000)),
  };
}

/** Atomically: admit-and-count one call, returning whether it was admitted and the counts after. */
interface WindowStore {
  hit(key: string, position: WindowPosition, limit: number, windowMs: number): Promise<{ admitted: boolean; counts: WindowCounts }>;
}

class MemoryWindowStore implements WindowStore {
  private readonly entries = new Map<string, { index: number; prev: number; cur: number }>();

  async hit(key: string, position: WindowPosition, limit: number): Promise<{ admitted: boolean; counts: WindowCounts }> {
    const entry = this.rollForward(key, position.index);
    const admitted = admits(entry, position.prevWeight, limit);
    if (admitted) entry.cur += 1;
    if (this.entries.size > 50_000) this.sweep(position.index);
    return { admitted, counts: { prev: entry.prev, cur: entry.cur } };
  }

  private rollForward(key: string, index: number): { index: number; prev: number; cur: number } {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { index, prev: 0, cur: 0 };
      this.entries.set(key, entry);
    } else if (entry.index !== index) {
      entry.prev = entry.index === index - 1 ? entry.cur : 0;
      entry.cur = 0;
      entry.index = index;
    }
    return entry;
  }

  /** Bounded memory: keys idle for two windows no longer influence any decision. */
  private sweep(index: number): void {
    for (const [key, entry] of this.entries) if (entry.index < index - 1) this.entries.delete(key);
  }
}

// One hash per budget key, fields = sub-window index. Same rule as `admits` (Lua numbers are
// doubles; only integers are returned, because Redis truncates Lua numbers in replies).
const SLIDING_HIT_LUA = `
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local prev = tonumber(redis.call('HGET', KEYS[1], ARGV[2]) or '0')
local admitted = 0
if prev * tonumber(ARGV[3]) + cur + 1 <= tonumber(ARGV[4]) then
  cur = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
  admitted = 1
end
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if field ~= ARGV[1] and field ~= ARGV[2] then redis.call('HDEL', KEYS[1], field) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {admitted, prev, cur}
`;

class RedisWindowStore implements WindowStore {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  async hit(key: string, position: WindowPosition, limit: number, windowMs: number): Promise<{ admitted: boolean; counts: WindowCounts }> {
    const reply = (await this.redis.eval(
      SLIDING_HIT_LUA, 1, `${this.prefix}${key}`,
      String(position.index), String(position.index - 1), position.prevWeight.toFixed(6), String(limit), String(2 * windowMs),
    )) as [number, number, number];
    return { admitted: reply[0] === 1, counts: { prev: Number(reply[1]), cur: Number(reply[2]) } };
  }
}

// ---------------------------------------------------------------------------------------------
// Redis connection and failure handling
// ---------------------------------------------------------------------------------------------

async function connectRedis(url: string): Promise<Redis> {
  // Loaded only when REDIS_URL is set: the embedded default never needs it, and importing it is
  // a tenth of the server's start-up (bench/README.md, Start-up).
  const { Redis } = await import('ioredis');
  // No offline queue and short timeouts: while Redis is down a command fails at once instead of
  // holding the request, and the limiter fails over to memory (see failOver).
  return new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: 1_000,
    commandTimeout: 500,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt: number) => Math.min(attempt * 250, 2_000),
  });
}

type RedisCall = () => Promise<unknown>;

/**
 * The circuit breaker in front of every Redis command (opossum). Closed: commands go to Redis.
 * The first failed command (an error, or a hang cut by the 500 ms command timeout) opens it; while
 * open every call is refused at once and the limits use memory counters. Every `retryIntervalMs`
 * the breaker goes half-open and a background PING — never a request — is the single trial call:
 * success closes the circuit, failure re-opens it. A rate-limit refusal (`RateLimiterRes`) is an
 * answer from Redis, not a fault.
 */
function createRedisBreaker(redis: Redis, retryIntervalMs: number, reportFailure: (err: unknown, what: string) => void, logger: Logger) {
  const breaker = new CircuitBreaker((call: RedisCall) => call(), {
    timeout: false, // ioredis's commandTimeout bounds each command
    errorThresholdPercentage: 0, // any failure opens
    resetTimeout: retryIntervalMs,
    errorFilter: (err: unknown) => err instanceof RateLimiterRes,
  });
  breaker.on('halfOpen', () => {
    breaker.fire(() => redis.ping()).catch((err: unknown) => {
      if (!CircuitBreaker.isOurError(err as Error)) reportFailure(err, 'retry');
    });
  });
  breaker.on('close', () => logger.info('redis reachable again: limits use the shared counters'));
  return breaker;
}

/**
 * Fail open, degraded: when a Redis command fails (or the circuit is open), the decision is taken
 * by this process's memory counters; `redis_fallbacks_total{reason}` counts such decisions. A
 * failed command also logs an error line (at most once per interval) and grows
 * `redis_errors_total`. Each replica then enforces the limits on its own, so the effective limit
 * is at most limit × replicas until Redis is back — still bounded, and no request fails because
 * of Redis.
 */
function createFailOver(logger: Logger, metrics: Metrics, intervalMs: number, now: () => number) {
  let lastLogged = Number.NEGATIVE_INFINITY;
  const reportFailure = (err: unknown, what: string): void => {
    metrics.redisErrors.inc();
    if (now() - lastLogged >= intervalMs) {
      lastLogged = now();
      logger.error({ limiter: what, err: err instanceof Error ? err.message : 'unknown' }, 'redis unavailable: limits fail open to per-process counters');
    }
  };
  const failOver = async <T>(breaker: CircuitBreaker | null, primary: () => Promise<T>, fallback: () => Promise<T>, what: string): Promise<T> => {
    try {
      return breaker ? ((await breaker.fire(primary)) as T) : await primary();
    } catch (err) {
      if (err instanceof RateLimiterRes) throw err;
      if (breaker && CircuitBreaker.isOurError(err as Error)) {
        metrics.redisFallbacks.inc({ reason: 'circuit_open' });
      } else {
        metrics.redisFallbacks.inc({ reason: 'error' });
        reportFailure(err, what);
      }
      return fallback();
    }
  };
  return { failOver, reportFailure };
}

function toRetryAfter(ms: number): string {
  return String(Math.max(1, Math.ceil(ms / 1000)));
}

/** Runs `primary` on the shared counters, or `fallback` on this process's when Redis fails (createFailOver). */
type FailOver = <T>(primary: () => Promise<T>, fallback: () => Promise<T>, what: string) => Promise<T>;

/** Where the counters live: Redis behind its circuit breaker when REDIS_URL is set; null → memory only. */
interface SharedCounters {
  readonly redis: Redis | null;
  readonly breaker: CircuitBreaker | null;
  readonly failOver: FailOver;
}

/** Counts a rejection in `rate_limit_rejections_total`. */
type CountRejection = (kind: RateLimitKind, channel: string) => void;

async function connectCounters(config: Config, logger: Logger, metrics: Metrics, options: LimitsOptions, now: () => number): Promise<SharedCounters> {
  const { failOver, reportFailure } = createFailOver(logger, metrics, options.errorLogIntervalMs ?? 30_000, now);
  const redis = config.redisUrl ? await connectRedis(config.redisUrl) : null;
  const breaker = redis ? createRedisBreaker(redis, options.redisRetryIntervalMs ?? 1_000, reportFailure, logger) : null;
  if (redis) {
    // ioredis reports connection trouble as events; the failures are counted where commands fail.
    redis.on('error', () => undefined);
    await redis.connect().catch((err: unknown) => {
      logger.error({ err: err instanceof Error ? err.message : 'unknown' }, 'redis unavailable at start-up: limits fail open to per-process counters');
    });
  }
  return { redis, breaker, failOver: (primary, fallback, what) => failOver(breaker, primary, fallback, what) };
}

/** Readiness of the shared counter store; 'absent' when counters are in memory by configuration. */
async function checkCounters({ redis, breaker }: SharedCounters): Promise<'up' | 'down' | 'absent'> {
  if (!redis || !breaker) return 'absent';
  // Open circuit: down without waiting. Closed: a PING through the breaker, so a hung Redis
  // seen first by the readiness probe already spares the requests their timeout.
  if (!breaker.closed) return 'down';
  try {
    return (await breaker.fire(() => redis.ping())) === 'PONG' ? 'up' : 'down';
  } catch {
    return 'down';
  }
}

async function closeCounters({ redis, breaker }: SharedCounters): Promise<void> {
  breaker?.shutdown();
  if (redis) {
    await redis.quit().catch(() => redis.disconnect());
  }
}

/** The API budget per person per organization (read and write, sliding window: locateWindow … describeBudget). */
function createBudget(config: Config, counters: SharedCounters, prefix: string, now: () => number, reject: CountRejection): ApiBudget {
  const memoryWindows = new MemoryWindowStore();
  const windows: WindowStore = counters.redis ? new RedisWindowStore(counters.redis, prefix) : memoryWindows;
  const windowMs = config.apiBudgetWindowSeconds * 1000;
  return {
    // `channel` is optional so OperationService may pass `caller.channel` for the metric label.
    async consume(personId: string, organizationId: string, kind: 'read' | 'write', channel: string = 'any'): Promise<BudgetDecision> {
      const limit = kind === 'read' ? config.apiReadBudget : config.apiWriteBudget;
      const key = `budget:${kind}:${organizationId}:${personId}`;
      const position = locateWindow(now(), windowMs);
      const { admitted, counts } = await counters.failOver(
        () => windows.hit(key, position, limit, windowMs),
        () => memoryWindows.hit(key, position, limit),
        'budget',
      );
      if (!admitted) {
        reject(kind === 'read' ? 'budget_read' : 'budget_write', channel);
        const retryAfter = Number(toRetryAfter(computeRetryMs(counts, position, windowMs, limit)));
        throw new ApiError('RATE_LIMITED', 'The API budget for this person in the organization is spent. Retry later.', {
          retry_after_seconds: retryAfter,
          limit,
        });
      }
      return describeBudget(counts, position, windowMs, limit);
    },
  };
}

/** A rate-limiter-flexible limiter on the shared counters, and its per-process twin that decides while Redis fails. */
interface LimiterPair {
  readonly shared: RateLimiterAbstract;
  readonly memory: RateLimiterMemory;
}

function createLimiterPair(redis: Redis | null, keyPrefix: string, points: number, duration: number): LimiterPair {
  const memory = new RateLimiterMemory({ keyPrefix, points, duration });
  const shared: RateLimiterAbstract = redis
    ? new RateLimiterRedis({ storeClient: redis, keyPrefix, points, duration, rejectIfRedisNotReady: true })
    : memory;
  return { shared, memory };
}

/** How a limit over its count is answered: the metric's labels and the 429's message and reason. */
interface Refusal {
  readonly kind: RateLimitKind;
  readonly channel: string;
  readonly message: string;
  readonly reason: string;
}

/** The protocol limit's refusal per channel, built once. */
const PROTOCOL_REFUSALS: Readonly<Record<'mcp' | 'api', Refusal>> = {
  mcp: { kind: 'protocol', channel: 'mcp', message: 'Too many requests. Retry later.', reason: 'rate_limited_protocol' },
  api: { kind: 'protocol', channel: 'api', message: 'Too many requests. Retry later.', reason: 'rate_limited_protocol' },
};

/** The counter-based limits of docs/security.md#limits: protocol requests, failed authentications, client registrations. */
function createCounterLimits(config: Config, counters: SharedCounters, prefix: string, reject: CountRejection) {
  const limiter = (name: string, points: number, duration: number) => createLimiterPair(counters.redis, `${prefix}${name}`, points, duration);
  const protocol = limiter('protocol', config.protocolRateLimitPerMinute, 60);
  const authFailures = limiter('authfail', config.authFailureLimitPerMinute, 60);
  const registrations = limiter('oauthreg', REGISTRATION_LIMIT_PER_HOUR, 3600);
  const consume = (pair: LimiterPair, key: string, what: string) => counters.failOver(() => pair.shared.consume(key), () => pair.memory.consume(key), what);
  /** Counts one point for `key`; over the limit → the rejection counted and HttpError 429 + Retry-After. */
  async function consumeOrRefuse(pair: LimiterPair, key: string, what: string, refusal: Refusal): Promise<void> {
    try {
      await consume(pair, key, what);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      reject(refusal.kind, refusal.channel);
      throw new HttpError(429, refusal.message, { 'Retry-After': toRetryAfter(err.msBeforeNext) }, refusal.reason);
    }
  }
  return {
    consumeProtocol: (subject: string, channel: 'mcp' | 'api' = 'mcp') =>
      consumeOrRefuse(protocol, subject, 'protocol', PROTOCOL_REFUSALS[channel]),
    async assertAuthAllowed(address: string) {
      const res = await counters.failOver(() => authFailures.shared.get(address), () => authFailures.memory.get(address), 'auth_failure');
      if (res && res.consumedPoints >= config.authFailureLimitPerMinute) {
        reject('auth_failure', 'any');
        throw new HttpError(429, 'Too many failed authentications. Retry later.', { 'Retry-After': toRetryAfter(res.msBeforeNext) }, 'rate_limited_auth');
      }
    },
    async recordAuthFailure(address: string) {
      try {
        await consume(authFailures, address, 'auth_failure');
      } catch (err) {
        // Over the limit already: assertAuthAllowed rejects the next attempt; nothing more to count.
        if (!(err instanceof RateLimiterRes)) throw err;
      }
    },
    consumeRegistration: (address: string) => consumeOrRefuse(registrations, address, 'registration', {
      kind: 'registration', channel: 'any', message: 'Too many client registrations from this address. Retry later.', reason: 'rate_limited_registration',
    }),
  };
}

export async function createLimits(config: Config, logger: Logger, metrics: Metrics, options: LimitsOptions = {}): Promise<Limits> {
  const now = options.now ?? systemClock.now;
  const prefix = options.keyPrefix ?? config.redisKeyPrefix;
  const counters = await connectCounters(config, logger, metrics, options, now);
  const reject: CountRejection = (kind, channel) => metrics.rateLimitRejections.inc({ kind, channel });
  return {
    budget: createBudget(config, counters, prefix, now, reject),
    ...createCounterLimits(config, counters, prefix, reject),
    checkRedis: () => checkCounters(counters),
    close: () => closeCounters(counters),
  };
}
