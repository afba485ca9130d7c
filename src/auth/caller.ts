/**
 * loadCaller: the membership behind a verified identity — status, admin flag, panel
 * permissions (admins hold every one) and granted workspaces (admins reach every workspace of
 * the organization). Deciding what the caller may do is `authorize.ts`'s job.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Caller, Channel } from '../identity/caller.js';
import type { Identity } from './types.js';
import { ALL_PERMISSIONS } from '../identity/permissions.js';

function parsePermissions(raw: string): string[] {
  try {
    const value: unknown = JSON.parse(raw);
    return Array.isArray(value) ? value.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
}

async function listGrantedWorkspaceIds(db: Kysely<Database>, membershipId: string, organizationId: string, isAdmin: boolean): Promise<string[]> {
  if (isAdmin) {
    const rows = await db.selectFrom('workspaces').select('id').where('organization_id', '=', organizationId).orderBy('id').execute();
    return rows.map((r) => r.id);
  }
  const rows = await db.selectFrom('membership_workspaces as mw')
    .innerJoin('workspaces as w', 'w.id', 'mw.workspace_id')
    .select('w.id')
    .where('mw.membership_id', '=', membershipId)
    .where('w.organization_id', '=', organizationId)
    .orderBy('w.id')
    .execute();
  return rows.map((r) => r.id);
}

export async function loadCaller(db: Kysely<Database>, identity: Identity, channel: Channel): Promise<Caller> {
  const base = {
    personId: identity.personId,
    organizationId: identity.organizationId,
    scopes: identity.scopes,
    tokenType: identity.tokenType,
    channel,
  };
  const row = await db.selectFrom('memberships').select(['id', 'status', 'is_admin', 'permissions'])
    .where('organization_id', '=', identity.organizationId)
    .where('person_id', '=', identity.personId)
    .executeTakeFirst();
  if (row === undefined) return { ...base, membership: null };
  const isAdmin = row.is_admin === 1;
  const permissions = new Set(isAdmin ? ALL_PERMISSIONS : parsePermissions(row.permissions));
  const workspaceIds = await listGrantedWorkspaceIds(db, row.id, identity.organizationId, isAdmin);
  return {
    ...base,
    membership: { status: row.status === 'active' ? 'active' : 'inactive', isAdmin, permissions, workspaceIds },
  };
}
