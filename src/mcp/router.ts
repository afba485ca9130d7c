/**
 * The `/mcp` endpoint: stateless Streamable HTTP, JSON only (docs/protocol.md#transport). A route of named
 * middleware in the order the contract fixes — method → Origin → declared size → bearer →
 * protocol limit → body (cap) → JSON-RPC → era → method table. Token checks belong to `auth/`,
 * counters to `http/limits`, operations to `src/dispatch`.
 */
import Router from '@koa/router';
import type Koa from 'koa';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { AuthModule } from '../auth/index.js';
import type { Config } from '../config.js';
import { compileArgumentValidators, type Caller, type OperationService } from '../dispatch/index.js';
import { HttpError } from '../http/errors.js';
import type { Limits } from '../http/limits.js';
import type { Metrics } from '../http/metrics.js';
import type { ResourceTemplateDefinition, ToolDefinition } from '../runtime/types.js';
import type { Database } from '../store/schema.js';
import { createConfirmation, type DestructiveCallConfirmation } from './confirmation.js';
import type { ApprovalLinks } from '../oauth/approvals.js';
import { handleMessage } from './handle-message.js';
import { INTERNAL_ERROR, INVALID_REQUEST, serializeError } from './json-rpc.js';
import { createMethodTable, type CompletionProvider, type PromptProvider, type ResourceProvider } from './methods/index.js';
import { isOriginAllowed } from './origin.js';
import { declaresOversizedBody } from './request-body.js';
import { readMediaType } from '../http/capped-body.js';
import { settleClientAbort } from '../http/observability.js';
import { refuseUnsafeWorkspaceHint } from '../http/unsafe-workspace.js';
import { BODY_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, databaseUnavailableRejection, sendError, sendJson, setPreEraHeaders } from './respond.js';
import { databaseOutageReason, isDatabaseUnavailable, logDatabaseUnavailable } from '../store/db-unavailable.js';
import { createToolCatalog } from './tool-catalog.js';
import { readToolView } from './view.js';
import type { Clock } from '../runtime/clock.js';

export interface McpRouterDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics?: Partial<Metrics> | undefined;
  readonly operations: OperationService;
  readonly tools: readonly ToolDefinition[];
  readonly resourceTemplates: readonly ResourceTemplateDefinition[];
  readonly auth: Pick<AuthModule, 'bearer'>;
  readonly limits: Limits;
  readonly db: Kysely<Database>;
  /** Overrides the confirmation of destructive tools (default: createConfirmation, src/mcp/confirmation.ts). */
  readonly confirm?: DestructiveCallConfirmation | undefined;
  /** Approval links for clients that cannot confirm (embedded Account only; docs/security.md#approval-links). */
  readonly approvals?: ApprovalLinks | undefined;
  readonly resources?: ResourceProvider | undefined;
  readonly prompts?: PromptProvider | undefined;
  readonly completions?: CompletionProvider | undefined;
  /** The services' clock (src/runtime/clock.ts), for the default confirmation; default the system clock. */
  readonly clock?: Clock | undefined;
}

export function createMcpRouter(deps: McpRouterDeps): Router {
  const catalog = createToolCatalog(deps.tools, deps.operations);
  const methods = createMethodTable({
    catalog,
    validators: compileArgumentValidators(deps.tools),
    operations: deps.operations,
    db: deps.db,
    confirm: deps.confirm ?? createConfirmation({ config: deps.config, db: deps.db, metrics: deps.metrics, logger: deps.logger, approvals: deps.approvals, clock: deps.clock }),
    metrics: deps.metrics,
    resources: deps.resources,
    prompts: deps.prompts,
    completions: deps.completions,
  });
  const router = new Router();
  router.post(
    '/mcp',
    renderRejections(deps.logger),
    rejectForeignOrigin(deps.config.allowedOrigins),
    rejectDeclaredOversize,
    rejectNonJsonContentType,
    refuseUnsafeWorkspaceHint,
    deps.auth.bearer('mcp', deps.limits),
    limitProtocolRate(deps.limits),
    handleMessage({ methods, logger: deps.logger, readView: (query, readHeader) => readToolView(query, readHeader, catalog.toolsets) }),
  );
  router.all('/mcp', answerMethodNotAllowed);
  return router;
}

/** The one place transport rejections of `/mcp` become responses (HttpError → its status). */
function renderRejections(logger: Logger): Koa.Middleware {
  return async function renderMcpRejections(ctx, next) {
    setPreEraHeaders(ctx);
    try {
      await next();
    } catch (caught) {
      let error = caught;
      if (!(error instanceof HttpError)) {
        const log = (ctx.state as { log?: Logger }).log ?? logger;
        // The client went away (e.g. mid-body): nothing to answer, a debug line (its ECONNRESET is no database outage).
        if (settleClientAbort(ctx, log, error)) return;
        if (!isDatabaseUnavailable(error)) {
          log.error({ err: error }, 'mcp: unexpected failure');
          sendJson(ctx, 500, serializeError(null, INTERNAL_ERROR, 'Internal error'));
          return;
        }
        // The database failed before the message was dispatched (e.g. loading the caller): an outage.
        logDatabaseUnavailable(log, error);
        error = databaseUnavailableRejection(null, databaseOutageReason(error));
      }
      const rejection = error as HttpError;
      ctx.set(rejection.headers);
      const code = rejection.status >= 500 ? INTERNAL_ERROR : INVALID_REQUEST;
      sendJson(ctx, rejection.status, rejection.body === undefined ? serializeError(null, code, rejection.message) : JSON.stringify(rejection.body));
    }
  };
}

/** Streamable HTTP without SSE: GET (stream) and DELETE (session) have nothing to serve. */
async function answerMethodNotAllowed(ctx: Koa.Context): Promise<void> {
  setPreEraHeaders(ctx);
  ctx.set('Allow', 'POST');
  sendJson(ctx, 405, serializeError(null, INVALID_REQUEST, 'Method not allowed'));
}

function rejectForeignOrigin(allowlist: readonly string[]): Koa.Middleware {
  return async function rejectMcpForeignOrigin(ctx, next) {
    const origin = ctx.get('origin');
    if (!isOriginAllowed(origin === '' ? undefined : origin, allowlist)) {
      throw new HttpError(403, 'Origin not allowed', {}, 'origin_not_allowed');
    }
    await next();
  };
}

/** A declared Content-Length above the cap is refused before authentication (docs/protocol.md#transport). */
async function rejectDeclaredOversize(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  if (declaresOversizedBody(ctx.req)) {
    // Nothing of an unauthenticated oversized body is read; the connection ends with the 413.
    ctx.set('Connection', 'close');
    sendError(ctx, null, BODY_TOO_LARGE);
    return;
  }
  await next();
}

/** One JSON-RPC message as JSON: any other media type is refused before authentication. */
async function rejectNonJsonContentType(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  if (readMediaType(ctx.get('content-type')) !== 'application/json') {
    sendError(ctx, null, UNSUPPORTED_MEDIA_TYPE);
    return;
  }
  await next();
}

function limitProtocolRate(limits: Limits): Koa.Middleware {
  return async function limitMcpProtocolRate(ctx, next) {
    const caller = (ctx.state as { caller?: Caller }).caller;
    if (caller === undefined) throw new HttpError(401, 'Authentication required', {}, 'no_caller');
    await limits.consumeProtocol(caller.personId);
    await next();
  };
}
