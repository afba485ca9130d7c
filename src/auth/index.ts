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
import { openEmbeddedAccountKeys, type AccountKey, type EmbeddedAccountKeys } from './account-key.js';
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

/** What createAuth's parts share: the configuration, the database, where to log and count, the clock. */
interface AuthContext {
  readonly config: Config;
  readonly db: Kysely<Database>;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly options: AuthOptions;
  readonly clock: Clock;
}

/** Who signs the tokens: the embedded Account (its own keys) or the external one (its JWKS). */
interface AccountKeys {
  /** The `iss` tokens must carry. */
  readonly issuer: string;
  /** Embedded Account only: its signing key and JWKS. */
  readonly account: EmbeddedAccountKeys | null;
  readonly keys: KeyResolver;
}

/** The embedded Account's keys (in DATA_DIR, or the database its replicas share). */
function openAccountKeys({ config, db, logger, options, clock }: AuthContext): Promise<EmbeddedAccountKeys> {
  return openEmbeddedAccountKeys(config, db, {
    ...(options.accountKeysReloadCooldownMs !== undefined ? { reloadCooldownMs: options.accountKeysReloadCooldownMs } : {}),
    clock,
    onReloadError: () => logger.warn({ event: 'account_keys_reload_failed' }, 'embedded Account keys could not be re-read from the database'),
  });
}

/** The external Account's JWKS, fetched from ACCOUNT_JWKS_URL behind the key cache; every fetch counted. */
function openRemoteKeys({ logger, metrics, options, clock }: AuthContext, jwksUrl: string): KeyResolver {
  return createRemoteKeySource({
    url: jwksUrl,
    ...(options.jwksCooldownMs !== undefined ? { cooldownMs: options.jwksCooldownMs } : {}),
    ...(options.jwksMaxAgeMs !== undefined ? { maxAgeMs: options.jwksMaxAgeMs } : {}),
    now: () => clock.now(),
    onFetch: (result) => {
      metrics.jwksFetches.inc({ result });
      if (result === 'error') logger.warn({ event: 'jwks_fetch_failed' }, 'Account JWKS fetch failed');
    },
  });
}

/** The embedded Account unless ACCOUNT_ISSUER and ACCOUNT_JWKS_URL name an external one. */
async function openAccount(context: AuthContext): Promise<AccountKeys> {
  const { accountIssuer, accountJwksUrl, publicUrl } = context.config;
  if (accountIssuer === null || accountJwksUrl === null) {
    const account = await openAccountKeys(context);
    return { issuer: publicUrl, account, keys: account.keys };
  }
  return { issuer: accountIssuer, account: null, keys: openRemoteKeys(context, accountJwksUrl) };
}

/** Where a 401's `WWW-Authenticate` points: the RFC 9728 metadata of each surface. */
function buildChallengeUrls(publicUrl: string): ChallengeUrls {
  return { resourceMetadata: { mcp: `${publicUrl}${PROTECTED_RESOURCE_PATH}`, api: `${publicUrl}${PROTECTED_RESOURCE_PATH}/v1` } };
}

export async function createAuth(config: Config, db: Kysely<Database>, logger: Logger, metrics: Metrics, options: AuthOptions = {}): Promise<AuthModule> {
  const clock = options.clock ?? systemClock;
  const { issuer, account, keys } = await openAccount({ config, db, logger, metrics, options, clock });
  const accountKey = account?.signingKey ?? null;
  const audiences = buildAudiences(config.publicUrl);
  const challenge = buildChallengeUrls(config.publicUrl);
  const revocation = createRevocationList(db, () => clock.now());
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
