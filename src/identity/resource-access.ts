/**
 * What touching a resource needs (docs/security.md#resources-touched): the permission and scopes of
 * one entry of an operation's `x-kobana-touches` (openapi/README.md), derived from the permission
 * catalogue and the scope grammar. The generator resolves every declaration with these functions
 * and writes the result into `OperationRef.changes` / `.shows`, so the runtime never derives it.
 *
 * - changing under a permission `<kind>.<action>` needs that permission, `finance.<kind>.write`,
 *   and `finance.money.write` when the permission moves money (MONEY_PERMISSIONS);
 * - showing records of `<kind>` needs `<kind>.view` and `finance.<kind>`.
 */
import type { ResourceAccess } from '../runtime/types.js';
import { ALL_PERMISSIONS, MONEY_PERMISSIONS } from './permissions.js';
import { ALL_SCOPES, MONEY_WRITE_SCOPE } from './scopes.js';

const PERMISSIONS: ReadonlySet<string> = new Set(ALL_PERMISSIONS);
const SCOPES: ReadonlySet<string> = new Set(ALL_SCOPES);

/** The kind a permission governs: `payables.settle` → `payables`. */
export function permissionKind(permission: string): string {
  const dot = permission.lastIndexOf('.');
  return dot < 0 ? permission : permission.slice(0, dot);
}

/** The kinds named by the catalogue (every prefix of a permission), sorted. */
export const RESOURCE_KINDS: readonly string[] = [...new Set(ALL_PERMISSIONS.map(permissionKind))].sort();

function checkScopes(scopes: readonly string[]): string | null {
  const unknown = scopes.find((scope) => !SCOPES.has(scope));
  return unknown === undefined ? null : `needs the scope ${unknown}, which the scope grammar does not define`;
}

/** A `changes` entry (a permission of the catalogue) → what it needs; a string says why it is invalid. */
export function resolveChange(permission: string): ResourceAccess | string {
  if (!PERMISSIONS.has(permission)) return `${permission} is not a permission of the catalogue (src/identity/permissions.ts)`;
  const kind = permissionKind(permission);
  const scopes = [`finance.${kind}.write`, ...(MONEY_PERMISSIONS.includes(permission) ? [MONEY_WRITE_SCOPE] : [])];
  return checkScopes(scopes) ?? { kind, permission, scopes };
}

/** A `shows` entry (a kind) → what reading its records needs; a string says why it is invalid. */
export function resolveShow(kind: string): ResourceAccess | string {
  const permission = `${kind}.view`;
  if (!PERMISSIONS.has(permission)) return `${kind} has no ${permission} permission in the catalogue (src/identity/permissions.ts)`;
  const scopes = [`finance.${kind}`];
  return checkScopes(scopes) ?? { kind, permission, scopes };
}
