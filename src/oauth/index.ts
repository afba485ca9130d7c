/**
 * The embedded Account's OAuth 2.1 authorization server (docs/security.md#oauth-login), present
 * only when ACCOUNT_ISSUER is unset: oidc-provider (provider.ts) answering its own paths
 * (`/authorize`, `/token`, `/register`, `/revoke`, the RFC 8414 and OpenID discovery documents),
 * and the sign-in/consent pages (interactions.ts). `routes()` is mounted by src/app.ts.
 * Every request is handed over with PUBLIC_URL's host and protocol, so the endpoints it names
 * never come from the request's `Host`. Registration is unauthenticated, so it is bounded:
 * `REGISTRATION_LIMIT_PER_HOUR` per address (src/http/limits.ts) and `MAX_CLIENT_METADATA_BYTES`
 * of metadata; a client never used expires (adapter.ts).
 */
import { randomBytes } from 'node:crypto';
import Router, { type RouterMiddleware } from '@koa/router';
import type Koa from 'koa';
import type Provider from 'oidc-provider';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../store/schema.js';
import type { AccountKey } from '../auth/account-key.js';
import type { Audience } from '../auth/types.js';
import type { OAuthLimits } from '../http/limits.js';
import { HttpError } from '../http/errors.js';
import type { Clock } from '../runtime/clock.js';
import type { RevocationList } from '../auth/revocation.js';
import type { AppState } from '../http/app-state.js';
import { createProvider, OAUTH_ROUTES } from './provider.js';
import { createInteractionRouter } from './interactions.js';
import { createApprovalLinks, type ApprovalLinks } from './approvals.js';
import { createApprovalRouter } from './approval-page.js';
import { approvalRequestUrl, createApprovalRequestRouter } from './approval-request-page.js';
import type { Caller, Channel, Identity } from '../identity/caller.js';
import type { OperationService } from '../api/index.js';
import type { ClientDocumentTestSeam } from './client-documents.js';

export { DEMO_PASSWORD } from './people.js';
export type { ApprovalLinks } from './approvals.js';
export type { ClientDocumentTestSeam } from './client-documents.js';

/** Its row in `shared_secrets`: signs the authorization server's cookies and the pages' CSRF tokens, the same on every replica. */
const OAUTH_COOKIE_SECRET = 'oauth-cookie-key';

/** What the approval-request page runs its decisions through (the operations, as every surface does). */
export interface AccountPageDeps {
  readonly operations: OperationService;
  readonly loadCaller: (identity: Identity, channel: Channel) => Promise<Caller>;
}

export interface OAuthServer {
  /** The authorization server's paths and its pages (sign-in, consent, approval links, approval requests). */
  routes(limits: OAuthLimits, deps: AccountPageDeps): Router<AppState>;
  /** The page of an approval request (src/oauth/approval-request-page.ts): the operations' `approvalPageUrl`. */
  approvalRequestUrl(workspaceId: string, approvalRequestId: string): string;
  /** Approval links for destructive calls from clients that cannot confirm (src/mcp/tools/confirmation/approval-link.ts). */
  readonly approvals: ApprovalLinks;
}

export interface OAuthServerOptions {
  readonly config: Pick<Config, 'publicUrl' | 'tokenMaxLifetimeSeconds' | 'seedDemoData'>;
  readonly db: Kysely<Database>;
  readonly logger: Logger;
  readonly signingKey: AccountKey;
  readonly issuer: string;
  readonly audiences: Readonly<Record<Audience, string>>;
  readonly revocation: RevocationList;
  readonly clock: Clock;
  /** Tests only: src/oauth/client-documents.ts. */
  readonly clientDocumentTestSeam?: ClientDocumentTestSeam;
}

/** The largest client metadata one registration may send (real clients send well under 2 KB). */
export const MAX_CLIENT_METADATA_BYTES = 8192;

/** The authorization server's metadata documents: public, the same for everyone, changed only by a release. */
const METADATA_CACHE_CONTROL = 'public, max-age=300';

/** An RFC 6749 §5.2 / RFC 7591 §3.2.2 error body. */
function sendOAuthError(ctx: Koa.Context, status: number, error: string, description: string, headers: Readonly<Record<string, string>> = {}): void {
  ctx.set({ ...headers, 'Cache-Control': 'no-store' });
  ctx.status = status;
  ctx.body = { error, error_description: description };
}

async function loadCookieKey(db: Kysely<Database>, clock: Clock): Promise<string> {
  await db.insertInto('shared_secrets')
    .values({ name: OAUTH_COOKIE_SECRET, value: randomBytes(32).toString('base64url'), created_at: new Date(clock.now()).toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('shared_secrets').select('value').where('name', '=', OAUTH_COOKIE_SECRET).executeTakeFirstOrThrow();
  return row.value;
}

export async function createOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  const cookieKey = await loadCookieKey(options.db, options.clock);
  const provider = createProvider({
    issuer: options.issuer,
    audiences: options.audiences,
    db: options.db,
    signingKey: options.signingKey,
    cookieKeys: [cookieKey],
    maxLifetimeSeconds: options.config.tokenMaxLifetimeSeconds,
    revocation: options.revocation,
    clock: options.clock,
    maxClientMetadataBytes: MAX_CLIENT_METADATA_BYTES,
    ...(options.clientDocumentTestSeam ? { clientDocumentTestSeam: options.clientDocumentTestSeam } : {}),
  });
  provider.on('server_error', (_ctx: unknown, err: unknown) => {
    options.logger.error({ event: 'oauth_server_error', err }, 'OAuth authorization server error');
  });
  const parts: ServerParts = {
    options, provider, cookieKey, handle: provider.callback(),
    approvals: createApprovalLinks(options.db, options.config.publicUrl, () => options.clock.now()),
  };
  return {
    approvals: parts.approvals,
    routes: (limits, deps) => createRoutes(parts, limits, deps),
    approvalRequestUrl: (workspaceId, id) => approvalRequestUrl(options.config.publicUrl, workspaceId, id),
  };
}

/** What the routes are built from, once per server. */
interface ServerParts {
  readonly options: OAuthServerOptions;
  readonly provider: Provider;
  /** oidc-provider's own request handler (it is a Koa app of its own). */
  readonly handle: ReturnType<Provider['callback']>;
  readonly approvals: ApprovalLinks;
  readonly cookieKey: string;
}

function createRoutes(parts: ServerParts, limits: OAuthLimits, deps: AccountPageDeps): Router<AppState> {
  const { options, provider, approvals, cookieKey } = parts;
  const publicUrl = options.config.publicUrl;
  const router = new Router<AppState>();
  router.use(forwardPublicUrl(new URL(publicUrl)));
  addProviderRoutes(router, delegateTo(parts.handle), limits);
  const pages = createInteractionRouter({
    provider, db: options.db, publicUrl, csrfKey: cookieKey, demoSignIn: options.config.seedDemoData, limits,
    defaultResource: options.audiences.mcp,
  });
  router.use(pages.routes());
  const approvalPage = createApprovalRouter({
    db: options.db, approvals, publicUrl, csrfKey: cookieKey, demoSignIn: options.config.seedDemoData, limits,
    now: () => options.clock.now(),
  });
  router.use(approvalPage.routes());
  const approvalRequests = createApprovalRequestRouter({
    ...deps, db: options.db, publicUrl, csrfKey: cookieKey, demoSignIn: options.config.seedDemoData, limits, now: () => options.clock.now(),
  });
  router.use(approvalRequests.routes());
  return router;
}

/** oidc-provider's own paths, answered by it (`delegate`), registration bounded first. */
function addProviderRoutes(router: Router<AppState>, delegate: RouterMiddleware<AppState>, limits: OAuthLimits): void {
  router.all(OAUTH_ROUTES.authorization, delegate);
  router.get(`${OAUTH_ROUTES.authorization}/:uid`, delegate);
  router.all(OAUTH_ROUTES.token, delegate);
  router.options(OAUTH_ROUTES.registration, answerRegistrationPreflight);
  router.post(OAUTH_ROUTES.registration, admitRegistration(limits), delegate);
  router.all(OAUTH_ROUTES.revocation, delegate);
  router.all('/.well-known/oauth-authorization-server', cacheMetadata, delegate);
  router.all('/.well-known/openid-configuration', cacheMetadata, delegate);
}

/**
 * oidc-provider trusts the forwarded headers (provider.ts): on every request of these routes
 * (its own paths, and the pages that call it) they are ours, PUBLIC_URL's, whatever was sent.
 */
function forwardPublicUrl(publicUrl: URL): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    ctx.req.headers['x-forwarded-host'] = publicUrl.host;
    ctx.req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
    await next();
  };
}

/** oidc-provider is a Koa app of its own; it answers these paths with its own context and cookies. */
function delegateTo(handle: ServerParts['handle']): RouterMiddleware<AppState> {
  return async (ctx) => {
    ctx.respond = false;
    await handle(ctx.req, ctx.res);
  };
}

const cacheMetadata: RouterMiddleware<AppState> = async (ctx, next) => {
  ctx.res.setHeader('Cache-Control', METADATA_CACHE_CONTROL);
  await next();
};

/**
 * oidc-provider answers CORS for discovery and the token endpoint but not registration;
 * browser-based MCP clients register from their own origin (no cookies involved).
 */
const answerRegistrationPreflight: RouterMiddleware<AppState> = (ctx) => {
  ctx.set({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Allow-Headers': 'content-type', 'Access-Control-Max-Age': '3600' });
  ctx.status = 204;
};

/** Bounded registration: the address's budget, then the size of what it sends. */
function admitRegistration(limits: OAuthLimits): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    try {
      await limits.consumeRegistration(ctx.ip);
    } catch (err) {
      if (!(err instanceof HttpError) || err.status !== 429) throw err;
      sendOAuthError(ctx, 429, 'temporarily_unavailable', err.message, err.headers);
      return;
    }
    if ((ctx.request.length ?? 0) > MAX_CLIENT_METADATA_BYTES) {
      sendOAuthError(ctx, 413, 'invalid_client_metadata', `client metadata must be at most ${MAX_CLIENT_METADATA_BYTES} bytes`);
      return;
    }
    await next();
  };
}
