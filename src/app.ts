/**
 * createApp(services): the single place where HTTP surfaces are wired together — request
 * observability, health/metrics, the Account's well-known documents and (embedded) its OAuth
 * authorization server and sign-in pages, the download links people open, the `/v1` REST router
 * and the `/mcp` endpoint. It owns no behaviour of its own.
 */
import Koa from 'koa';
import type { Services } from './bootstrap.js';
import type { AppState } from './http/app-state.js';
import { createAppErrorListener, requestObservability } from './http/observability.js';
import { createHealthRouter } from './http/health.js';
import { createRestRouter } from './http/rest.js';
import { createDownloadLinkRouter } from './http/download-link.js';
import { renderRestFallbacks } from './http/rest-fallback.js';
import { createMcpRouter } from './mcp/router.js';
import { createFinanceProviders } from './mcp/features/index.js';

export function createApp(services: Services): Koa<AppState> {
  const { routes } = services.registry;
  const app = new Koa<AppState>();
  app.proxy = services.config.trustProxy;
  // Behind one trusted proxy only its own (rightmost) X-Forwarded-For entry is believed: the
  // entries to its left are whatever the client sent, and would let it choose its address.
  app.maxIpsCount = 1;
  app.on('error', createAppErrorListener(services.logger));
  app.use(requestObservability({ logger: services.logger, metrics: services.metrics, tracing: services.tracing }));
  // `/mcp` first: no other surface answers on it, and its calls then skip every other router's matching.
  const mcp = createMcpSurface(services);
  app.use(mcp.routes());
  const health = createHealthRouter(services);
  app.use(health.routes()).use(health.allowedMethods());
  app.use(services.auth.wellKnownRouter.routes());
  if (services.oauth) app.use(services.oauth.routes(services.limits, { operations: services.operations, loadCaller: services.auth.loadCaller }).routes());
  const downloads = createDownloadLinkRouter({
    operations: services.operations, links: services.downloadLinks, loadCaller: services.auth.loadCaller, limits: services.limits,
  });
  app.use(downloads.routes()).use(downloads.allowedMethods());
  app.use(renderRestFallbacks());
  const rest = createRestRouter({ operations: services.operations, routes, auth: services.auth, limits: services.limits });
  app.use(rest.routes()).use(rest.allowedMethods());
  return app;
}

/** The `/mcp` endpoint over the services: every MCP dependency in one place. */
function createMcpSurface(services: Services): ReturnType<typeof createMcpRouter> {
  const { tools, resourceTemplates, profileExclusions } = services.registry;
  return createMcpRouter({
    config: services.config,
    logger: services.logger,
    metrics: services.metrics,
    operations: services.operations,
    tools,
    profileExclusions,
    resourceTemplates,
    auth: services.auth,
    limits: services.limits,
    db: services.db,
    describers: services.describers,
    approvals: services.oauth?.approvals,
    clock: services.clock,
    tracing: services.tracing,
    downloadLinks: services.downloadLinks,
    ...createFinanceProviders({ operations: services.operations, db: services.db, tools, resourceTemplates }, { clock: services.clock }),
  });
}
