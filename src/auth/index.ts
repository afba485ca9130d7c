/**
 * createAuth: assembles the authentication module from configuration — the key source
 * (embedded Account key or external JWKS), the authenticator, the revocation list, the
 * `bearer` middleware, the well-known router and (embedded only) token minting.
 * Audiences: `aud` = `${publicUrl}/mcp` at /mcp, `${publicUrl}/v1` at /v1.
 */
import type Router from '@koa/router';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../store/schema.js';
import type { Caller, Channel } from '../identity/caller.js';
import type { Metrics } from '../http/metrics.js';
import type { AppMiddleware, AppState } from '../http/app-state.js';
import type { Audience, Authenticator, Identity } from './types.js';
import { openEmbeddedAccountKeys, type AccountKey } from './account-key.js';
import { createRemoteKeySource, type KeyResolver } from './key-source.js';
import { createAuthenticator } from './verify.js';
import { createRevocationList, type RevocationList } from './revocation.js';
import { createBearer, type AuthLimits } from './bearer.js';
import { createWellKnownRouter, PROTECTED_RESOURCE_PATH } from './well-known.js';
import { createCallerLoader } from './caller.js';
import { createMinter, type MintTokenOptions } from './mint.js';
import type { ChallengeUrls, TokenFailureReason } from './challenge.js';
import { buildAudiences } from './audiences.js';
import { systemClock, type Clock } from '../runtime/clock.js';

export { buildAudiences } from './audiences.js';

export type { MintTokenOptions } from './mint.js';
export type { AuthLimits, AuthState } from './bearer.js';

export interface AuthModule {
  readonly authenticator: Authenticator;
  readonly wellKnownRouter: Router<AppState>;
  /** Sets ctx.state.identity, ctx.state.caller (channel mcp|api) and ctx.state.connectionWorkspaceId. */
  bearer(audience: Audience, limits: AuthLimits): AppMiddleware;
  /** Throws `RevokedTokenError` (src/auth/caller.ts) for a revoked token. */
  loadCaller(identity: Identity, channel: Channel): Promise<Caller>;
  /** Embedded Account only: its signing key (the embedded OAuth server signs with it too, src/oauth). */
  readonly accountKey: AccountKey | null;
  /** Embedded Account only. */
  readonly mintToken?: (options: MintTokenOptions) => Promise<string>;
  /** The `iss` tokens must carry, and the `aud` per surface. */
  readonly issuer: string;
  readonly audiences: Readonly<Record<Audience, string>>;
  readonly revocation: RevocationList;
  /** Drops cached verifications, subject checks and memberships (tests, key rotation). */
  clearCaches(): void;
}

/** Tuning knobs for tests; production uses the defaults. */
export interface AuthOptions {
  readonly jwksCooldownMs?: number;
  readonly jwksMaxAgeMs?: number;
  /** Replicas of the embedded Account: minimum interval between key re-reads on an unknown `kid`. */
  readonly accountKeysReloadCooldownMs?: number;
  /**
   * The services' clock (src/runtime/clock.ts; default the system clock): token expiry and
   * minting, the verification and subject caches, revocation timestamps and the key caches'
   * cooldowns read it, so tests step time instead of sleeping.
   */
  readonly clock?: Clock;
}

export async function createAuth(config: Config, db: Kysely<Database>, logger: Logger, metrics: Metrics, options: AuthOptions = {}): Promise<AuthModule> {
  const clock = options.clock ?? systemClock;
  const now = (): number => clock.now();
  const embedded = config.accountIssuer === null || config.accountJwksUrl === null;
  const issuer = embedded ? config.publicUrl : (config.accountIssuer as string);
  const audiences = buildAudiences(config.publicUrl);
  const account = embedded
    ? await openEmbeddedAccountKeys(config, db, {
      ...(options.accountKeysReloadCooldownMs !== undefined ? { reloadCooldownMs: options.accountKeysReloadCooldownMs } : {}),
      clock,
      onReloadError: () => logger.warn({ event: 'account_keys_reload_failed' }, 'embedded Account keys could not be re-read from the database'),
    })
    : null;
  const accountKey = account?.signingKey ?? null;
  const keys: KeyResolver = account
    ? account.keys
    : createRemoteKeySource({
      url: config.accountJwksUrl as string,
      ...(options.jwksCooldownMs !== undefined ? { cooldownMs: options.jwksCooldownMs } : {}),
      ...(options.jwksMaxAgeMs !== undefined ? { maxAgeMs: options.jwksMaxAgeMs } : {}),
      now,
      onFetch: (result) => {
        metrics.jwksFetches.inc({ result });
        if (result === 'error') logger.warn({ event: 'jwks_fetch_failed' }, 'Account JWKS fetch failed');
      },
    });
  const challenge: ChallengeUrls = {
    resourceMetadata: { mcp: `${config.publicUrl}${PROTECTED_RESOURCE_PATH}`, api: `${config.publicUrl}${PROTECTED_RESOURCE_PATH}/v1` },
  };
  const revocation = createRevocationList(db, now);
  const onFailure = (reason: TokenFailureReason | 'account_unavailable'): void => {
    metrics.tokenVerificationFailures.inc({ reason });
  };
  const authenticator = createAuthenticator({
    db, issuer, audiences, keys, revocation, challenge, maxLifetimeSeconds: config.tokenMaxLifetimeSeconds, clock, onFailure,
  });
  const callers = createCallerLoader(db);
  const load = (identity: Identity, channel: Channel) => callers.load(identity, channel);
  const minter = accountKey ? createMinter(db, accountKey, issuer, audiences, config.tokenMaxLifetimeSeconds, clock) : null;
  return {
    authenticator,
    wellKnownRouter: createWellKnownRouter({ publicUrl: config.publicUrl, issuer, embeddedJwks: account ? account.jwks : null }),
    bearer: (audience, limits) => createBearer({ db, authenticator, challenge, loadCaller: load, onFailure }, audience, limits),
    loadCaller: load,
    accountKey,
    ...(minter ? { mintToken: (opts: MintTokenOptions) => minter.mintToken(opts) } : {}),
    issuer,
    audiences,
    revocation,
    clearCaches: () => {
      authenticator.clearCache();
      callers.clear();
    },
  };
}
