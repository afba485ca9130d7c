/**
 * The embedded Account's ES256 signing key, and where it lives. Embedded (SQLite): created in
 * `${dataDir}/account-key.json` on first start (private JWK with its `kid`). With DATABASE_URL:
 * in the `account_keys` table, so every replica signs with the same key and verifies the keys
 * the others hold; a data folder's `account-key.json` is imported once into an empty table.
 * Loaded on every start and by `npm run token`. Signing tokens is `mint.ts`'s job; verifying
 * them is `verify.ts`'s.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK, type JSONWebKeySet } from 'jose';
import type { Config } from '../config.js';
import type { Database } from '../store/schema.js';
import { createCachedKeySource, createLocalKeySource, type KeyResolver } from './key-source.js';
import { clockDate, systemClock, type Clock } from '../runtime/clock.js';

export const SIGNING_ALG = 'ES256';

export interface AccountKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** The public half, as served in the JWKS. */
  readonly publicJwk: JWK;
  /** The private JWK as stored; the embedded OAuth server (src/oauth) signs its access tokens with it. */
  readonly privateJwk: JWK;
}

/** The keys of the embedded Account in one process: one to sign with, all of them to verify with. */
export interface EmbeddedAccountKeys {
  readonly signingKey: AccountKey;
  readonly keys: KeyResolver;
  /** The JWKS served at `/.well-known/jwks.json` (public halves only). */
  jwks(): Promise<JSONWebKeySet>;
}

export interface EmbeddedAccountKeysOptions {
  /** Minimum interval between two database reads triggered by an unknown `kid` (replicas). */
  readonly reloadCooldownMs?: number;
  /** Age after which the database's key set is read again (picks up retired and new keys). */
  readonly maxAgeMs?: number;
  readonly onReloadError?: () => void;
  /** The services' clock: the reload cooldown and maximum age, and a new key's `created_at`. */
  readonly clock?: Clock;
}

type KeyStoreConfig = Pick<Config, 'dataDir' | 'databaseUrl'>;

const RELOAD_COOLDOWN_MS = 5_000;
const RELOAD_MAX_AGE_MS = 5 * 60_000;

function resolveKeyFile(dataDir: string): string | null {
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

function isSigningJwk(jwk: JWK): boolean {
  return jwk.kty === 'EC' && jwk.crv === 'P-256' && typeof jwk.d === 'string' && typeof jwk.kid === 'string';
}

/** Parses a stored private JWK; the error never quotes the text (it is key material). */
function parseJwk(text: string, source: string): JWK {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`The embedded Account key in ${source} is not valid JSON.`);
  }
  if (typeof value !== 'object' || value === null || !isSigningJwk(value as JWK)) {
    throw new Error(`The embedded Account key in ${source} is not an ES256 private key.`);
  }
  return value as JWK;
}

async function readKeyFile(file: string): Promise<JWK | null> {
  try {
    return parseJwk(await fs.readFile(file, 'utf8'), 'the key file');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function readOrCreateJwk(file: string): Promise<JWK> {
  const existing = await readKeyFile(file);
  if (existing !== null) return existing;
  const jwk = await createKeyJwk();
  await fs.mkdir(path.dirname(file), { recursive: true });
  // The key is written whole under a name of this process's own, then linked to the real name:
  // the link appears complete or not at all (a reader never sees a half-written file), and it
  // fails if the name exists, so when the server and `npm run token` start together the first
  // link wins and everyone reads that key.
  const draft = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await fs.writeFile(draft, `${JSON.stringify(jwk, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
    await fs.link(draft, file);
    return jwk;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return parseJwk(await fs.readFile(file, 'utf8'), 'the key file');
  } finally {
    await fs.rm(draft, { force: true });
  }
}

async function toAccountKey(jwk: JWK): Promise<AccountKey> {
  const privateKey = (await importJWK(jwk, SIGNING_ALG)) as CryptoKey;
  return { kid: jwk.kid as string, privateKey, publicJwk: toPublicJwk(jwk), privateJwk: jwk };
}

/** Loads (or creates) the data folder's signing key; `:memory:` data dirs get a key that lives in memory only. */
export async function loadAccountKey(dataDir: string): Promise<AccountKey> {
  const file = resolveKeyFile(dataDir);
  return toAccountKey(file === null ? await createKeyJwk() : await readOrCreateJwk(file));
}

async function readCurrentDatabaseJwk(db: Kysely<Database>): Promise<JWK | null> {
  const row = await db.selectFrom('account_keys').select('private_jwk').where('retired_at', 'is', null).executeTakeFirst();
  return row === undefined ? null : parseJwk(row.private_jwk, 'the account_keys table');
}

/**
 * The current key of the `account_keys` table, created on first start. Replicas starting at once
 * each insert a candidate; the partial unique index keeps one, and everyone reads that one back.
 */
export async function loadDatabaseAccountKey(db: Kysely<Database>, dataDir: string, clock: Clock = systemClock): Promise<AccountKey> {
  const current = await readCurrentDatabaseJwk(db);
  if (current !== null) return toAccountKey(current);
  const anyKey = await db.selectFrom('account_keys').select('kid').limit(1).executeTakeFirst();
  const file = resolveKeyFile(dataDir);
  // A data folder's key (the single-folder set-up) keeps its tokens valid: imported into an empty table only.
  const candidate = (anyKey === undefined && file !== null ? await readKeyFile(file) : null) ?? await createKeyJwk();
  await db.insertInto('account_keys')
    .values({ kid: candidate.kid as string, private_jwk: JSON.stringify(candidate), created_at: clockDate(clock).toISOString(), retired_at: null })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const winner = await readCurrentDatabaseJwk(db);
  if (winner === null) throw new Error('The embedded Account key could not be stored in the account_keys table.');
  return toAccountKey(winner);
}

/** Every key of the table (current and retired), public halves only; unreadable rows are left out. */
async function readDatabaseJwks(db: Kysely<Database>): Promise<JSONWebKeySet> {
  const rows = await db.selectFrom('account_keys').select('private_jwk').orderBy('created_at').orderBy('kid').execute();
  const keys: JWK[] = [];
  for (const row of rows) {
    try {
      keys.push(toPublicJwk(parseJwk(row.private_jwk, 'the account_keys table')));
    } catch {
      // A damaged row verifies nothing; the current key is checked at start-up.
    }
  }
  return { keys };
}

/** The signing key where this configuration keeps it: the data folder (SQLite) or the database (PostgreSQL). */
export function loadSigningKey(config: KeyStoreConfig, db: Kysely<Database>, clock: Clock = systemClock): Promise<AccountKey> {
  return config.databaseUrl === null ? loadAccountKey(config.dataDir) : loadDatabaseAccountKey(db, config.dataDir, clock);
}

export async function openEmbeddedAccountKeys(config: KeyStoreConfig, db: Kysely<Database>, options: EmbeddedAccountKeysOptions = {}): Promise<EmbeddedAccountKeys> {
  const clock = options.clock ?? systemClock;
  const signingKey = await loadSigningKey(config, db, clock);
  if (config.databaseUrl === null) {
    const jwks = buildJwks(signingKey);
    return { signingKey, keys: createLocalKeySource(jwks), jwks: async () => jwks };
  }
  const source = createCachedKeySource({
    load: () => readDatabaseJwks(db),
    initial: await readDatabaseJwks(db),
    cooldownMs: options.reloadCooldownMs ?? RELOAD_COOLDOWN_MS,
    maxAgeMs: options.maxAgeMs ?? RELOAD_MAX_AGE_MS,
    onFetch: (result) => { if (result === 'error') options.onReloadError?.(); },
    now: () => clock.now(),
  });
  return { signingKey, keys: source.resolve, jwks: async () => (await source.keySet()) ?? buildJwks(signingKey) };
}

export function buildJwks(key: AccountKey): JSONWebKeySet {
  return { keys: [key.publicJwk] };
}
