/**
 * Where verification keys come from: the embedded Account's own JWKS, or the external
 * Account's JWKS URL behind a small cache (refetched when stale or on an unknown `kid`, at most
 * once per cooldown, so a flood of bad `kid`s cannot hammer the Account). Claim checks are
 * `verify.ts`'s job.
 */
import { createLocalJWKSet, errors, type CryptoKey, type FlattenedJWSInput, type JSONWebKeySet, type JWSHeaderParameters } from 'jose';

export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

/** The Account could not be reached and no cached key can decide: HTTP 503 + Retry-After. */
export class AccountUnavailableError extends Error {
  readonly code = 'ACCOUNT_UNAVAILABLE';
  constructor(readonly retryAfterSeconds: number, options?: { cause?: unknown }) {
    super('The Account could not be reached to verify the token.', options);
    this.name = 'AccountUnavailableError';
  }
}

export interface RemoteKeySourceOptions {
  readonly url: string;
  /** Minimum interval between two fetches triggered by an unknown `kid` or a failure. */
  readonly cooldownMs?: number;
  /** Age after which the cached set is refreshed (a failed refresh keeps the old keys). */
  readonly maxAgeMs?: number;
  readonly timeoutMs?: number;
  readonly now?: () => number;
  readonly onFetch?: (result: 'ok' | 'error') => void;
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
  const cooldownMs = options.cooldownMs ?? 30_000;
  const maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const now = options.now ?? Date.now;
  let local: ReturnType<typeof createLocalJWKSet> | null = null;
  let fetchedAt = 0;
  let lastAttemptAt = Number.NEGATIVE_INFINITY;
  let lastAttemptFailed = false;
  let inflight: Promise<void> | null = null;

  const coolingDown = () => now() - lastAttemptAt < cooldownMs;
  const retryAfter = () => Math.max(1, Math.ceil((lastAttemptAt + cooldownMs - now()) / 1000));

  /** One fetch at a time; concurrent callers share it. Never throws: the outcome is in the state. */
  function refresh(): Promise<void> {
    if (inflight) return inflight;
    lastAttemptAt = now();
    inflight = fetchKeySet(options.url, timeoutMs).then(
      (jwks) => {
        local = createLocalJWKSet(jwks);
        fetchedAt = now();
        lastAttemptFailed = false;
        options.onFetch?.('ok');
      },
      () => {
        lastAttemptFailed = true;
        options.onFetch?.('error');
      },
    ).finally(() => {
      inflight = null;
    });
    return inflight;
  }

  return async (header, token) => {
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
      if (coolingDown()) {
        // A recent fetch failed: the Account may know this key, so do not call it invalid.
        if (lastAttemptFailed) throw new AccountUnavailableError(retryAfter(), { cause: err });
        throw err;
      }
      await refresh();
      if (lastAttemptFailed) throw new AccountUnavailableError(retryAfter(), { cause: err });
      return (local as ReturnType<typeof createLocalJWKSet>)(header, token);
    }
  };
}
