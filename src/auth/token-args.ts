/**
 * The arguments of `npm run token` (`--person`, `--scope`, `--type`, `--aud`, `--ttl`), parsed
 * into mint options, and the exact command line the start-up banner prints for a server's
 * settings. Running the command is `token-cli.ts`'s job.
 */
import path from 'node:path';
import type { Config } from '../config.js';
import { ALL_SCOPES, parseScopes } from '../identity/scopes.js';
import { MintError, type MintTokenOptions } from './mint.js';

const USAGE = 'usage: npm run token -- --person <email> [--scope "<scopes>"] [--type personal|oauth] [--aud mcp|api] [--ttl 1h]';

const KNOWN_SCOPES: ReadonlySet<string> = new Set(ALL_SCOPES);

/** `90`, `90s`, `30m`, `1h`, `7d` → seconds. */
export function parseTtl(raw: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(raw.trim());
  if (!match) throw new MintError('--ttl must look like 3600, 90s, 30m, 1h or 7d.');
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** `2592000` → `30d`, `5400` → `90m`: the largest unit that divides the lifetime exactly. */
export function formatTtl(seconds: number): string {
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60]] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

/**
 * A misspelt scope would mint a token that reaches nothing (an empty tools/list and no hint why),
 * so every scope must be one the server understands (docs/security.md#scopes).
 */
export function checkScopes(scope: string): void {
  const scopes = [...parseScopes(scope)];
  if (scopes.length === 0) throw new MintError(`--scope is empty. Scopes: ${ALL_SCOPES.join(' ')}`);
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.has(s));
  if (unknown.length > 0) {
    throw new MintError(`Unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((s) => `"${s}"`).join(', ')}. Scopes: ${ALL_SCOPES.join(' ')}`);
  }
}

/**
 * The server would refuse a token living longer than TOKEN_MAX_LIFETIME_SECONDS, so it is not
 * minted; the message names the limit in the unit `--ttl` takes.
 */
export function checkTtl(ttlSeconds: number, maxLifetimeSeconds: number): void {
  if (ttlSeconds < 1) throw new MintError('--ttl must be at least 1 second.');
  if (ttlSeconds > maxLifetimeSeconds) {
    throw new MintError(
      `--ttl ${formatTtl(ttlSeconds)} is longer than the server accepts: at most ${formatTtl(maxLifetimeSeconds)} ` +
        `(TOKEN_MAX_LIFETIME_SECONDS=${maxLifetimeSeconds}).`,
    );
  }
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
  if (scope !== undefined) checkScopes(scope);
  const ttl = values.get('ttl');
  return { person, type, aud, ...(scope !== undefined ? { scope } : {}), ttlSeconds: ttl === undefined ? 3600 : parseTtl(ttl) };
}

/** Single-quotes a value for a POSIX shell when it holds anything but safe characters. */
function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The `npm run token` command line that mints a token this server accepts: the settings the
 * token depends on (the issuer and audiences come from PUBLIC_URL, or PORT; the key from
 * DATA_DIR) are spelled out whenever they differ from the defaults the command would assume.
 */
export function tokenCommandFor(config: Pick<Config, 'port' | 'publicUrl' | 'dataDir'>, packageRoot: string): string {
  const env: string[] = [];
  if (config.publicUrl !== `http://localhost:${config.port}`) env.push(`PUBLIC_URL=${shellQuote(config.publicUrl)}`);
  else if (config.port !== 3000) env.push(`PORT=${config.port}`);
  if (path.resolve(config.dataDir) !== path.join(packageRoot, 'data')) env.push(`DATA_DIR=${shellQuote(config.dataDir)}`);
  return [...env, 'npm run -s token -- --person ana@demo.test --scope "finance.all.write"'].join(' ');
}
