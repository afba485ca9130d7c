/**
 * The `bearer(audience, limits)` Koa middleware in front of `/v1` and `/mcp` (docs/protocol.md#authentication):
 * refuses tokens in the query string, authenticates, throttles addresses that keep failing
 * (failed attempts only: a valid token is never throttled here), loads the caller (refusing a
 * revoked token, read in the same statement as the caller's identity version) and the
 * connection's default workspace (not one of the token's organization → 403).
 * Rendering the HttpErrors it throws is each surface's job.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Caller, Channel } from '../identity/caller.js';
import { throttleFailure, type AuthLimits } from '../http/limits.js';
import { HttpError } from '../http/errors.js';
import type { AppContext, AppMiddleware } from '../http/app-state.js';
import { isUuid } from '../runtime/values.js';
import type { Audience, Authenticator, Identity } from './types.js';
import { buildAuthError, type ChallengeUrls, type TokenFailureReason } from './challenge.js';
import { RevokedTokenError } from './caller.js';
import { workspaceAccessDenied } from '../api/index.js';

export type { AuthState } from '../identity/caller.js';
export type { AuthLimits } from '../http/limits.js';

export interface BearerDeps {
  readonly db: Kysely<Database>;
  readonly authenticator: Authenticator;
  readonly challenge: ChallengeUrls;
  readonly loadCaller: (identity: Identity, channel: Channel) => Promise<Caller>;
  readonly onFailure?: (reason: TokenFailureReason) => void;
}

function readFirst(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? undefined : first;
}

function readConnectionWorkspace(ctx: AppContext): string | undefined {
  return readFirst(ctx.get('x-workspace-id') || undefined) ?? readFirst(ctx.query.workspace_id);
}

/** Workspace ids are lower-case UUIDs; anything else names no workspace and never reaches the database. */
function isWorkspaceId(value: string): boolean {
  return isUuid(value) && value === value.toLowerCase();
}

/**
 * A connection default that is not a workspace of the token's organization is refused here, before
 * any JSON-RPC or operation. Malformed, nonexistent and other organizations' ids get one and the
 * same answer (status, body, headers), so the ids of other organizations cannot be probed. At /v1
 * the body is the `workspace_access_denied` envelope that a workspace of the organization not
 * granted to the person gets from `resolveWorkspace` later; at /mcp the surface renders the
 * message as its JSON-RPC rejection.
 */
async function assertWorkspaceInOrganization(db: Kysely<Database>, workspaceId: string, organizationId: string, audience: Audience): Promise<void> {
  if (isWorkspaceId(workspaceId)) {
    const row = await db.selectFrom('workspaces').select('id')
      .where('id', '=', workspaceId).where('organization_id', '=', organizationId).executeTakeFirst();
    if (row !== undefined) return;
  }
  const denied = workspaceAccessDenied(workspaceId);
  throw new HttpError(403, denied.message, {}, 'workspace_not_in_organization', audience === 'api' ? denied.toEnvelope() : undefined);
}

async function authenticateRequest(deps: BearerDeps, ctx: AppContext, audience: Audience): Promise<Identity> {
  if (ctx.query.access_token !== undefined) throw buildAuthError(deps.challenge, audience, 'token_in_query');
  return deps.authenticator.verify(ctx.get('authorization') || undefined, audience);
}

/** The caller; a revoked token (read in the same statement as the caller's identity version) is a failed authentication. */
async function loadLiveCaller(deps: BearerDeps, ctx: AppContext, identity: Identity, audience: Audience, limits: AuthLimits): Promise<Caller> {
  try {
    return await deps.loadCaller(identity, audience === 'mcp' ? 'mcp' : 'api');
  } catch (err) {
    if (!(err instanceof RevokedTokenError)) throw err;
    deps.onFailure?.('revoked');
    await throttleFailure(limits, ctx.ip);
    throw buildAuthError(deps.challenge, audience, 'revoked');
  }
}

export function createBearer(deps: BearerDeps, audience: Audience, limits: AuthLimits): AppMiddleware {
  return async function verifyBearer(ctx, next) {
    let identity: Identity;
    try {
      identity = await authenticateRequest(deps, ctx, audience);
    } catch (err) {
      // A request without credentials is discovery, not a failed attempt; 503 is not the client's fault.
      if (err instanceof HttpError && err.status !== 503 && err.reason !== 'missing') await throttleFailure(limits, ctx.ip);
      throw err;
    }
    const caller = await loadLiveCaller(deps, ctx, identity, audience, limits);
    const connectionWorkspaceId = readConnectionWorkspace(ctx);
    // A granted workspace is a workspace of the organization (loadCaller read it so): no query.
    if (connectionWorkspaceId !== undefined && !(caller.membership?.workspaceIds.includes(connectionWorkspaceId) ?? false)) {
      await assertWorkspaceInOrganization(deps.db, connectionWorkspaceId, identity.organizationId, audience);
    }
    ctx.state.identity = identity;
    ctx.state.caller = caller;
    ctx.state.connectionWorkspaceId = connectionWorkspaceId;
    await next();
  };
}
