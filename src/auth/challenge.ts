/**
 * The HTTP answers of a failed authentication (RFC 6750 §3, RFC 9728 §5.1): 401/400 with the
 * `WWW-Authenticate` challenge, 503 + Retry-After when the Account is unreachable. Builds
 * `HttpError`s only; each surface renders them.
 */
import { HttpError } from '../http/errors.js';
import type { Audience } from './types.js';
import { CHALLENGE_SCOPES } from '../identity/scopes.js';

/** Why a token was refused: the `reason` of the HttpError and the metric label. */
export type TokenFailureReason =
  | 'missing' | 'malformed' | 'too_large' | 'alg_not_allowed' | 'bad_signature' | 'expired' | 'not_yet_valid'
  | 'wrong_issuer' | 'wrong_audience' | 'unknown_kid' | 'invalid_claims' | 'revoked' | 'subject_deleted'
  | 'token_in_query' | 'issued_in_future' | 'lifetime_too_long' | 'ambiguous_audience';

export interface ChallengeUrls {
  /** `resource_metadata` per audience (RFC 9728 §5.1). */
  readonly resourceMetadata: Readonly<Record<Audience, string>>;
}

/** `Bearer resource_metadata="…", scope="…"[, error="…"]`. */
function formatChallenge(urls: ChallengeUrls, audience: Audience, error?: 'invalid_token' | 'invalid_request'): string {
  const parts = [`resource_metadata="${urls.resourceMetadata[audience]}"`, `scope="${CHALLENGE_SCOPES.join(' ')}"`];
  if (error) parts.push(`error="${error}"`);
  return `Bearer ${parts.join(', ')}`;
}

const MESSAGES: Record<TokenFailureReason, string> = {
  missing: 'Authentication is required: send Authorization: Bearer <token>.',
  malformed: 'The bearer token is malformed.',
  too_large: 'The bearer token is too large.',
  alg_not_allowed: 'The token is not signed with an accepted algorithm.',
  bad_signature: 'The token signature is not valid.',
  expired: 'The token has expired.',
  not_yet_valid: 'The token is not valid yet.',
  wrong_issuer: 'The token was not issued by the expected Account.',
  wrong_audience: 'The token was issued for another resource.',
  unknown_kid: 'The token is signed with an unknown key.',
  invalid_claims: 'The token lacks required claims.',
  revoked: 'The token has been revoked.',
  subject_deleted: 'The token subject no longer exists.',
  token_in_query: 'Tokens in the query string are not accepted; use the Authorization header.',
  issued_in_future: 'The token is issued in the future.',
  lifetime_too_long: 'The token lives longer than accepted.',
  ambiguous_audience: 'The token names more than one resource.',
};

export function buildAuthError(urls: ChallengeUrls, audience: Audience, reason: TokenFailureReason): HttpError {
  if (reason === 'token_in_query') {
    // RFC 6750 §3.1: a malformed request is invalid_request, answered with 400.
    return new HttpError(400, MESSAGES[reason], { 'WWW-Authenticate': formatChallenge(urls, audience, 'invalid_request') }, reason);
  }
  const error = reason === 'missing' ? undefined : 'invalid_token';
  return new HttpError(401, MESSAGES[reason], { 'WWW-Authenticate': formatChallenge(urls, audience, error) }, reason);
}

export function buildUnavailableError(retryAfterSeconds: number): HttpError {
  return new HttpError(503, 'The Account is unavailable; try again later.', { 'Retry-After': String(retryAfterSeconds) }, 'account_unavailable');
}
