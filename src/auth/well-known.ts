/**
 * The `/.well-known/*` documents: RFC 9728 protected-resource metadata for `/mcp` (and `/v1`),
 * and — only when the Account is embedded — its JWKS. The embedded Account's RFC 8414 metadata is
 * served by its authorization server (src/oauth); with ACCOUNT_ISSUER the protected-resource
 * metadata names the external Account and nothing here describes an authorization server.
 * Serving them is all this module does; nothing here verifies a token.
 */
import Router from '@koa/router';
import type { AppState } from '../http/app-state.js';
import type { JSONWebKeySet } from 'jose';
import { OAUTH_SCOPES } from '../identity/scopes.js';

export interface WellKnownOptions {
  readonly publicUrl: string;
  readonly issuer: string;
  /** Present only for the embedded Account; its current key set (replicas: cached from the database). */
  readonly embeddedJwks: (() => Promise<JSONWebKeySet>) | null;
}

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';

function describeResource(options: WellKnownOptions, resourcePath: '/mcp' | '/v1'): Record<string, unknown> {
  return {
    resource: `${options.publicUrl}${resourcePath}`,
    authorization_servers: [options.issuer],
    // What an OAuth client may ask for: never the Seguridad scopes (personal tokens only).
    scopes_supported: OAUTH_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: resourcePath === '/mcp' ? 'Kobana Finance MCP server' : 'Kobana Finance REST API',
  };
}

export function createWellKnownRouter(options: WellKnownOptions): Router<AppState> {
  const router = new Router<AppState>();
  const mcp = describeResource(options, '/mcp');
  const api = describeResource(options, '/v1');
  const send = (body: unknown) => (ctx: { set(field: string, value: string): void; body: unknown }) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    // Public documents: browser-based MCP clients read them from their own origin.
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = body;
  };
  router.get(PROTECTED_RESOURCE_PATH, send(mcp));
  router.get(`${PROTECTED_RESOURCE_PATH}/mcp`, send(mcp));
  router.get(`${PROTECTED_RESOURCE_PATH}/v1`, send(api));
  const { embeddedJwks } = options;
  if (embeddedJwks) {
    router.get('/.well-known/jwks.json', async (ctx) => send(await embeddedJwks())(ctx));
  }
  return router;
}
