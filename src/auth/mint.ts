/**
 * Minting tokens with the embedded Account's key (the `npm run token` command and tests):
 * looks the person up by email, signs an ES256 JWT with the claims `verify.ts` expects.
 * OAuth tokens carry read scopes only (docs/security.md#identity-and-tokens).
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { TokenType } from '../identity/caller.js';
import type { Audience } from './types.js';
import { SIGNING_ALG, type AccountKey } from './account-key.js';
import { isWriteScope, parseScopes, isExplicitOnlyScope } from '../identity/scopes.js';
import type { Clock } from '../runtime/clock.js';

export interface MintTokenOptions {
  /** The person's email. */
  readonly person: string;
  /** Space-separated scopes; default `finance.all` (read everything). */
  readonly scope?: string;
  readonly type?: TokenType;
  readonly aud?: Audience;
  readonly ttlSeconds?: number;
}

const DEFAULT_SCOPE = 'finance.all';
export const DEFAULT_TTL_SECONDS = 3600;

export class MintError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MintError';
  }
}

export interface Minter {
  mintToken(options: MintTokenOptions): Promise<string>;
}

/**
 * `maxLifetimeSeconds` is the verifier's (TOKEN_MAX_LIFETIME_SECONDS): a longer token would be refused, so it is not minted.
 * `iat` and `exp` are read from `clock` (the services' clock, src/runtime/clock.ts).
 */
export function createMinter(
  db: Kysely<Database>, key: AccountKey, issuer: string, audiences: Readonly<Record<Audience, string>>, maxLifetimeSeconds: number, clock: Clock,
): Minter {
  return {
    async mintToken(options) {
      const type = options.type ?? 'personal';
      const scope = options.scope ?? DEFAULT_SCOPE;
      const ttl = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
      if (type === 'oauth' && [...parseScopes(scope)].some(isExplicitOnlyScope)) {
        throw new MintError('OAuth tokens never carry the Seguridad scopes nor finance.approvals.write; use --type personal.');
      }
      if (type === 'oauth' && [...parseScopes(scope)].some(isWriteScope)) {
        throw new MintError('OAuth tokens carry read scopes only; use --type personal for write scopes.');
      }
      if (!Number.isInteger(ttl) || ttl < 1) throw new MintError('The token lifetime must be a positive number of seconds.');
      if (ttl > maxLifetimeSeconds) {
        throw new MintError(`The token lifetime is above TOKEN_MAX_LIFETIME_SECONDS (${maxLifetimeSeconds} s); the server would refuse it.`);
      }
      const person = await db.selectFrom('persons').select(['id', 'deleted_at'])
        .where('email', '=', options.person.toLowerCase()).executeTakeFirst();
      if (person === undefined || person.deleted_at !== null) throw new MintError('No person with that email exists.');
      const membership = await db.selectFrom('memberships').select('organization_id')
        .where('person_id', '=', person.id).orderBy('created_at').orderBy('id').executeTakeFirst();
      if (membership === undefined) throw new MintError('That person is not a member of any organization.');
      const now = Math.floor(clock.now() / 1000);
      return new SignJWT({ org: membership.organization_id, scope, token_type: type })
        .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'at+jwt' })
        .setIssuer(issuer)
        .setSubject(person.id)
        .setAudience(audiences[options.aud ?? 'mcp'])
        .setJti(randomUUID())
        .setIssuedAt(now)
        .setExpirationTime(now + ttl)
        .sign(key.privateKey);
    },
  };
}
