/**
 * The embedded Account's ES256 signing key: created in `${dataDir}/account-key.json` on first
 * start (private JWK with its `kid`), loaded on every later start and by `npm run token`.
 * Signing tokens is `mint.ts`'s job; verifying them is `verify.ts`'s.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK, type JSONWebKeySet } from 'jose';

export const SIGNING_ALG = 'ES256';

export interface AccountKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** The public half, as served in the JWKS. */
  readonly publicJwk: JWK;
}

export function resolveKeyFile(dataDir: string): string | null {
  return path.basename(dataDir) === ':memory:' ? null : path.join(dataDir, 'account-key.json');
}

async function createKeyJwk(): Promise<JWK> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { ...jwk, kid, alg: SIGNING_ALG, use: 'sig' };
}

function toPublicJwk(jwk: JWK): JWK {
  const { kty, crv, x, y, kid, alg, use } = jwk;
  return { kty, crv, x, y, kid, alg, use };
}

async function readOrCreateJwk(file: string): Promise<JWK> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as JWK;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const jwk = await createKeyJwk();
  await fs.mkdir(path.dirname(file), { recursive: true });
  try {
    // 'wx': when the server and `npm run token` start together, the first writer wins.
    await fs.writeFile(file, `${JSON.stringify(jwk, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
    return jwk;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return JSON.parse(await fs.readFile(file, 'utf8')) as JWK;
  }
}

/** Loads (or creates) the signing key; `:memory:` data dirs get a key that lives in memory only. */
export async function loadAccountKey(dataDir: string): Promise<AccountKey> {
  const file = resolveKeyFile(dataDir);
  const jwk = file === null ? await createKeyJwk() : await readOrCreateJwk(file);
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || typeof jwk.d !== 'string' || typeof jwk.kid !== 'string') {
    throw new Error('The embedded Account key file is not an ES256 private key.');
  }
  const privateKey = (await importJWK(jwk, SIGNING_ALG)) as CryptoKey;
  return { kid: jwk.kid, privateKey, publicJwk: toPublicJwk(jwk) };
}

export function buildJwks(key: AccountKey): JSONWebKeySet {
  return { keys: [key.publicJwk] };
}
