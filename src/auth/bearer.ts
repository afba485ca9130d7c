/**
 * The `bearer(audience, limits)` Koa middleware in front of `/v1` and `/mcp` (PROTOCOL.md §7):
 * refuses tokens in the query string, authenticates, throttles addresses that keep failing
 * (failed attempts only: a valid token is never throttled here), loads the caller and the
 * connection's default workspace (another organization's → 403).
 * Rendering the HttpErrors it throws is each surface's job.
 */
import type Koa from 'koa';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Caller, Channel } from '../api/context.js';
import { HttpError } from '../http/errors.js';
import type { Audience, Authenticator, Identity } from './types.js';
import { buildAuthError, type ChallengeUrls } from './challenge.js';

/** What `bearer` needs of the limits module (a structural subset of `Limits`). */
export interface AuthLimits {
  assertAuthAllowed(address: string): Promise<void>;
  recordAuthFailure(address: string): Promise<void>;
}

/** What `bearer` leaves in `ctx.state` for the surfaces. */
export interface AuthState {
  identity: Identity;
  caller: Caller;
  /** `X-Workspace-Id` header or `?workspace_id=`; verified later by resolveWorkspace. */
  connectionWorkspaceId: string | undefined;
}

export interface BearerDeps {
  readonly db: Kysely<Database>;
  readonly authenticator: Authenticator;
  readonly challenge: ChallengeUrls;
  readonly loadCaller: (identity: Identity, channel: Channel) => Promise<Caller>;
}

function readFirst(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

export function readConnectionWorkspace(ctx: Koa.Context): string | undefined {
  return readFirst(ctx.get('x-workspace-id') || undefined) ?? readFirst(ctx.query.workspace_id);
}

/** A default workspace of another organization is refused before any JSON-RPC (SECURITY.md §3). */
async function assertWorkspaceInOrganization(db: Kysely<Database>, workspaceId: string, organizationId: string): Promise<void> {
  const row = await db.selectFrom('workspaces').select('organization_id').where('id', '=', workspaceId).executeTakeFirst();
  if (row !== undefined && row.organization_id !== organizationId) {
    throw new HttpError(403, 'The default workspace belongs to another organization.', {}, 'workspace_other_organization');
  }
}

async function authenticateRequest(deps: BearerDeps, ctx: Koa.Context, audience: Audience): Promise<Identity> {
  if (ctx.query.access_token !== undefined) throw buildAuthError(deps.challenge, audience, 'token_in_query');
  return deps.authenticator.authenticate(ctx.get('authorization') || undefined, audience);
}

/**
 * A failed authentication from an address that already failed too often is answered 429 +
 * Retry-After instead of its 401/400; either way the attempt is counted. Only failures are ever
 * throttled: the token is verified first, so a valid token always passes, however many bad
 * attempts share its address (e.g. every client behind one load balancer).
 */
async function throttleFailure(limits: AuthLimits, address: string): Promise<void> {
  let overLimit: unknown = null;
  try {
    await limits.assertAuthAllowed(address);
  } catch (err) {
    overLimit = err;
  }
  await limits.recordAuthFailure(address);
  if (overLimit !== null) throw overLimit;
}

export function createBearer(deps: BearerDeps, audience: Audience, limits: AuthLimits): Koa.Middleware {
  const channel: Channel = audience === 'mcp' ? 'mcp' : 'api';
  return async function verifyBearer(ctx, next) {
    let identity: Identity;
    try {
      identity = await authenticateRequest(deps, ctx, audience);
    } catch (err) {
      // A request without credentials is discovery, not a failed attempt; 503 is not the client's fault.
      if (err instanceof HttpError && err.status !== 503 && err.reason !== 'missing') await throttleFailure(limits, ctx.ip);
      throw err;
    }
    const connectionWorkspaceId = readConnectionWorkspace(ctx);
    if (connectionWorkspaceId !== undefined) {
      await assertWorkspaceInOrganization(deps.db, connectionWorkspaceId, identity.organizationId);
    }
    const state = ctx.state as AuthState;
    state.identity = identity;
    state.caller = await deps.loadCaller(identity, channel);
    state.connectionWorkspaceId = connectionWorkspaceId;
    await next();
  };
}
