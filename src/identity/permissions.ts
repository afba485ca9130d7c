/**
 * The catalogue of panel permissions (docs/security.md#identity-and-tokens): what a membership can be granted.
 * Admins hold every one of them; checking a permission is `authorize.ts`'s job.
 */

const CRUD_RESOURCES = [
  'companies', 'accounts', 'categories', 'cost_centers', 'people', 'taxes',
  'payables', 'receivables', 'transactions', 'attachments',
] as const;

function listCrudPermissions(): string[] {
  return CRUD_RESOURCES.flatMap((res) => [`${res}.view`, `${res}.manage`, `${res}.delete`]);
}

/**
 * `x-kobana-permission: none` (openapi/README.md): the operation needs no panel permission, only
 * an active membership (`workspaces.list`: a person can always learn their own workspaces).
 */
export const NO_PERMISSION = 'none';

/**
 * Every permission, sorted for stable output. `approvals.view` reads the approval requests of
 * money moves (maker-checker, docs/security.md#money-controls); `approvals.approve` approves or
 * rejects another person's, with the move's own permission too.
 */
// hand-kept-ok: the permission catalogue; payables.settle, receivables.settle and approvals.approve are permissions named like their operations
export const ALL_PERMISSIONS: readonly string[] = [
  ...listCrudPermissions(),
  'payables.settle',
  'receivables.settle',
  'transactions.transfer',
  'security.view',
  'security.manage',
  'workspaces.view',
  'activity.view',
  'cash_flow.view',
  'reconciliations.view',
  'reconciliations.manage',
  'rules.view',
  'rules.manage',
  'approvals.view',
  'approvals.approve',
].sort();

/**
 * The permissions that move money (approving an approval request runs its move): a change under one of them also needs `finance.money.write`
 * (src/identity/resource-access.ts), as the operations granted by them do (openapi/README.md).
 */
// hand-kept-ok: permissions, not operations (three are named like the operations they govern)
export const MONEY_PERMISSIONS: readonly string[] = ['payables.settle', 'receivables.settle', 'transactions.transfer', 'approvals.approve'];

/** A membership's stored `permissions` (a JSON array of names); anything else reads as none. */
export function parseStoredPermissions(raw: string): string[] {
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}
