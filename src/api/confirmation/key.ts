/**
 * The 256-bit key that seals confirmation state (docs/security.md#confirmation). From `CONFIRMATION_KEY`
 * (base64url) when set; otherwise generated once and reused after restarts — on PostgreSQL in
 * the `shared_secrets` table, so every replica seals with the same key, and embedded (SQLite)
 * into `${dataDir}/confirmation-key` (mode 0600). Sealing is state.ts's job.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Database } from '../../store/schema.js';
import { isPostgres } from '../../store/migrations/column-types.js';
import { clockDate, systemClock, type Clock } from '../../runtime/clock.js';

export const CONFIRMATION_KEY_FILE = 'confirmation-key';
/** Its row in `shared_secrets`. */
const CONFIRMATION_KEY_SECRET = 'confirmation-key';
const KEY_BYTES = 32;

function decodeKey(text: string, source: string): Uint8Array {
  const bytes = Buffer.from(text.trim(), 'base64url');
  if (bytes.length !== KEY_BYTES) throw new Error(`${source}: the confirmation key must be 32 bytes, base64url-encoded`);
  return new Uint8Array(bytes);
}

function isInMemory(dataDir: string): boolean {
  return dataDir === ':memory:' || path.basename(dataDir) === ':memory:';
}

/** Reads the key file, creating it first when absent; two processes racing both end up with the winner's key. */
async function readOrCreateKeyFile(file: string): Promise<Uint8Array> {
  try {
    return decodeKey(await fs.readFile(file, 'utf8'), file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await fs.mkdir(path.dirname(file), { recursive: true });
  // Written whole to a private temporary file, then hard-linked into place: `link` fails when the
  // key exists, so a racing process never overwrites a key (or reads one half written).
  const temporary = `${file}.${randomBytes(9).toString('hex')}.tmp`;
  await fs.writeFile(temporary, `${randomBytes(KEY_BYTES).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  try {
    await fs.link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await fs.rm(temporary, { force: true });
  }
  return decodeKey(await fs.readFile(file, 'utf8'), file);
}

/** Reads the shared row, inserting a fresh key first; replicas racing all read back the one that was stored. */
async function readOrCreateDatabaseKey(db: Kysely<Database>, clock: Clock): Promise<Uint8Array> {
  await db.insertInto('shared_secrets')
    .values({ name: CONFIRMATION_KEY_SECRET, value: randomBytes(KEY_BYTES).toString('base64url'), created_at: clockDate(clock).toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('shared_secrets').select('value').where('name', '=', CONFIRMATION_KEY_SECRET).executeTakeFirstOrThrow();
  return decodeKey(row.value, 'the shared_secrets table');
}

/**
 * `db`: the process's database; on PostgreSQL (replicas) the key lives there unless CONFIRMATION_KEY is set.
 * `clock`: the services' clock, for the stored row's `created_at`.
 */
export async function loadConfirmationKey(
  config: Pick<Config, 'confirmationKey' | 'dataDir'>, db?: Kysely<Database>, clock: Clock = systemClock,
): Promise<Uint8Array> {
  if (config.confirmationKey !== null) return decodeKey(config.confirmationKey, 'CONFIRMATION_KEY');
  if (db !== undefined && isPostgres(db as unknown as Kysely<unknown>)) return readOrCreateDatabaseKey(db, clock);
  // An in-memory database cannot be shared either, so a key that dies with the process is enough.
  if (isInMemory(config.dataDir)) return new Uint8Array(randomBytes(KEY_BYTES));
  return readOrCreateKeyFile(path.join(config.dataDir, CONFIRMATION_KEY_FILE));
}

/**
 * The key, loaded once and kept: what the confirmation sealing and the download links read
 * (src/mcp/tools/confirmation/sealing.ts, src/api/download-links.ts). A failed load is tried
 * again on the next read (e.g. the data folder became writable). `eager`: the load starts now
 * (start-up: the key file exists before the first question); its failure is reported on first read.
 */
export function createConfirmationKeyReader(
  config: Pick<Config, 'confirmationKey' | 'dataDir'>, db?: Kysely<Database>, clock: Clock = systemClock, options: { readonly eager?: boolean } = {},
): () => Promise<Uint8Array> {
  let key: Promise<Uint8Array> | undefined;
  const read = (): Promise<Uint8Array> => {
    if (key === undefined) {
      const loading = loadConfirmationKey(config, db, clock);
      key = loading;
      loading.catch(() => { if (key === loading) key = undefined; });
    }
    return key;
  };
  if (options.eager === true) read().catch(() => undefined);
  return read;
}
