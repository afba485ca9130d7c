/**
 * The arguments of `npm run token` (`--person`, `--scope`, `--type`, `--aud`, `--ttl`), parsed
 * into mint options. Running the command is `token-cli.ts`'s job.
 */
import { MintError, type MintTokenOptions } from './mint.js';

export const USAGE = 'usage: npm run token -- --person <email> [--scope "<scopes>"] [--type personal|oauth] [--aud mcp|api] [--ttl 1h]';

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
