/**
 * The Authenticator: turns `Authorization: Bearer <jwt>` into an `Identity` (docs/security.md#identity-and-tokens):
 * signature against the Account's keys (ES256 only), `iss`, `aud`, `exp`/`nbf` (30 s
 * tolerance), the token's hygiene (`iat` not in the future, a bounded lifetime, one audience),
 * required claims, `jti` not revoked (`authenticate`; the bearer uses `verify` and reads the
 * revocation with the caller, src/auth/caller.ts), subject and organization not deleted.
 * Successful verifications are cached by token hash until `exp`; failures never are.
 * Membership and permissions are `caller.ts`'s job.
 */
import { createHash } from 'node:crypto';
import { errors, jwtVerify, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { TokenType } from '../identity/caller.js';
import type { Audience, Authenticator, Identity } from './types.js';
import { AccountUnavailableError, type KeyResolver } from './key-source.js';
import { buildAuthError, buildUnavailableError, type ChallengeUrls, type TokenFailureReason } from './challenge.js';
import type { RevocationList } from './revocation.js';
import { Lru } from '../runtime/lru.js';
import { isExplicitOnlyScope, isWriteScope, parseScopes } from '../identity/scopes.js';
import type { Clock } from '../runtime/clock.js';

export const CLOCK_TOLERANCE_SECONDS = 30;
/** Far above any real token (~1 KB) and below Node's 16 KB header limit. */
const MAX_TOKEN_LENGTH = 8 * 1024;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const SUBJECT_TTL_MS = 5_000;

export interface AuthenticatorOptions {
  readonly db: Kysely<Database>;
  readonly issuer: string;
  /** The `aud` value expected per audience. */
  readonly audiences: Readonly<Record<Audience, string>>;
  readonly keys: KeyResolver;
  readonly revocation: RevocationList;
  readonly challenge: ChallengeUrls;
  /** Longest accepted lifetime: `exp − iat` (`exp − now` for a token without `iat`). */
  readonly maxLifetimeSeconds: number;
  readonly onFailure?: (reason: TokenFailureReason | 'account_unavailable') => void;
  readonly cacheSize?: number;
  /** The services' clock (src/runtime/clock.ts): `exp`/`nbf`/`iat`, the verification cache and the subject check read it. */
  readonly clock: Clock;
}

class TokenRejected extends Error {
  constructor(readonly reason: TokenFailureReason) {
    super(reason);
  }
}

function classifyJoseError(err: unknown): TokenFailureReason {
  if (err instanceof errors.JWTExpired) return 'expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf' || err.claim === 'iat') return 'not_yet_valid';
    if (err.claim === 'iss') return 'wrong_issuer';
    if (err.claim === 'aud') return 'wrong_audience';
    return 'invalid_claims';
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) return 'alg_not_allowed';
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) return 'unknown_kid';
  return 'malformed';
}

function readIdentity(payload: JWTPayload): Identity {
  const { sub, org, scope, token_type: tokenType, jti, exp, writes_approved: writesApproved } = payload as JWTPayload & Record<string, unknown>;
  const valid = typeof sub === 'string' && sub !== '' && typeof org === 'string' && org !== ''
    && typeof scope === 'string' && (tokenType === 'oauth' || tokenType === 'personal')
    && typeof jti === 'string' && jti !== '' && typeof exp === 'number';
  if (!valid) throw new TokenRejected('invalid_claims');
  let scopes = parseScopes(scope);
  // docs/security.md#identity-and-tokens: an OAuth token keeps write scopes only when the person
  // approved changes on the consent page, which the Account states with `writes_approved`.
  if (tokenType === 'oauth' && writesApproved !== true) scopes = new Set([...scopes].filter((s) => !isWriteScope(s)));
  // An OAuth grant never carries the Seguridad scopes nor finance.approvals.write (docs/security.md#oauth-login), whoever issued it.
  if (tokenType === 'oauth') scopes = new Set([...scopes].filter((s) => !isExplicitOnlyScope(s)));
  return { personId: sub, organizationId: org, scopes, tokenType: tokenType as TokenType, tokenId: jti, expiresAt: exp };
}

/**
 * What `jwtVerify` leaves unchecked, and the Account is not trusted to get right: a token issued
 * in the future (beyond the clock tolerance), one living longer than the configured maximum, and
 * an `aud` naming both surfaces — a token valid at /mcp and at /v1 alike would undo their
 * separation.
 */
function assertHygiene(payload: JWTPayload, audiences: Readonly<Record<Audience, string>>, maxLifetimeSeconds: number, nowMs: number): void {
  const now = Math.floor(nowMs / 1000);
  const { iat, exp, aud } = payload;
  if (typeof iat === 'number' && iat > now + CLOCK_TOLERANCE_SECONDS) throw new TokenRejected('issued_in_future');
  if (typeof exp === 'number' && exp - (typeof iat === 'number' ? iat : now) > maxLifetimeSeconds) throw new TokenRejected('lifetime_too_long');
  if (Array.isArray(aud) && aud.includes(audiences.mcp) && aud.includes(audiences.api)) throw new TokenRejected('ambiguous_audience');
}

/** Splits `Bearer <token>`; anything else is 'missing' (no credentials) or 'malformed'. */
function extractToken(authorization: string | undefined): string {
  if (authorization === undefined || authorization.trim() === '') throw new TokenRejected('missing');
  const match = /^Bearer(?: +(.*))?$/i.exec(authorization.trim());
  if (!match) throw new TokenRejected('missing');
  const token = (match[1] ?? '').trim();
  if (token.length > MAX_TOKEN_LENGTH) throw new TokenRejected('too_large');
  if (!JWT_SHAPE.test(token)) throw new TokenRejected('malformed');
  return token;
}

/** Whether a token's person and organization still exist, cached for SUBJECT_TTL_MS (deleted ones too). */
function createSubjectCheck(db: Kysely<Database>, clock: Clock) {
  const subjects = new Lru<string, { live: boolean; checkedAt: number }>(10_000);

  async function readLive(identity: Identity): Promise<boolean> {
    const person = await db.selectFrom('persons').select('deleted_at').where('id', '=', identity.personId).executeTakeFirst();
    const org = await db.selectFrom('organizations').select('deleted_at').where('id', '=', identity.organizationId).executeTakeFirst();
    return person !== undefined && person.deleted_at === null && org !== undefined && org.deleted_at === null;
  }

  return {
    async assertLive(identity: Identity): Promise<void> {
      const key = `${identity.organizationId}:${identity.personId}`;
      const cached = subjects.get(key);
      const fresh = cached !== undefined && clock.now() - cached.checkedAt < SUBJECT_TTL_MS;
      const live = fresh ? cached.live : await readLive(identity);
      if (!fresh) subjects.set(key, { live, checkedAt: clock.now() });
      if (!live) throw new TokenRejected('subject_deleted');
    },
    clear: () => subjects.clear(),
  };
}

/** `jwtVerify` with the Account's keys and every claim rule; a jose error becomes the TokenRejected of its reason. */
async function verifySignedToken(token: string, audience: Audience, options: AuthenticatorOptions): Promise<Identity> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, options.keys, {
      issuer: options.issuer,
      audience: options.audiences[audience],
      algorithms: ['ES256'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ['sub', 'exp', 'jti'],
      currentDate: new Date(options.clock.now()),
    }));
  } catch (err) {
    if (err instanceof AccountUnavailableError) throw err;
    throw new TokenRejected(classifyJoseError(err));
  }
  assertHygiene(payload, options.audiences, options.maxLifetimeSeconds, options.clock.now());
  return readIdentity(payload);
}

/** Verified tokens by audience and hash, kept until `exp` (+ the clock tolerance); failures are never cached. */
function createVerificationCache(options: AuthenticatorOptions) {
  const verified = new Lru<string, Identity>(options.cacheSize ?? 10_000);
  return {
    async verify(token: string, audience: Audience): Promise<Identity> {
      const cacheKey = `${audience}:${createHash('sha256').update(token).digest('base64url')}`;
      const hit = verified.get(cacheKey);
      if (hit && hit.expiresAt + CLOCK_TOLERANCE_SECONDS > options.clock.now() / 1000) return hit;
      if (hit) verified.delete(cacheKey);
      const identity = await verifySignedToken(token, audience, options);
      verified.set(cacheKey, identity);
      return identity;
    },
    clear: () => verified.clear(),
  };
}

/** A rejected token becomes its 401 challenge, an unreachable Account a 503; both are counted. Anything else is rethrown. */
function toAuthError(err: unknown, audience: Audience, options: AuthenticatorOptions): unknown {
  if (err instanceof TokenRejected) {
    options.onFailure?.(err.reason);
    return buildAuthError(options.challenge, audience, err.reason);
  }
  if (err instanceof AccountUnavailableError) {
    options.onFailure?.('account_unavailable');
    return buildUnavailableError(err.retryAfterSeconds);
  }
  return err;
}

export function createAuthenticator(options: AuthenticatorOptions): Authenticator & { clearCache(): void } {
  const verified = createVerificationCache(options);
  const subjects = createSubjectCheck(options.db, options.clock);

  async function check(authorization: string | undefined, audience: Audience, revocation: boolean): Promise<Identity> {
    try {
      const identity = await verified.verify(extractToken(authorization), audience);
      if (revocation && await options.revocation.isRevoked(identity.tokenId)) throw new TokenRejected('revoked');
      await subjects.assertLive(identity);
      return identity;
    } catch (err) {
      throw toAuthError(err, audience, options);
    }
  }

  return {
    verify: (authorization, audience) => check(authorization, audience, false),
    authenticate: (authorization, audience) => check(authorization, audience, true),
    clearCache() {
      verified.clear();
      subjects.clear();
    },
  };
}
