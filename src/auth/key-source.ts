/**
 * Where verification keys come from: the embedded Account's own JWKS (fixed, or read from the
 * database its replicas share), or the external Account's JWKS URL — the last two behind a small
 * cache (reloaded when stale or on an unknown `kid`, at most once per cooldown, so a flood of bad
 * `kid`s cannot hammer the Account or the database). Claim checks are `verify.ts`'s job.
 */
import { createLocalJWKSet, errors, type CryptoKey, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters } from 'jose';
import { systemClock } from '../runtime/clock.js';

export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

/** The Account could not be reached and no cached key can decide: HTTP 503 + Retry-After. */
export class AccountUnavailableError extends Error {
  readonly code = 'ACCOUNT_UNAVAILABLE';
  constructor(readonly retryAfterSeconds: number, options?: { cause?: unknown }) {
    super('The Account could not be reached to verify the token.', options);
    this.name = 'AccountUnavailableError';
  }
}

export interface CachedKeySourceOptions {
  /** Reads the current key set; a rejection keeps the cached keys (and counts as an error). */
  readonly load: () => Promise<JSONWebKeySet>;
  /** A set already read (at start-up), so the first request does not wait for a load. */
  readonly initial?: JSONWebKeySet;
  /** Minimum interval between two loads triggered by an unknown `kid` or a failure. */
  readonly cooldownMs?: number;
  /** Age after which the cached set is refreshed (a failed refresh keeps the old keys). */
  readonly maxAgeMs?: number;
  /** Milliseconds since the epoch, from the services' clock (src/runtime/clock.ts); default the system clock. */
  readonly now?: () => number;
  readonly onFetch?: (result: 'ok' | 'error') => void;
}

export interface RemoteKeySourceOptions extends Omit<CachedKeySourceOptions, 'load' | 'initial'> {
  readonly url: string;
  readonly timeoutMs?: number;
}

export interface CachedKeySource {
  readonly resolve: KeyResolver;
  /** The cached set (reloaded first when stale); null while no load has succeeded. */
  keySet(): Promise<JSONWebKeySet | null>;
}

export function createLocalKeySource(jwks: JSONWebKeySet): KeyResolver {
  return createLocalJWKSet(jwks);
}

function isKeySet(value: unknown): value is JSONWebKeySet {
  return typeof value === 'object' && value !== null && Array.isArray((value as { keys?: unknown }).keys);
}

async function fetchKeySet(url: string, timeoutMs: number): Promise<JSONWebKeySet> {
  const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  if (response.status !== 200) throw new Error(`JWKS answered HTTP ${response.status}`);
  const body: unknown = await response.json();
  if (!isKeySet(body)) throw new Error('JWKS response is not a key set');
  return body;
}

export function createRemoteKeySource(options: RemoteKeySourceOptions): KeyResolver {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return createCachedKeySource({ ...options, load: () => fetchKeySet(options.url, timeoutMs) }).resolve;
}

type LocalKeySet = ReturnType<typeof createLocalJWKSet>;

/**
 * The held key set and its loads: one load at a time, which concurrent callers share. A load
 * never throws: a failed one keeps the held set and is reported through `onFetch`.
 */
class HeldKeySet {
  set: JSONWebKeySet | null;
  local: LocalKeySet | null;
  inflight: Promise<void> | null = null;
  private fetchedAt: number;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private readonly cooldownMs: number;
  private readonly maxAgeMs: number;
  private readonly now: () => number;

  constructor(private readonly options: CachedKeySourceOptions) {
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
    this.now = options.now ?? systemClock.now;
    this.set = options.initial ?? null;
    this.local = this.set === null ? null : createLocalJWKSet(this.set);
    this.fetchedAt = this.set === null ? 0 : this.now();
  }

  /** A load was tried less than a cooldown ago: do not load again (on a miss or after a failure). */
  coolingDown(): boolean {
    return this.now() - this.lastAttemptAt < this.cooldownMs;
  }

  stale(): boolean {
    return this.now() - this.fetchedAt > this.maxAgeMs;
  }

  /** Seconds until the cooldown ends (at least 1): the Retry-After of an AccountUnavailableError. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.lastAttemptAt + this.cooldownMs - this.now()) / 1000));
  }

  refresh(): Promise<void> {
    if (this.inflight) return this.inflight;
    this.lastAttemptAt = this.now();
    this.inflight = this.options.load().then(
      (jwks) => {
        this.set = jwks;
        this.local = createLocalJWKSet(jwks);
        this.fetchedAt = this.now();
        this.options.onFetch?.('ok');
      },
      () => {
        this.options.onFetch?.('error');
      },
    ).finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  /** Outside the cooldown: a load. Inside it: only the load already in flight, if any. */
  async reloadUnlessCoolingDown(): Promise<void> {
    if (!this.coolingDown()) await this.refresh();
    else if (this.inflight) await this.inflight;
  }
}

/**
 * 503 (`AccountUnavailableError`) only while no key set was ever loaded: nothing at all can be
 * verified then, and nothing the client sent is at fault. Once a set is held, a `kid` it does
 * not name is an unknown key (401), always: outside the cooldown one reload is tried first
 * (concurrent lookups join it); inside the cooldown — right after a failed load too — nothing
 * is reloaded and the held set decides. The cooldown means "do not reload", not "fail"; a failed
 * load keeps the held set and is reported through `onFetch`. So made-up `kid`s during an outage
 * get deterministic 401s, which the failed-authentication limit counts (it does not count
 * 503s), and a key rotated during an outage is accepted once a load succeeds again.
 */
function createResolver(held: HeldKeySet): KeyResolver {
  return async (header, token) => {
    if (held.local === null) {
      await held.reloadUnlessCoolingDown();
      if (held.local === null) throw new AccountUnavailableError(held.retryAfterSeconds());
    } else if (held.stale() && !held.coolingDown()) {
      await held.refresh();
    }
    try {
      return await (held.local as LocalKeySet)(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      // Cooling down with no load in flight: the held set decides (an unknown key).
      if (held.inflight === null && held.coolingDown()) throw err;
      await held.refresh();
      // The reloaded set, or the held one when the load failed; still no such key → unknown key.
      return (held.local as LocalKeySet)(header, token);
    }
  };
}

export function createCachedKeySource(options: CachedKeySourceOptions): CachedKeySource {
  const held = new HeldKeySet(options);
  return {
    resolve: createResolver(held),
    async keySet() {
      if (held.local === null || held.stale()) await held.reloadUnlessCoolingDown();
      return held.set;
    },
  };
}
