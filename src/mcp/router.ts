/**
 * The `/mcp` endpoint: stateless Streamable HTTP, JSON only (docs/protocol.md#transport). One
 * route whose gates run in the order the contract fixes — Origin → declared size → media type →
 * workspace hint → bearer → protocol limit → the message (body within the cap → JSON-RPC → era →
 * method table) — and whose every failure goes to one funnel (failure.ts). Token checks belong to
 * `auth/`, counters to `http/limits`, tool calls to `src/mcp/tools`.
 */
import Router from '@koa/router';
import type Koa from 'koa';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ConfirmationDescribers, DownloadLinks, OperationService } from '../api/index.js';
import type { AuthModule } from '../auth/index.js';
import type { Config } from '../config.js';
import type { AppContext as Context, AppMiddleware as Gate, AppState } from '../http/app-state.js';
import { readMediaType } from '../http/capped-body.js';
import { HttpError } from '../http/errors.js';
import type { Limits } from '../http/limits.js';
import type { Metrics } from '../http/metrics.js';
import type { Tracing } from '../http/tracing.js';
import { refuseUnsafeWorkspaceHint } from '../http/unsafe-workspace.js';
import type { ApprovalLinks } from '../oauth/approvals.js';
import type { Clock } from '../runtime/clock.js';
import type { ProfileExclusions } from '../runtime/schema-profiles.js';
import type { ResourceTemplateDefinition, ToolDefinition } from '../runtime/types.js';
import type { Database } from '../store/schema.js';
import { answerFailure, type Exchange } from './failure.js';
import { handleMessage, type MessageHandler } from './handle-message.js';
import { INVALID_REQUEST, serializeError } from './json-rpc.js';
import { createMethodTable, type CompletionProvider, type PromptProvider, type ResourceProvider } from './methods/index.js';
import { isOriginAllowed } from './origin.js';
import { declaresOversizedBody } from './request-body.js';
import { BODY_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, sendError, sendJson, setPreEraHeaders } from './respond.js';
import { compileArgumentValidators } from './tools/arguments.js';
import { createToolCatalog } from './tools/catalog.js';
import { createConfirmation } from './tools/confirmation/confirmation.js';
import type { DestructiveCallConfirmation } from './tools/confirmation/types.js';
import { readToolView } from './view.js';

export interface McpRouterDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics?: Partial<Metrics> | undefined;
  readonly operations: OperationService;
  readonly tools: readonly ToolDefinition[];
  /** The tools a client schema profile does not serve (generated/profile-exclusions.gen.ts); default none. */
  readonly profileExclusions?: ProfileExclusions | undefined;
  readonly resourceTemplates: readonly ResourceTemplateDefinition[];
  readonly auth: Pick<AuthModule, 'bearer'>;
  readonly limits: Limits;
  readonly db: Kysely<Database>;
  /** Overrides the confirmation of destructive tools (default: createConfirmation, src/mcp/tools/confirmation/). */
  readonly confirm?: DestructiveCallConfirmation | undefined;
  /** The sentences of the default confirmation (src/bootstrap.ts builds them); absent, no destructive tool can be confirmed. */
  readonly describers?: ConfirmationDescribers | undefined;
  /** Approval links for clients that cannot confirm (embedded Account only; docs/security.md#approval-links). */
  readonly approvals?: ApprovalLinks | undefined;
  readonly resources?: ResourceProvider | undefined;
  readonly prompts?: PromptProvider | undefined;
  readonly completions?: CompletionProvider | undefined;
  /** The services' clock (src/runtime/clock.ts), for the default confirmation; default the system clock. */
  readonly clock?: Clock | undefined;
  /** The span of each MCP message (src/http/tracing.ts); default pass-through. */
  readonly tracing?: Tracing | undefined;
  /** Download links for the person (docs/security.md#download-links); absent, a download answers its API path only. */
  readonly downloadLinks?: Pick<DownloadLinks, 'issue'> | undefined;
}

const NO_DESCRIBERS: ConfirmationDescribers = { describerFor: () => undefined };

function defaultConfirmation(deps: McpRouterDeps): DestructiveCallConfirmation {
  return createConfirmation({
    config: deps.config, db: deps.db, describers: deps.describers ?? NO_DESCRIBERS, metrics: deps.metrics, logger: deps.logger, approvals: deps.approvals, clock: deps.clock,
  });
}

export function createMcpRouter(deps: McpRouterDeps): Router<AppState> {
  const catalog = createToolCatalog(deps.tools, deps.operations, deps.profileExclusions);
  const methods = createMethodTable({
    catalog,
    validators: compileArgumentValidators(deps.tools),
    operations: deps.operations,
    confirm: deps.confirm ?? defaultConfirmation(deps),
    metrics: deps.metrics,
    downloadLinks: deps.downloadLinks,
    resources: deps.resources,
    prompts: deps.prompts,
    completions: deps.completions,
  });
  const gates: readonly Gate[] = [
    rejectForeignOrigin(deps.config.allowedOrigins), rejectDeclaredOversize, rejectNonJsonContentType, refuseUnsafeWorkspaceHint, deps.auth.bearer('mcp', deps.limits),
  ];
  const message = handleMessage({ methods, logger: deps.logger, tracing: deps.tracing, readView: (query, readHeader) => readToolView(query, readHeader, catalog.toolsets) });
  const router = new Router<AppState>();
  router.post('/mcp', serveMcp(deps, gates, limitProtocolRate(deps.limits, message)));
  router.all('/mcp', answerMethodNotAllowed);
  return router;
}

/** Runs the gates in order, each calling the next; `last` answers once every gate let the request through. */
function runGates(ctx: Context, gates: readonly Gate[], last: () => Promise<void>): Promise<void> {
  // No async frame of its own: each step hands on the gate's promise (serveMcpRequest awaits it).
  const step = (index: number): Promise<void> => {
    const gate = gates[index];
    return gate === undefined ? last() : Promise.resolve(gate(ctx, () => step(index + 1)));
  };
  return step(0);
}

/** The route: pre-era headers, the gates, the message; whatever fails is answered by the funnel. */
function serveMcp(deps: McpRouterDeps, gates: readonly Gate[], admitted: (ctx: Context, exchange: Exchange) => Promise<void>): Gate {
  return async function serveMcpRequest(ctx) {
    setPreEraHeaders(ctx);
    const exchange: Exchange = { id: null, method: undefined };
    try {
      await runGates(ctx, gates, () => admitted(ctx, exchange));
    } catch (error) {
      answerFailure(ctx, error, exchange, ctx.state.log ?? deps.logger);
    }
  };
}

/** Streamable HTTP without SSE: GET (stream) and DELETE (session) have nothing to serve. */
async function answerMethodNotAllowed(ctx: Context): Promise<void> {
  setPreEraHeaders(ctx);
  ctx.set('Allow', 'POST');
  sendJson(ctx, 405, serializeError(null, INVALID_REQUEST, 'Method not allowed'));
}

function rejectForeignOrigin(allowlist: readonly string[]): Gate {
  return async function rejectMcpForeignOrigin(ctx, next) {
    const origin = ctx.get('origin');
    if (!isOriginAllowed(origin === '' ? undefined : origin, allowlist)) {
      throw new HttpError(403, 'Origin not allowed', {}, 'origin_not_allowed');
    }
    await next();
  };
}

/** A declared Content-Length above the cap is refused before authentication (docs/protocol.md#transport). */
async function rejectDeclaredOversize(ctx: Context, next: Koa.Next): Promise<void> {
  if (declaresOversizedBody(ctx.req)) {
    // Nothing of an unauthenticated oversized body is read; the connection ends with the 413.
    ctx.set('Connection', 'close');
    sendError(ctx, null, BODY_TOO_LARGE);
    return;
  }
  await next();
}

/** One JSON-RPC message as JSON: any other media type is refused before authentication. */
async function rejectNonJsonContentType(ctx: Context, next: Koa.Next): Promise<void> {
  if (readMediaType(ctx.get('content-type')) !== 'application/json') {
    sendError(ctx, null, UNSUPPORTED_MEDIA_TYPE);
    return;
  }
  await next();
}

/** The one check that authentication left a caller (401 `no_caller` otherwise), then its protocol rate, then the message. */
function limitProtocolRate(limits: Limits, message: MessageHandler): (ctx: Context, exchange: Exchange) => Promise<void> {
  return async function limitMcpProtocolRate(ctx, exchange) {
    const { caller } = ctx.state;
    if (caller === undefined) throw new HttpError(401, 'Authentication required', {}, 'no_caller');
    await limits.consumeProtocol(caller.personId);
    await message(ctx, exchange, caller);
  };
}
