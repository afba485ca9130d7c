/**
 * Hand-crafted tokens for negative tests: signed with the embedded Account's key (from the test
 * app's data dir) or any other key, with any claims and header. Happy-path tests use
 * `TestApp.mintToken` instead.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt, type CryptoKey, type JWTPayload } from 'jose';
import { loadSigningKey, type AccountKey } from '../../src/auth/account-key.js';
import type { TestApp } from './test-app.js';
import { DEMO } from '../../src/seed/ids.js';

export async function loadTestAppKey(app: TestApp): Promise<AccountKey> {
  return loadSigningKey(app.services.config, app.services.db, app.services.clock);
}

export interface CraftOptions {
  readonly key: CryptoKey;
  readonly kid?: string;
  readonly alg?: string;
  /** Claims merged over valid defaults; a value of `undefined` removes the claim. */
  readonly claims?: Record<string, unknown>;
}

/** Valid claims for ana at the app's MCP audience, one hour from now on the app's clock. */
export function buildDefaultClaims(app: TestApp, audience: 'mcp' | 'api' = 'mcp'): Record<string, unknown> {
  const now = Math.floor(app.services.clock.now() / 1000);
  return {
    iss: app.services.auth.issuer,
    aud: app.services.auth.audiences[audience],
    sub: DEMO.persons.ana,
    org: DEMO.organizationId,
    scope: 'finance.all',
    token_type: 'personal',
    jti: randomUUID(),
    iat: now,
    exp: now + 3600,
  };
}

export async function craftToken(base: Record<string, unknown>, options: CraftOptions): Promise<string> {
  const merged: Record<string, unknown> = { ...base, ...options.claims };
  const payload = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as JWTPayload;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: options.alg ?? 'ES256', ...(options.kid !== undefined ? { kid: options.kid } : {}) })
    .sign(options.key);
}

/** `alg: none`, no signature. */
export function craftUnsignedToken(claims: Record<string, unknown>): string {
  const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
}

export function readJti(token: string): string {
  const { jti } = decodeJwt(token);
  if (typeof jti !== 'string') throw new Error('token without jti');
  return jti;
}
