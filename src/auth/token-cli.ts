/**
 * `npm run token -- --person <email> [--scope "..."] [--type personal|oauth] [--aud mcp|api] [--ttl 1h]`:
 * prints a token from the embedded Account for a seeded person — only the token, on stdout.
 * Reads the environment as the server does (`PORT`/`PUBLIC_URL` → issuer and audiences; a
 * relative `DATA_DIR` from the project folder, so any working folder gives the same store), and
 * the same store: DATA_DIR, or with DATABASE_URL the database, whose key the replicas share
 * (migrating and seeding a fresh database first).
 *
 * It refuses what the server would refuse anyway, with a message instead of a token that fails
 * later: unknown scopes, a person without an active membership, a lifetime above
 * TOKEN_MAX_LIFETIME_SECONDS.
 */
import type { Kysely } from 'kysely';
import { loadConfig } from '../config.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { openDatabase } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import type { Database } from '../store/schema.js';
import { seedDemoData } from '../seed/index.js';
import { loadSigningKey } from './account-key.js';
import { buildAudiences } from './audiences.js';
import { createMinter, DEFAULT_TTL_SECONDS, MintError } from './mint.js';
import { checkTtl, parseArgs } from './token-args.js';
import { systemClock } from '../runtime/clock.js';

/**
 * The server answers `membership_inactive` to every call of a person whose memberships are all
 * inactive (carla@demo.test), so no token is minted for them. The minter itself stays permissive:
 * tests mint such tokens to prove that refusal.
 */
async function checkActivePerson(db: Kysely<Database>, email: string): Promise<void> {
  const rows = await db.selectFrom('persons')
    .innerJoin('memberships', 'memberships.person_id', 'persons.id')
    .select('memberships.status')
    .where('persons.email', '=', email.toLowerCase())
    .where('persons.deleted_at', 'is', null)
    .execute();
  if (rows.length > 0 && rows.every((row) => row.status !== 'active')) {
    throw new MintError('That person\'s membership is inactive: the server refuses every call they make, so no token was minted.');
  }
}

async function runTokenCommand(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const config = loadConfig(process.env, PACKAGE_ROOT);
  if (config.accountIssuer !== null) throw new MintError('ACCOUNT_ISSUER is set: tokens come from the external Account.');
  checkTtl(options.ttlSeconds ?? DEFAULT_TTL_SECONDS, config.tokenMaxLifetimeSeconds);
  const store = await openDatabase(config);
  try {
    await migrateToLatest(store.db);
    if (config.seedDemoData) await seedDemoData(store.db);
    await checkActivePerson(store.db, options.person);
    const key = await loadSigningKey(config, store.db);
    const minter = createMinter(store.db, key, config.publicUrl, buildAudiences(config.publicUrl), config.tokenMaxLifetimeSeconds, systemClock);
    process.stdout.write(`${await minter.mintToken(options)}\n`);
  } finally {
    await store.close();
  }
}

runTokenCommand().catch((err: unknown) => {
  const known = err instanceof MintError || (err instanceof Error && err.name === 'ConfigError');
  process.stderr.write(`${known ? (err as Error).message : `token: ${err instanceof Error ? err.message : String(err)}`}\n`);
  process.exitCode = 1;
});
