/**
 * Loading the Caller behind a verified identity: the membership's status, admin flag, panel
 * permissions (admins hold every one) and granted workspaces (admins reach every workspace of
 * the organization). Deciding what the caller may do is `authorize.ts`'s job.
 *
 * One query loads all of it together with the organization's identity version (migration
 * 0005: the database bumps it in the transaction of every membership, granted-workspace,
 * workspace or Seguridad change) and whether the calling token is revoked (`revoked_tokens`).
 * `createCallerLoader` keeps the membership per (organization, person) with the version it was
 * read at and, on the next call, reads only the version and the token's revocation, in one
 * statement: equal, the cached membership is still exactly what the database holds; different
 * (or the row is missing), it loads again. So a request costs one primary-key lookup instead of
 * the membership queries, and a revoked permission or a revoked token is refused at the next call
 * on every replica (`RevokedTokenError`, which the bearer answers 401 `invalid_token`).
 */
import { sql, type Kysely } from 'kysely';
import { identityStateReader, readFlag } from '../store/db.js';
import type { Database } from '../store/schema.js';
import type { Caller, Channel } from '../identity/caller.js';
import type { Identity } from './types.js';
import { ALL_PERMISSIONS, parseStoredPermissions } from '../identity/permissions.js';
import { Lru } from '../runtime/lru.js';

type Membership = NonNullable<Caller['membership']>;

/** A membership as read, and the identity version it was read at (undefined: the organization has no version row). */
interface LoadedMembership {
  readonly membership: Membership | null;
  readonly version: number | undefined;
  /** The calling token is on the revocation list (undefined: not read, the person has no membership there). */
  readonly revoked: boolean | undefined;
}

/** The calling token was revoked (docs/security.md#identity-and-tokens): the bearer answers 401 `invalid_token`. */
export class RevokedTokenError extends Error {
  constructor() {
    super('revoked');
  }
}

/**
 * The membership, its granted workspaces with their names (one row each; admins: every workspace
 * of the organization) and the organization's version, in one statement so all three come from one
 * snapshot of the database.
 */
async function readMembership(db: Kysely<Database>, organizationId: string, personId: string, tokenId: string): Promise<LoadedMembership> {
  const rows = await db.selectFrom('memberships as m')
    .leftJoin('workspaces as w', (join) => join
      .onRef('w.organization_id', '=', 'm.organization_id')
      .on((eb) => eb.or([
        eb('m.is_admin', '=', 1),
        eb.exists(eb.selectFrom('membership_workspaces as mw').select(sql<number>`1`.as('one'))
          .whereRef('mw.membership_id', '=', 'm.id').whereRef('mw.workspace_id', '=', 'w.id')),
      ])))
    .select((eb) => [
      'm.status', 'm.is_admin', 'm.permissions', 'w.id as workspace_id', 'w.name as workspace_name',
      eb.selectFrom('identity_versions as v').select('v.version').whereRef('v.organization_id', '=', 'm.organization_id').as('version'),
      eb.exists(eb.selectFrom('revoked_tokens as r').select('r.jti').where('r.jti', '=', tokenId)).as('revoked'),
    ])
    .where('m.organization_id', '=', organizationId)
    .where('m.person_id', '=', personId)
    .orderBy('w.id')
    .execute();
  const first = rows[0];
  if (first === undefined) return { membership: null, version: undefined, revoked: undefined };
  const isAdmin = Number(first.is_admin) === 1;
  const workspaces = rows.flatMap((r) => (r.workspace_id === null || r.workspace_name === null ? [] : [[r.workspace_id, r.workspace_name] as const]));
  return {
    membership: {
      status: first.status === 'active' ? 'active' : 'inactive',
      isAdmin,
      permissions: new Set(isAdmin ? ALL_PERMISSIONS : parseStoredPermissions(first.permissions)),
      workspaceIds: workspaces.map(([id]) => id),
      workspaceNames: new Map(workspaces),
    },
    version: first.version === null || first.version === undefined ? undefined : Number(first.version),
    revoked: readFlag(first.revoked),
  };
}

async function isTokenRevoked(db: Kysely<Database>, tokenId: string): Promise<boolean> {
  const row = await db.selectFrom('revoked_tokens').select('jti').where('jti', '=', tokenId).executeTakeFirst();
  return row !== undefined;
}

/** The membership as read, after refusing a revoked token (read with it, or on its own when there was no membership row). */
async function readLiveMembership(db: Kysely<Database>, identity: Identity): Promise<LoadedMembership> {
  const loaded = await readMembership(db, identity.organizationId, identity.personId, identity.tokenId);
  if (loaded.revoked ?? await isTokenRevoked(db, identity.tokenId)) throw new RevokedTokenError();
  return loaded;
}

function toCaller(identity: Identity, channel: Channel, membership: Membership | null): Caller {
  return {
    personId: identity.personId,
    organizationId: identity.organizationId,
    scopes: identity.scopes,
    tokenType: identity.tokenType,
    channel,
    membership,
  };
}

/** Uncached: one query (tests and one-off tools). Throws `RevokedTokenError` for a revoked token. */
export async function loadCaller(db: Kysely<Database>, identity: Identity, channel: Channel): Promise<Caller> {
  const { membership } = await readLiveMembership(db, identity);
  return toCaller(identity, channel, membership);
}

export interface CallerLoader {
  /** Throws `RevokedTokenError` for a revoked token. */
  load(identity: Identity, channel: Channel): Promise<Caller>;
  /** Forgets every cached membership (tests). */
  clear(): void;
}

/** Memberships kept per process: one entry per (organization, person) calling. */
const CACHED_MEMBERSHIPS_MAX = 10_000;

/** The cached loader (see the header): one version-and-revocation lookup per call while nothing changed. */
export function createCallerLoader(db: Kysely<Database>, capacity = CACHED_MEMBERSHIPS_MAX): CallerLoader {
  // Only found memberships of organizations with a version row are kept: anything else is read every time.
  const cache = new Lru<string, { readonly membership: Membership; readonly version: number }>(capacity);
  const readIdentityState = identityStateReader(db);
  return {
    async load(identity, channel) {
      const key = `${identity.organizationId}\u0000${identity.personId}`;
      const cached = cache.get(key);
      if (cached !== undefined) {
        const state = await readIdentityState(identity.organizationId, identity.tokenId);
        if (state?.revoked === true) throw new RevokedTokenError();
        if (state?.version === cached.version) return toCaller(identity, channel, cached.membership);
      }
      const loaded = await readLiveMembership(db, identity);
      if (loaded.membership !== null && loaded.version !== undefined) cache.set(key, { membership: loaded.membership, version: loaded.version });
      else cache.delete(key);
      return toCaller(identity, channel, loaded.membership);
    },
    clear() {
      cache.clear();
    },
  };
}
