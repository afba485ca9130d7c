/**
 * `npm run token -- --person <email> [--scope "..."] [--type personal|oauth] [--aud mcp|api] [--ttl 1h]`:
 * prints a token from the embedded Account for a seeded person — only the token, on stdout.
 * Reads the same DATA_DIR as the server (migrating and seeding a fresh database first).
 */
import { loadConfig } from '../config.js';
import { openDatabase } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { seedDemoData } from '../store/seed/index.js';
import { loadAccountKey } from './account-key.js';
import { buildAudiences } from './index.js';
import { createMinter, MintError, type MintTokenOptions } from './mint.js';

const USAGE = 'usage: npm run token -- --person <email> [--scope "<scopes>"] [--type personal|oauth] [--aud mcp|api] [--ttl 1h]';

/** `90`, `90s`, `30m`, `1h`, `7d` → seconds. */
export function parseTtl(raw: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(raw.trim());
  if (!match) throw new MintError('--ttl must look like 3600, 90s, 30m, 1h or 7d.');
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

export function parseArgs(argv: readonly string[]): MintTokenOptions {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i] ?? '';
    const value = argv[i + 1];
    if (!['--person', '--scope', '--type', '--aud', '--ttl'].includes(flag) || value === undefined) throw new MintError(USAGE);
    values.set(flag.slice(2), value);
  }
  const person = values.get('person');
  if (!person) throw new MintError(USAGE);
  const type = values.get('type') ?? 'personal';
  const aud = values.get('aud') ?? 'mcp';
  if (type !== 'personal' && type !== 'oauth') throw new MintError('--type must be personal or oauth.');
  if (aud !== 'mcp' && aud !== 'api') throw new MintError('--aud must be mcp or api.');
  const scope = values.get('scope');
  const ttl = values.get('ttl');
  return { person, type, aud, ...(scope !== undefined ? { scope } : {}), ttlSeconds: ttl === undefined ? 3600 : parseTtl(ttl) };
}

async function runTokenCommand(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const config = loadConfig(process.env);
  if (config.accountIssuer !== null) throw new MintError('ACCOUNT_ISSUER is set: tokens come from the external Account.');
  const store = await openDatabase(config);
  try {
    await migrateToLatest(store.db);
    if (config.seedDemoData) await seedDemoData(store.db);
    const key = await loadAccountKey(config.dataDir);
    const minter = createMinter(store.db, key, config.publicUrl, buildAudiences(config.publicUrl));
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
