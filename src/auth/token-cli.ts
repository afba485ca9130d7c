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
 *
 * `runTokenCommand(argv, env, output)` is the whole command, exit code included, so the tests run
 * its cases in-process; run as a script (`node dist/src/auth/token-cli.js`, what `npm run token`
 * runs), this module calls it with the process's arguments, environment and streams.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

/** Where the command writes: the token on `stdout`, a refusal on `stderr`. */
export interface TokenCommandOutput {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Mints the token `argv` asks for, reading the settings from `env` as the server does. */
async function mintFromArguments(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  const options = parseArgs([...argv]);
  const config = loadConfig(env, PACKAGE_ROOT);
  if (config.accountIssuer !== null) throw new MintError('ACCOUNT_ISSUER is set: tokens come from the external Account.');
  checkTtl(options.ttlSeconds ?? DEFAULT_TTL_SECONDS, config.tokenMaxLifetimeSeconds);
  const store = await openDatabase(config);
  try {
    await migrateToLatest(store.db);
    if (config.seedDemoData) await seedDemoData(store.db);
    await checkActivePerson(store.db, options.person);
    const key = await loadSigningKey(config, store.db);
    const minter = createMinter(store.db, key, config.publicUrl, buildAudiences(config.publicUrl), config.tokenMaxLifetimeSeconds, systemClock);
    return await minter.mintToken(options);
  } finally {
    await store.close();
  }
}

/** A refusal the person can act on prints as it is; anything else names the command. */
function refusalMessage(err: unknown): string {
  const known = err instanceof MintError || (err instanceof Error && err.name === 'ConfigError');
  if (known) return (err as Error).message;
  return `token: ${err instanceof Error ? err.message : String(err)}`;
}

/** The token command: prints the token and resolves 0, or prints why not and resolves 1. */
export async function runTokenCommand(argv: readonly string[], env: NodeJS.ProcessEnv, output: TokenCommandOutput): Promise<number> {
  try {
    output.stdout.write(`${await mintFromArguments(argv, env)}\n`);
    return 0;
  } catch (err) {
    output.stderr.write(`${refusalMessage(err)}\n`);
    return 1;
  }
}

/** Whether this module is the script node was started with (not a module a test imported). */
function isEntryPoint(): boolean {
  return process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
}

if (isEntryPoint()) {
  process.exitCode = await runTokenCommand(process.argv.slice(2), process.env, process);
}
