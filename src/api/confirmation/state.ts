/**
 * Seals and opens the `requestState` of a confirmation (docs/security.md#confirmation): JWE compact, `dir` +
 * A256GCM (encrypted and authenticated), binding tool, argument digest, person, organization,
 * workspace, target version, a 128-bit nonce and a 5-minute expiry. Whether the bound values
 * match the resend is checked by the caller; single use is nonce-store.ts's job.
 */
import { randomBytes } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';
import { isPlainObject } from '../../runtime/values.js';

export const CONFIRMATION_TTL_SECONDS = 5 * 60;

export interface ConfirmationClaims {
  readonly tool: string;
  readonly argsDigest: string;
  readonly personId: string;
  readonly organizationId: string;
  readonly workspaceId: string;
  /** The target record's version when asked; null when the call has no target (transfers). */
  readonly version: number | null;
  readonly nonce: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

/** Why a state was refused; never sent to the client (the wire answer is a generic -32602). */
export type StateFault = 'malformed' | 'expired';

export class InvalidConfirmationState extends Error {
  constructor(readonly fault: StateFault) {
    super(`invalid confirmation state (${fault})`);
    this.name = 'InvalidConfirmationState';
  }
}

export function createNonce(): string {
  return randomBytes(16).toString('base64url');
}

/** Short keys keep the token small; the payload is private to this file. */
interface WireClaims { t: string; a: string; p: string; o: string; w: string; v: number | null; n: string; exp: number }

export async function sealState(key: Uint8Array, claims: ConfirmationClaims): Promise<string> {
  const wire: WireClaims = {
    t: claims.tool, a: claims.argsDigest, p: claims.personId, o: claims.organizationId, w: claims.workspaceId,
    v: claims.version, n: claims.nonce, exp: claims.expiresAt,
  };
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(wire)))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: 'kobana-confirmation+jwe' })
    .encrypt(key);
}

function readWireClaims(value: unknown): WireClaims | null {
  if (!isPlainObject(value)) return null;
  const c = value as Record<string, unknown>;
  const strings = [c['t'], c['a'], c['p'], c['o'], c['w'], c['n']].every((s) => typeof s === 'string' && s !== '');
  const version = c['v'] === null || Number.isSafeInteger(c['v']);
  return strings && version && Number.isSafeInteger(c['exp']) ? (c as unknown as WireClaims) : null;
}

/** Decrypts and authenticates `token`; throws InvalidConfirmationState when tampered, foreign-keyed, malformed or expired. */
export async function openState(key: Uint8Array, token: unknown, nowSeconds: number): Promise<ConfirmationClaims> {
  if (typeof token !== 'string' || token.length === 0 || token.length > 4096) throw new InvalidConfirmationState('malformed');
  let payload: unknown;
  try {
    const { plaintext, protectedHeader } = await compactDecrypt(token, key, {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    if (protectedHeader.typ !== 'kobana-confirmation+jwe') throw new InvalidConfirmationState('malformed');
    payload = JSON.parse(new TextDecoder().decode(plaintext));
  } catch {
    // jose's errors say which check failed; the caller only needs to know the state is unusable.
    throw new InvalidConfirmationState('malformed');
  }
  const wire = readWireClaims(payload);
  if (wire === null) throw new InvalidConfirmationState('malformed');
  if (wire.exp <= nowSeconds) throw new InvalidConfirmationState('expired');
  return {
    tool: wire.t, argsDigest: wire.a, personId: wire.p, organizationId: wire.o, workspaceId: wire.w,
    version: wire.v, nonce: wire.n, expiresAt: wire.exp,
  };
}
