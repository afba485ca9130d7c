/**
 * The demo identity (docs/domain.md#demo-data): organization "Demo Ltda", workspaces "Matriz" and
 * "Filial", and three people — an admin, a reader of payables/receivables in Matriz who may also
 * settle payables (his agent asked for the demo's approval requests), and an inactive member. Finance records are `finance.ts`'s job.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { ALL_PERMISSIONS } from '../identity/permissions.js';
import * as ids from './ids.js';

interface DemoMember {
  membershipId: string;
  personId: string;
  email: string;
  name: string;
  status: 'active' | 'inactive';
  isAdmin: boolean;
  permissions: readonly string[];
  workspaceIds: readonly string[];
}

export const DEMO_MEMBERS: readonly DemoMember[] = [
  {
    membershipId: ids.ANA_MEMBERSHIP_ID, personId: ids.ANA_PERSON_ID, email: 'ana@demo.test', name: 'Ana Souza',
    status: 'active', isAdmin: true, permissions: ALL_PERMISSIONS,
    workspaceIds: [ids.MATRIZ_WORKSPACE_ID, ids.FILIAL_WORKSPACE_ID],
  },
  {
    membershipId: ids.BRUNO_MEMBERSHIP_ID, personId: ids.BRUNO_PERSON_ID, email: 'bruno@demo.test', name: 'Bruno Lima',
    // payables.settle: his agent asked for the demo's pending approval requests (approvals.ts), which run as his when approved.
    status: 'active', isAdmin: false, permissions: ['payables.view', 'payables.settle', 'receivables.view'],
    workspaceIds: [ids.MATRIZ_WORKSPACE_ID],
  },
  {
    membershipId: ids.CARLA_MEMBERSHIP_ID, personId: ids.CARLA_PERSON_ID, email: 'carla@demo.test', name: 'Carla Dias',
    status: 'inactive', isAdmin: false, permissions: ['payables.view', 'receivables.view'],
    workspaceIds: [ids.MATRIZ_WORKSPACE_ID],
  },
];

/** Whether the demo organization is already there (the seed's idempotency marker). */
export async function hasDemoIdentity(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom('organizations').select('id').where('id', '=', ids.DEMO_ORG_ID).executeTakeFirst();
  return row !== undefined;
}

/** `now`: the instant of the seed (ISO 8601), every row's `created_at`. */
export async function seedIdentity(db: Kysely<Database>, now: string): Promise<void> {
  await db.insertInto('organizations').values({ id: ids.DEMO_ORG_ID, name: 'Demo Ltda', created_at: now, deleted_at: null }).execute();
  await db.insertInto('workspaces').values([
    { id: ids.MATRIZ_WORKSPACE_ID, organization_id: ids.DEMO_ORG_ID, name: ids.MATRIZ_WORKSPACE_NAME, created_at: now },
    { id: ids.FILIAL_WORKSPACE_ID, organization_id: ids.DEMO_ORG_ID, name: ids.FILIAL_WORKSPACE_NAME, created_at: now },
  ]).execute();
  for (const m of DEMO_MEMBERS) {
    await db.insertInto('persons').values({ id: m.personId, email: m.email, name: m.name, created_at: now, deleted_at: null }).execute();
    await db.insertInto('memberships').values({
      id: m.membershipId, organization_id: ids.DEMO_ORG_ID, person_id: m.personId, status: m.status,
      is_admin: m.isAdmin ? 1 : 0, permissions: JSON.stringify(m.permissions), created_at: now,
    }).execute();
    await db.insertInto('membership_workspaces')
      .values(m.workspaceIds.map((workspaceId) => ({ membership_id: m.membershipId, workspace_id: workspaceId })))
      .execute();
  }
}
