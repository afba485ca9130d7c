/**
 * Authorization checks shared by REST and MCP (docs/security.md (resolving the workspace, check order)): membership, scope,
 * permission (the operation's and those of the resources it changes), the kinds of records a
 * caller may not be shown (docs/security.md#resources-touched), and workspace resolution. Each failure throws the exact `ApiError` code of the
 * catalogue with its `details`; the order of the checks is `OperationService`'s business.
 */
import type { Kysely } from 'kysely';
import { ApiError } from './errors.js';
import type { Caller } from '../identity/caller.js';
import type { WorkspaceHint } from './service.js';
import { requiredAccess } from '../runtime/required-access.js';
import type { OperationRef, ResourceAccess } from '../runtime/types.js';
import type { Database } from '../store/schema.js';
import { findMissingScopes, isExplicitOnlyScope, isWriteScope } from '../identity/scopes.js';
import { resolveShow } from '../identity/resource-access.js';
import { NO_PERMISSION } from '../identity/permissions.js';

/** The caller must be an active member of the token's organization. */
export function assertMembership(caller: Caller): void {
  if (caller.membership === null || caller.membership.status !== 'active') {
    throw new ApiError('membership_inactive', 'The person is not an active member of the organization.');
  }
}

/** Whether the token grants every scope of one resource the operation touches. */
function grantsAccessScopes(caller: Caller, access: ResourceAccess): boolean {
  return findMissingScopes(caller.scopes, access.scopes).length === 0;
}

/** What a required resource is to the operation, for the refusal's message. */
function describeAccess(op: OperationRef, access: ResourceAccess): string {
  return op.changes.includes(access) ? `change the ${access.kind} this operation changes` : `read the ${access.kind} this operation's request names`;
}

/**
 * Every scope of the operation's security requirement must be granted by the token, and every
 * scope of each resource it requires (requiredAccess, docs/security.md#resources-touched).
 */
export function assertScope(caller: Caller, op: OperationRef): void {
  const granted = [...caller.scopes].sort();
  const missing = findMissingScopes(caller.scopes, op.scopes);
  if (missing.length > 0) {
    throw new ApiError('insufficient_scope', `The token scope does not reach this operation.${howToGet(caller, missing)}`, { required: op.scopes.length > 0 ? [...op.scopes] : missing, granted });
  }
  const change = requiredAccess(op).find((access) => !grantsAccessScopes(caller, access));
  if (change === undefined) return;
  const message = `The token scope does not reach what it needs to ${describeAccess(op, change)}.${howToGet(caller, findMissingScopes(caller.scopes, change.scopes))}`;
  throw new ApiError('insufficient_scope', message, { required: [...change.scopes], granted, resource: change.kind });
}

/**
 * How to get a missing write scope (docs/security.md#oauth-login): an OAuth connection gets it by
 * reconnecting and ticking "Also allow these changes" on the consent page; any caller by a
 * personal token that carries it (the only way to the Seguridad scopes). Nothing for a missing read scope.
 */
function howToGet(caller: Caller, missing: readonly string[]): string {
  const writes = missing.filter(isWriteScope);
  if (writes.length === 0) return '';
  const personal = 'a personal token with that scope (npm run token -- --scope ...)';
  return caller.tokenType === 'oauth' && writes.every((s) => !isExplicitOnlyScope(s))
    ? ` To make changes, reconnect (sign in again) and tick "Also allow these changes" on the consent page, or use ${personal}.`
    : ` To make changes, use ${personal}.`;
}

/** Whether the membership holds a panel permission (admins hold them all; `none` is held by every member). */
export function holdsPermission(caller: Caller, permission: string): boolean {
  const membership = caller.membership;
  if (membership === null) return false;
  return membership.isAdmin || permission === NO_PERMISSION || membership.permissions.has(permission);
}

/** The person must hold the operation's panel permission (`x-kobana-permission`) and that of each resource it requires (requiredAccess). */
export function assertPermission(caller: Caller, op: OperationRef): void {
  if (!holdsPermission(caller, op.permission)) {
    throw new ApiError('insufficient_permission', 'The person lacks the permission this operation needs; an organization admin must grant it.', {
      permission: op.permission,
    });
  }
  const change = requiredAccess(op).find((access) => !holdsPermission(caller, access.permission));
  if (change === undefined) return;
  throw new ApiError('insufficient_permission', `The person lacks the permission to ${describeAccess(op, change)}; an organization admin must grant it.`, {
    permission: change.permission, resource: change.kind,
  });
}

/** assertPermission as a yes or no: the operation's panel permission and those of the resources it requires. */
export function holdsPermissionsFor(caller: Caller, op: OperationRef): boolean {
  return holdsPermission(caller, op.permission) && requiredAccess(op).every((access) => holdsPermission(caller, access.permission));
}

/** Membership, scope and permission (the operation's and its required resources') without touching the database (filters `tools/list`). */
export function canReach(caller: Caller, op: OperationRef): boolean {
  const membership = caller.membership;
  if (membership === null || membership.status !== 'active') return false;
  if (findMissingScopes(caller.scopes, op.scopes).length > 0 || !holdsPermission(caller, op.permission)) return false;
  return requiredAccess(op).every((access) => grantsAccessScopes(caller, access) && holdsPermission(caller, access.permission));
}

/**
 * The kinds of `OperationRef.shows` the caller may not read (a permission or a scope missing),
 * sorted: their records are left out of the result and named in `meta.omitted`.
 */
export function findOmittedKinds(caller: Caller, op: OperationRef): ReadonlySet<string> {
  const omitted = op.shows.filter((access) => !grantsAccessScopes(caller, access) || !holdsPermission(caller, access.permission));
  return new Set(omitted.map((access) => access.kind).sort());
}

/**
 * Whether the caller may read records of `kind` (`people`): its `<kind>.view` permission and
 * `finance.<kind>` scope, as a `shows` entry needs (docs/security.md#resources-touched). Used where
 * records of other kinds are named outside an operation's result (confirmation sentences).
 */
export function mayRead(caller: Caller, kind: string): boolean {
  const access = resolveShow(kind);
  return typeof access !== 'string' && grantsAccessScopes(caller, access) && holdsPermission(caller, access.permission);
}

/**
 * The one answer for a named workspace the caller cannot use — nonexistent, malformed, of another
 * organization or not granted alike — so an answer never tells which (ids cannot be probed).
 */
export function workspaceAccessDenied(workspaceId: string): ApiError {
  return new ApiError('workspace_access_denied', 'The workspace does not exist or is not reachable by this person.', { workspace_id: workspaceId });
}

/** What `workspace_required` tells the caller to do, in the words of its channel. */
const WORKSPACE_REQUIRED = {
  mcp: 'Choose a workspace: call finance_workspaces_list and pass workspace_id.',
  api: 'Choose a workspace: send the X-Workspace-Id header (or the workspace_id query parameter) with an id from details.workspaces or GET /v1/workspaces.',
} as const;

/**
 * Resolves the workspace of a call (docs/security.md#resolving-the-workspace): argument → connection default → the only
 * workspace the person reaches → `workspace_required` with the choices. A named workspace must
 * exist, belong to the caller's organization and be granted, else `workspace_access_denied`.
 */
export async function resolveWorkspace(db: Kysely<Database>, caller: Caller, hint: WorkspaceHint): Promise<string> {
  assertMembership(caller);
  const granted = caller.membership?.workspaceIds ?? [];
  const named = hint.argument ?? hint.connectionDefault;
  if (named !== undefined && named !== '') {
    // `workspaceIds` holds only existing workspaces of the caller's organization (loadCaller
    // read them, or checked the identity version this request), so the list is the whole check.
    if (!granted.includes(named)) throw workspaceAccessDenied(named);
    return named;
  }
  // The only workspace granted needs no query (the names are read only to list the choices).
  if (granted.length === 1 && granted[0] !== undefined) return granted[0];
  const reachable = await listReachableWorkspaces(db, caller);
  if (reachable.length === 1 && reachable[0] !== undefined) return reachable[0].id;
  throw new ApiError('workspace_required', WORKSPACE_REQUIRED[caller.channel === 'mcp' ? 'mcp' : 'api'], { workspaces: reachable });
}

/** A workspace of `reachable` named by id, else by name (case-insensitive); undefined when none. */
export function findReachableWorkspace<W extends { id: string; name: string }>(reachable: readonly W[], value: string): W | undefined {
  const trimmed = value.trim();
  const lowered = trimmed.toLowerCase();
  return reachable.find((w) => w.id === trimmed) ?? reachable.find((w) => w.name.toLowerCase() === lowered);
}

/** The workspaces of the caller's organization granted to the caller, by name. */
export async function listReachableWorkspaces(db: Kysely<Database>, caller: Caller): Promise<{ id: string; name: string }[]> {
  const granted = caller.membership?.workspaceIds ?? [];
  if (granted.length === 0) return [];
  return db.selectFrom('workspaces').select(['id', 'name'])
    .where('organization_id', '=', caller.organizationId)
    .where('id', 'in', [...granted])
    .orderBy('name').orderBy('id')
    .execute();
}
