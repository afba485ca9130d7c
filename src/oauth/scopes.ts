/**
 * What the consent page grants (docs/security.md#oauth-login): the requested read scopes always,
 * the requested write scopes only when the person ticks "also allow changes", the Seguridad
 * scopes never (a person's decision, personal tokens only); and what a request
 * allows, grouped into a few plain lines (describeAccess). Pure functions over the scope grammar of src/identity/scopes.ts.
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
  if (resource === 'activity') return 'the activity log';
  if (resource === 'cash_flow') return 'the cash flow';
  if (resource === 'approvals') return 'approval requests';
  return resource.replace(/_/g, ' ');
}

/** "a", "a and b", "a, b and c". */
function joinWords(words: readonly string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1) as string}`;
}

/** The resources of the requested `finance.<res>` (or `finance.<res>.write`) scopes, in plain words. */
function labelsOf(scopes: readonly string[]): string[] {
  return scopes.flatMap((scope) => {
    const match = /^finance\.([a-z_]+?)(\.write)?$/.exec(scope);
    return match === null || match[1] === 'all' || match[1] === 'money' ? [] : [resourceLabel(match[1] as string)];
  });
}

/** What the consent page says a grant allows: one line of reads, at most two of changes (docs/security.md#oauth-login). */
export interface AccessLines {
  /** What "Approve" grants; null when no read scope is requested. */
  readonly reads: string | null;
  /** What "Also allow these changes" adds (at most two lines: records, then money); empty when no write scope is requested. */
  readonly writes: readonly string[];
}

/** The 17 read scopes of an OAuth grant (all but Seguridad) read as "all", like `finance.all`. */
const ALL_READS: readonly string[] = OAUTH_SCOPES.filter((s) => !isWriteScope(s) && s !== ALL_READ_SCOPE);

/**
 * The requested finance scopes grouped into a few lines that never contradict each other: the
 * reads in one line, the changes in at most two, and never a line of a scope the grant cannot
 * carry (the Seguridad ones are left to the page's own "never" line).
 */
export function describeAccess(requested: readonly string[]): AccessLines {
  const finance = requested.filter(isFinanceScope);
  const reads = finance.filter((s) => !isWriteScope(s));
  const writes = finance.filter(isWriteScope);
  const allReads = reads.includes(ALL_READ_SCOPE) || ALL_READS.every((s) => reads.includes(s));
  const readLine = reads.length === 0 ? null : allReads ? 'See all finance records and reports' : `See ${joinWords(labelsOf(reads))}`;
  if (writes.includes(ALL_WRITE_SCOPE)) return { reads: readLine, writes: ['Create, change, delete and pay all finance records, money included'] };
  const writeLines: string[] = [];
  const records = labelsOf(writes);
  if (records.length > 0) writeLines.push(`Create, change and delete ${joinWords(records)}`);
  if (writes.includes(MONEY_WRITE_SCOPE)) writeLines.push('Move money: settle and reopen titles, make transfers and reconciliations');
  return { reads: readLine, writes: writeLines };
}
