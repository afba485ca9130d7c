/**
 * Who signs in on the embedded Account's pages (docs/security.md#oauth-login). The embedded
 * Account keeps no passwords: the demo people (src/seed) sign in with the documented demo
 * password while demo data is on (`SEED_DEMO_DATA`, the embedded default); anyone else signs in
 * at an external Account (`ACCOUNT_ISSUER`). A person needs an active membership; the token's
 * organization is the first active one. Every refusal is the same one (an unknown email, a wrong
 * password, a person without an active membership), so the page is no oracle for memberships.
 * The pages sign in through `signInWithinLimit`, under the address's failed-authentication limit.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { DEMO_MEMBERS } from '../seed/identity.js';
import { isUnsafeText } from '../api/index.js';
import type { AuthLimits } from '../http/limits.js';

export const DEMO_PASSWORD = 'demo';

const DEMO_PERSON_IDS: ReadonlySet<string> = new Set(DEMO_MEMBERS.map((m) => m.personId));

export interface SignedInPerson {
  readonly personId: string;
  readonly organizationId: string;
}

export type SignInResult = { ok: true; person: SignedInPerson } | { ok: false };

function samePassword(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The organization of the person's first active membership, or null. */
export async function findActiveOrganization(db: Kysely<Database>, personId: string): Promise<string | null> {
  const row = await db.selectFrom('memberships').select('organization_id')
    .where('person_id', '=', personId).where('status', '=', 'active')
    .orderBy('created_at').orderBy('id').executeTakeFirst();
  return row?.organization_id ?? null;
}

async function signIn(db: Kysely<Database>, email: string, password: string, demoEnabled: boolean): Promise<SignInResult> {
  // Text no email holds (a NUL byte would fail the query on PostgreSQL) signs no one in.
  if (isUnsafeText(email)) return { ok: false };
  const person = await db.selectFrom('persons').select(['id', 'deleted_at'])
    .where('email', '=', email.trim().toLowerCase()).executeTakeFirst();
  // One answer for an unknown email and a wrong password, so emails cannot be probed.
  const known = person !== undefined && person.deleted_at === null && demoEnabled && DEMO_PERSON_IDS.has(person.id);
  if (!samePassword(password, DEMO_PASSWORD) || !known) return { ok: false };
  const organizationId = await findActiveOrganization(db, person.id);
  if (organizationId === null) return { ok: false };
  return { ok: true, person: { personId: person.id, organizationId } };
}

/** A sign-in form's fields. */
export interface Credentials {
  readonly email: string;
  readonly password: string;
}

/**
 * `signIn` under the address's failed-authentication limit: the limit is consulted before the
 * password is checked (over it, even the right password is answered 429, so 429 says nothing
 * about the password), and a failed sign-in counts against it.
 */
export async function signInWithinLimit(
  db: Kysely<Database>, limits: AuthLimits, address: string, credentials: Credentials, demoEnabled: boolean,
): Promise<SignInResult> {
  await limits.assertAuthAllowed(address);
  const result = await signIn(db, credentials.email, credentials.password, demoEnabled);
  if (!result.ok) await limits.recordAuthFailure(address);
  return result;
}

/** The email and password of a posted sign-in form (empty when missing). */
export function credentialsOf(form: URLSearchParams): Credentials {
  return { email: form.get('email') ?? '', password: form.get('password') ?? '' };
}

export interface PersonSummary {
  readonly name: string;
  readonly email: string;
  /** Names of the workspaces the person reaches in the organization. */
  readonly workspaces: readonly string[];
}

export async function describePerson(db: Kysely<Database>, personId: string, organizationId: string): Promise<PersonSummary | null> {
  const person = await db.selectFrom('persons').select(['name', 'email']).where('id', '=', personId).executeTakeFirst();
  const membership = await db.selectFrom('memberships').select(['id', 'is_admin'])
    .where('person_id', '=', personId).where('organization_id', '=', organizationId).executeTakeFirst();
  if (person === undefined || membership === undefined) return null;
  const rows = membership.is_admin === 1
    ? await db.selectFrom('workspaces').select('name').where('organization_id', '=', organizationId).orderBy('name').execute()
    : await db.selectFrom('membership_workspaces as mw').innerJoin('workspaces as w', 'w.id', 'mw.workspace_id')
      .select('w.name').where('mw.membership_id', '=', membership.id).where('w.organization_id', '=', organizationId)
      .orderBy('w.name').execute();
  return { name: person.name, email: person.email, workspaces: rows.map((r) => r.name) };
}
