/**
 * What the consent page grants (docs/security.md#oauth-login): the requested read scopes always,
 * the requested write scopes only when the person ticks "also allow changes", the Seguridad
 * scopes never (a person's decision, personal tokens only); and how each scope
 * reads in plain words. Pure functions over the scope grammar of src/identity/scopes.ts.
 */
import { ALL_READ_SCOPE, ALL_WRITE_SCOPE, MONEY_WRITE_SCOPE, OAUTH_SCOPES, isWriteScope } from '../identity/scopes.js';

/** The OpenID scopes a client may also ask for: `offline_access` (a refresh token) and `openid`. */
export const OIDC_SCOPES: readonly string[] = ['openid', 'offline_access'];

/** The finance scopes a grant may carry: never the Seguridad ones (src/identity/scopes.ts `OAUTH_SCOPES`). */
const FINANCE_SCOPES: ReadonlySet<string> = new Set(OAUTH_SCOPES);

export function isFinanceScope(scope: string): boolean {
  return FINANCE_SCOPES.has(scope);
}

/** The finance scopes the person grants: reads always, writes only with `approveWrites`; unknown and Seguridad scopes never. */
export function grantedScopes(requested: readonly string[], approveWrites: boolean): string[] {
  return requested.filter((s) => isFinanceScope(s) && (approveWrites || !isWriteScope(s)));
}

function resourceLabel(resource: string): string {
  if (resource === 'security') return 'the Seguridad settings';
  if (resource === 'activity') return 'the activity log';
  return resource.replace(/_/g, ' ');
}

/** One plain sentence per scope, for the consent page. */
export function describeScope(scope: string): string {
  if (scope === ALL_READ_SCOPE) return 'See all finance records (not the Seguridad settings)';
  if (scope === ALL_WRITE_SCOPE) return 'Create, change, delete and pay all finance records, money included (not the Seguridad settings)';
  if (scope === MONEY_WRITE_SCOPE) return 'Move money: settle and reopen titles, make transfers';
  const match = /^finance\.([a-z_]+)(\.write)?$/.exec(scope);
  if (match === null) return scope;
  const label = resourceLabel(match[1] as string);
  return match[2] ? `Create, change and delete ${label}` : `See ${label}`;
}
