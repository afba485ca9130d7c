/**
 * The scope grammar of SECURITY.md §2: which granted scopes satisfy an operation's required
 * scope. Pure functions; who calls them and what error follows is `authorize.ts`'s business.
 */

/** Resources that have read/write scopes (`finance.<res>`, `finance.<res>.write`). */
export const SCOPE_RESOURCES = [
  'payables', 'receivables', 'transactions', 'accounts', 'categories', 'cost_centers', 'people',
  'companies', 'taxes', 'attachments', 'workspaces', 'activity', 'security',
] as const;

export const MONEY_WRITE_SCOPE = 'finance.money.write';
export const ALL_READ_SCOPE = 'finance.all';
export const ALL_WRITE_SCOPE = 'finance.all.write';

/** Every read scope, for the `scope="…"` of a 401 challenge. */
export const READ_SCOPES: readonly string[] = [ALL_READ_SCOPE, ...SCOPE_RESOURCES.map((r) => `finance.${r}`)];

/** Every scope the server understands (RFC 9728 `scopes_supported`). */
export const ALL_SCOPES: readonly string[] = [
  ALL_READ_SCOPE,
  ALL_WRITE_SCOPE,
  MONEY_WRITE_SCOPE,
  ...SCOPE_RESOURCES.flatMap((r) => [`finance.${r}`, `finance.${r}.write`]),
];

/** Parses a space-separated `scope` claim; empty entries are dropped. */
export function parseScopes(claim: string): Set<string> {
  return new Set(claim.split(' ').filter((s) => s.length > 0));
}

/** Whether a scope grants write access (anything ending in `.write`). */
export function isWriteScope(scope: string): boolean {
  return scope.endsWith('.write');
}

/**
 * Whether the granted set satisfies one required scope:
 * - `finance.all.write` satisfies everything;
 * - `finance.money.write` only by itself (or `finance.all.write`);
 * - `finance.<res>.write` by itself or `finance.all.write`;
 * - `finance.<res>` (read) by itself, `finance.<res>.write`, `finance.all` or `finance.all.write`.
 */
export function grantsScope(granted: ReadonlySet<string>, required: string): boolean {
  if (granted.has(ALL_WRITE_SCOPE) || granted.has(required)) return true;
  if (required === MONEY_WRITE_SCOPE) return false;
  if (isWriteScope(required)) return false;
  return granted.has(ALL_READ_SCOPE) || granted.has(`${required}.write`);
}

/** The required scopes the granted set does not satisfy (empty → reachable). */
export function findMissingScopes(granted: ReadonlySet<string>, required: readonly string[]): string[] {
  return required.filter((scope) => !grantsScope(granted, scope));
}
