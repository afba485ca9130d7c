/**
 * The scope grammar of docs/security.md#scopes: which granted scopes satisfy an operation's required
 * scope. Pure functions; who calls them and what error follows is `authorize.ts`'s business.
 */

/** Resources that have read/write scopes (`finance.<res>`, `finance.<res>.write`). */
const SCOPE_RESOURCES = [
  'payables', 'receivables', 'transactions', 'accounts', 'categories', 'cost_centers', 'people',
  'companies', 'taxes', 'attachments', 'workspaces', 'activity', 'security',
  'cash_flow', 'reconciliations', 'rules', 'approvals',
] as const;

export const MONEY_WRITE_SCOPE = 'finance.money.write';
export const ALL_READ_SCOPE = 'finance.all';
export const ALL_WRITE_SCOPE = 'finance.all.write';


/** Every scope the server understands (personal tokens may carry any of them). */
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
 * Resources reachable only through their own scopes, never through `finance.all(.write)`: the
 * Seguridad settings decide what agents may do, so an "everything" token handed to an agent must
 * not let it unblock its own channel (docs/domain.md#resources: an agent must never unblock itself).
 */
const EXPLICIT_ONLY_RESOURCES: readonly (typeof SCOPE_RESOURCES)[number][] = ['security'];

/**
 * `finance.approvals.write` decides another person's approval request (maker-checker,
 * docs/security.md#money-controls): a person's decision with a personal token, never an
 * agent's, so it is explicit-only like Seguridad. Reading the requests (`finance.approvals`) is
 * an ordinary read scope: agents list and read them.
 */
export const APPROVALS_WRITE_SCOPE = 'finance.approvals.write';

const EXPLICIT_ONLY_SCOPES: ReadonlySet<string> = new Set([
  ...EXPLICIT_ONLY_RESOURCES.flatMap((r) => [`finance.${r}`, `finance.${r}.write`]),
  APPROVALS_WRITE_SCOPE,
]);

/** Whether a scope can only be granted by naming it (or, for reads, its `.write`). */
export function isExplicitOnlyScope(scope: string): boolean {
  return EXPLICIT_ONLY_SCOPES.has(scope);
}

/**
 * The scopes an OAuth grant may carry and clients are offered (RFC 9728 `scopes_supported`, the
 * authorization server's scopes): every scope but the explicit-only ones. Seguridad and deciding
 * an approval request stay a person's decision, with a personal token (docs/security.md#oauth-login):
 * an agent's connector can never obtain them, however the consent page is answered.
 */
export const OAUTH_SCOPES: readonly string[] = ALL_SCOPES.filter((s) => !isExplicitOnlyScope(s));

/** The read scopes an OAuth grant may carry. */
export const READ_SCOPES: readonly string[] = OAUTH_SCOPES.filter((s) => !isWriteScope(s));

/**
 * The scopes offered in the `scope="…"` of a 401 challenge, which clients (the MCP SDKs) ask for
 * as they are: everything an OAuth grant may carry, reads and writes. The consent page still
 * grants the writes only when the person ticks "Also allow these changes"
 * (docs/security.md#oauth-login).
 */
export const CHALLENGE_SCOPES: readonly string[] = [ALL_READ_SCOPE, ALL_WRITE_SCOPE];

/**
 * Whether the granted set satisfies one required scope:
 * - `finance.money.write` only by itself or `finance.all.write`;
 * - `finance.<res>.write` by itself or `finance.all.write`;
 * - `finance.<res>` (read) by itself, `finance.<res>.write`, `finance.all` or `finance.all.write`;
 * - except the explicit-only scopes (`finance.security`, `finance.security.write`,
 *   `finance.approvals.write`), which `finance.all` and `finance.all.write` never reach:
 *   `finance.security.write` and `finance.approvals.write` by themselves only, `finance.security`
 *   by itself or `finance.security.write` (`finance.approvals` is an ordinary read scope).
 */
export function grantsScope(granted: ReadonlySet<string>, required: string): boolean {
  if (granted.has(required)) return true;
  const reachedByAll = !isExplicitOnlyScope(required);
  if (isWriteScope(required)) return reachedByAll && granted.has(ALL_WRITE_SCOPE);
  if (granted.has(`${required}.write`)) return true;
  return reachedByAll && (granted.has(ALL_READ_SCOPE) || granted.has(ALL_WRITE_SCOPE));
}

const KNOWN_SCOPES: ReadonlySet<string> = new Set(ALL_SCOPES);

/**
 * What an operation that names no scope (`security: [{oauth2: []}]`: `workspaces.list`,
 * openapi/README.md) still requires: any scope of the grammar, so a token must carry some
 * `finance.*` scope. Reported as missing under this name.
 */
const ANY_SCOPE = 'finance.*';

/** The required scopes the granted set does not satisfy (empty → reachable); no required scope → any `finance.*` one. */
export function findMissingScopes(granted: ReadonlySet<string>, required: readonly string[]): string[] {
  if (required.length === 0) return [...granted].some((scope) => KNOWN_SCOPES.has(scope)) ? [] : [ANY_SCOPE];
  return required.filter((scope) => !grantsScope(granted, scope));
}
