/**
 * Shared by the money-control suites (and the approval-request page's): a member's panel
 * permissions set for a test, and put back as the demo seed has them.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../../src/store/schema.js';
import { DEMO_MEMBERS } from '../../../src/seed/identity.js';
import { DEMO } from '../../helpers/index.js';

/** Sets the permissions of `personId`'s membership in the demo organization (the membership cache is per request). */
export async function setPermissions(db: Kysely<Database>, personId: string, permissions: readonly string[]): Promise<void> {
  await db.updateTable('memberships').set({ permissions: JSON.stringify(permissions) })
    .where('organization_id', '=', DEMO.organizationId).where('person_id', '=', personId).execute();
}

/** Puts back the permissions the demo seed gives `personId`. */
export async function restoreDemoPermissions(db: Kysely<Database>, personId: string): Promise<void> {
  const member = DEMO_MEMBERS.find((m) => m.personId === personId);
  if (!member) throw new Error(`${personId} is not a demo member`);
  await setPermissions(db, personId, member.permissions);
}
