/**
 * The digest that binds a confirmation to the exact arguments of a call: SHA-256 (base64url)
 * of the canonical JSON (object keys sorted recursively, arrays in order, nothing excluded).
 * What the arguments mean is the channel's business (MCP: src/mcp/tools/input.ts), not this file's.
 */
import { createHash } from 'node:crypto';

/** JSON text with object keys sorted at every depth, so `{a,b}` and `{b,a}` digest alike. */
export function canonicalizeJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    // JSON.stringify(undefined) is undefined; arguments arrive parsed from JSON, so treat it as null.
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map(canonicalizeJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record).sort()
    .filter((key) => record[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalizeJson(record[key])}`);
  return `{${entries.join(',')}}`;
}

export function digestArguments(args: Readonly<Record<string, unknown>>): string {
  return createHash('sha256').update(canonicalizeJson(args), 'utf8').digest('base64url');
}
