/**
 * The `/mcp` endpoint (stub while the transport lands): POST only.
 */
import Router from '@koa/router';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { OperationService } from '../api/service.js';
import type { ToolDefinition, ResourceTemplateDefinition } from '../runtime/types.js';
import type { Database } from '../store/schema.js';

export interface McpRouterDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: unknown;
  readonly operations: OperationService;
  readonly tools: readonly ToolDefinition[];
  readonly resourceTemplates: readonly ResourceTemplateDefinition[];
  readonly auth: unknown;
  readonly limits: unknown;
  readonly db: Kysely<Database>;
}

export function createMcpRouter(_deps: McpRouterDeps): Router {
  const router = new Router();
  router.all('/mcp', (ctx) => {
    ctx.status = 405;
    ctx.set('Allow', 'POST');
  });
  return router;
}
