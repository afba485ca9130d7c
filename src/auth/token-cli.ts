/**
 * `npm run token -- --person <email> [--scope "..."] [--type personal|oauth] [--aud mcp|api] [--ttl 1h]`:
 * prints a token from the embedded Account for a seeded person — only the token, on stdout.
 * Reads the same store as the server: DATA_DIR, or with DATABASE_URL the database, whose key the
 * replicas share (migrating and seeding a fresh database first).
 */
import { loadConfig } from '../config.js';
import { openDatabase } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { seedDemoData } from '../seed/index.js';
import { loadSigningKey } from './account-key.js';
import { buildAudiences } from './audiences.js';
import { createMinter, MintError } from './mint.js';
import { parseArgs } from './token-args.js';

async function runTokenCommand(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const config = loadConfig(process.env);
  if (config.accountIssuer !== null) throw new MintError('ACCOUNT_ISSUER is set: tokens come from the external Account.');
  const store = await openDatabase(config);
  try {
    await migrateToLatest(store.db);
    if (config.seedDemoData) await seedDemoData(store.db);
    const key = await loadSigningKey(config, store.db);
    const minter = createMinter(store.db, key, config.publicUrl, buildAudiences(config.publicUrl), config.tokenMaxLifetimeSeconds);
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
