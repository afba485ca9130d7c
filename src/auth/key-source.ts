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

export function createCachedKeySource(options: CachedKeySourceOptions): CachedKeySource {
  const cooldownMs = options.cooldownMs ?? 30_000;
  const maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
  const now = options.now ?? systemClock.now;
  let set: JSONWebKeySet | null = options.initial ?? null;
  let local: ReturnType<typeof createLocalJWKSet> | null = set === null ? null : createLocalJWKSet(set);
  let fetchedAt = set === null ? 0 : now();
  let lastAttemptAt = Number.NEGATIVE_INFINITY;
  let inflight: Promise<void> | null = null;

  const coolingDown = () => now() - lastAttemptAt < cooldownMs;
  const retryAfter = () => Math.max(1, Math.ceil((lastAttemptAt + cooldownMs - now()) / 1000));

  /** One fetch at a time; concurrent callers share it. Never throws: the outcome is in the state. */
  function refresh(): Promise<void> {
    if (inflight) return inflight;
    lastAttemptAt = now();
    inflight = options.load().then(
      (jwks) => {
        set = jwks;
        local = createLocalJWKSet(jwks);
        fetchedAt = now();
        options.onFetch?.('ok');
      },
      () => {
        options.onFetch?.('error');
      },
    ).finally(() => {
      inflight = null;
    });
    return inflight;
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
  const resolve: KeyResolver = async (header, token) => {
    if (local === null) {
      if (!coolingDown()) await refresh();
      else if (inflight) await inflight;
      if (local === null) throw new AccountUnavailableError(retryAfter());
    } else if (now() - fetchedAt > maxAgeMs && !coolingDown()) {
      await refresh();
    }
    try {
      return await (local as ReturnType<typeof createLocalJWKSet>)(header, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      // Cooling down with no load in flight: the held set decides (an unknown key).
      if (inflight === null && coolingDown()) throw err;
      await refresh();
      // The reloaded set, or the held one when the load failed; still no such key → unknown key.
      return (local as ReturnType<typeof createLocalJWKSet>)(header, token);
    }
  };
  return {
    resolve,
    async keySet() {
      if (local === null || now() - fetchedAt > maxAgeMs) {
        if (!coolingDown()) await refresh();
        else if (inflight) await inflight;
      }
      return set;
    },
  };
}
