/**
 * The embedded Account's OAuth 2.1 authorization server (docs/security.md#oauth-login), present
 * only when ACCOUNT_ISSUER is unset: oidc-provider (provider.ts) answering its own paths
 * (`/authorize`, `/token`, `/register`, `/revoke`, the RFC 8414 and OpenID discovery documents),
 * and the sign-in/consent pages (interactions.ts). `routes()` is mounted by src/app.ts.
 */
import { randomBytes } from 'node:crypto';
import Router from '@koa/router';
import type Koa from 'koa';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../store/schema.js';
import type { AccountKey } from '../auth/account-key.js';
import type { Audience } from '../auth/types.js';
import type { AuthLimits } from '../http/limits.js';
import type { RevocationList } from '../auth/revocation.js';
import { createProvider, OAUTH_ROUTES } from './provider.js';
import { createInteractionRouter } from './interactions.js';
import { createApprovalLinks, type ApprovalLinks } from './approvals.js';
import { createApprovalRouter } from './approval-page.js';

export { DEMO_PASSWORD } from './people.js';
export type { ApprovalLinks } from './approvals.js';

/** Its row in `shared_secrets`: signs the authorization server's cookies and the pages' CSRF tokens, the same on every replica. */
export const OAUTH_COOKIE_SECRET = 'oauth-cookie-key';

export interface OAuthServer {
  /** The authorization server's paths and its pages (sign-in, consent, approval links). */
  routes(limits: AuthLimits): Router;
  /** Approval links for destructive calls from clients that cannot confirm (src/mcp/confirmation.ts). */
  readonly approvals: ApprovalLinks;
}

export interface OAuthServerOptions {
  readonly config: Pick<Config, 'publicUrl' | 'tokenMaxLifetimeSeconds' | 'trustProxy' | 'seedDemoData'>;
  readonly db: Kysely<Database>;
  readonly logger: Logger;
  readonly signingKey: AccountKey;
  readonly issuer: string;
  readonly audiences: Readonly<Record<Audience, string>>;
  readonly revocation: RevocationList;
}

async function loadCookieKey(db: Kysely<Database>): Promise<string> {
  await db.insertInto('shared_secrets')
    .values({ name: OAUTH_COOKIE_SECRET, value: randomBytes(32).toString('base64url'), created_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('shared_secrets').select('value').where('name', '=', OAUTH_COOKIE_SECRET).executeTakeFirstOrThrow();
  return row.value;
}

export async function createOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  const cookieKey = await loadCookieKey(options.db);
  const provider = createProvider({
    issuer: options.issuer,
    audiences: options.audiences,
    db: options.db,
    signingKey: options.signingKey,
    cookieKeys: [cookieKey],
    maxLifetimeSeconds: options.config.tokenMaxLifetimeSeconds,
    trustProxy: options.config.trustProxy,
    revocation: options.revocation,
  });
  provider.on('server_error', (_ctx: unknown, err: unknown) => {
    options.logger.error({ event: 'oauth_server_error', err }, 'OAuth authorization server error');
  });
  const handle = provider.callback();
  const approvals = createApprovalLinks(options.db, options.config.publicUrl);
  // oidc-provider is a Koa app of its own; it answers these paths with its own context and cookies.
  const delegate: Koa.Middleware = async (ctx) => {
    ctx.respond = false;
    await handle(ctx.req, ctx.res);
  };
  return {
    approvals,
    routes(limits) {
      const router = new Router();
      router.all(OAUTH_ROUTES.authorization, delegate);
      router.get(`${OAUTH_ROUTES.authorization}/:uid`, delegate);
      router.all(OAUTH_ROUTES.token, delegate);
      // oidc-provider answers CORS for discovery and the token endpoint but not registration;
      // browser-based MCP clients register from their own origin (no cookies involved).
      router.options(OAUTH_ROUTES.registration, (ctx) => {
        ctx.set({ 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Methods': 'POST', 'Access-Control-Allow-Headers': 'content-type', 'Access-Control-Max-Age': '3600' });
        ctx.status = 204;
      });
      router.post(OAUTH_ROUTES.registration, async (ctx, next) => {
        ctx.set('Access-Control-Allow-Origin', '*');
        await next();
      }, delegate);
      router.all(OAUTH_ROUTES.revocation, delegate);
      router.all('/.well-known/oauth-authorization-server', delegate);
      router.all('/.well-known/openid-configuration', delegate);
      const pages = createInteractionRouter({
        provider, db: options.db, publicUrl: options.config.publicUrl, csrfKey: cookieKey, demoSignIn: options.config.seedDemoData, limits,
        defaultResource: options.audiences.mcp,
      });
      router.use(pages.routes());
      const approvalPage = createApprovalRouter({
        db: options.db, approvals, publicUrl: options.config.publicUrl, csrfKey: cookieKey, demoSignIn: options.config.seedDemoData, limits,
      });
      router.use(approvalPage.routes());
      return router;
    },
  };
}
