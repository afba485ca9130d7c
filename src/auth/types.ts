/**
 * Identity as established by a verified bearer token, before any database lookup.
 * Produced by `auth/` only; everything after authentication reads this, never the token.
 */
import type { Identity } from '../identity/caller.js';

export type Audience = 'mcp' | 'api';

export type { Identity } from '../identity/caller.js';

export interface Authenticator {
  /**
   * Everything `authenticate` checks but the revocation list: the bearer reads the revocation
   * together with the caller's identity version (src/auth/caller.ts), in one statement per call.
   */
  verify(authorization: string | undefined, audience: Audience): Promise<Identity>;
  /**
   * Verifies `Authorization: Bearer …` for the given audience. Throws `HttpError` 401 (with the
   * RFC 6750/9728 challenge) for anything wrong with the token (an unknown key included), 503 +
   * Retry-After only while the Account cannot be reached and no key set was ever loaded.
   */
  authenticate(authorization: string | undefined, audience: Audience): Promise<Identity>;
}
