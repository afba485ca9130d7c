/**
 * The `Origin` allowlist of `/mcp` (DNS-rebinding protection, MCP 2025-06-18 §security):
 * exact origins, or `scheme://host:*` where `*` stands for any port. No Origin is fine
 * (non-browser clients).
 */

function matchesPattern(origin: string, pattern: string): boolean {
  if (pattern === '*') return true;
  if (!pattern.endsWith(':*')) return origin === pattern;
  const base = pattern.slice(0, -2);
  if (origin === base) return true;
  return origin.startsWith(`${base}:`) && /^\d{1,5}$/.test(origin.slice(base.length + 1));
}

export function isOriginAllowed(origin: string | undefined, allowlist: readonly string[]): boolean {
  if (origin === undefined) return true;
  const normalized = origin.toLowerCase();
  return allowlist.some((pattern) => matchesPattern(normalized, pattern.toLowerCase()));
}
