/**
 * One JSON-RPC message of `/mcp`: read the body (capped), parse it once, classify it, decide
 * the era, look the method up and answer. Protocol faults render here; transport rejections
 * (HttpError) are left to the router's error middleware.
 */
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { Caller } from '../dispatch/index.js';
import { decideEra } from './era.js';
import {
  INTERNAL_ERROR,
  JsonRpcError,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  PreparedResult,
  classifyMessage,
  readMessageId,
  type JsonRpcId,
} from './json-rpc.js';
import type { MethodTable } from './methods/index.js';
import { readBodyWithinLimit } from './request-body.js';
import { BODY_TOO_LARGE, databaseUnavailableRejection, sendAccepted, sendError, sendPrepared, sendResult, setEraHeader, shapeResult } from './respond.js';
import type { QueryReader, ToolView } from './view.js';
import type { HeaderReader } from './headers.js';
import { databaseOutageReason, isDatabaseUnavailable, logDatabaseUnavailable } from '../store/db-unavailable.js';
import type { Era } from './versions.js';

export interface MessageDeps {
  readonly methods: MethodTable;
  readonly logger: Logger;
  /** The request's view (view.ts); throws a JsonRpcError for a value it does not know. */
  readonly readView: (query: QueryReader, readHeader: HeaderReader) => ToolView;
}

interface McpState {
  caller?: Caller;
  connectionWorkspaceId?: string;
  log?: Logger;
  requestId?: string;
}

export function handleMessage(deps: MessageDeps): Koa.Middleware {
  return async function handleMcpMessage(ctx) {
    const raw = await readBodyWithinLimit(ctx.req);
    if (raw === null) {
      // The rest of the body is drained unread (request-body.ts), so the client can finish
      // sending and read the 413 on a live connection.
      sendError(ctx, null, BODY_TOO_LARGE);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      sendError(ctx, null, new JsonRpcError(PARSE_ERROR, 'Parse error', 400));
      return;
    }
    let id: JsonRpcId | null = readMessageId(body);
    try {
      const message = classifyMessage(body);
      if (message.kind !== 'request') {
        sendAccepted(ctx);
        return;
      }
      id = message.id;
      const era = decideEra(message, (name) => ctx.get(name) || undefined);
      setEraHeader(ctx, era);
      await dispatchRequest(ctx, deps, era, message.id, message.method, message.params ?? {});
    } catch (error) {
      if (error instanceof JsonRpcError) {
        sendError(ctx, id, error);
        return;
      }
      throw error;
    }
  };
}

async function dispatchRequest(
  ctx: Koa.Context,
  deps: MessageDeps,
  era: Era,
  id: JsonRpcId,
  method: string,
  params: Readonly<Record<string, unknown>>,
): Promise<void> {
  const definition = Object.hasOwn(deps.methods, method) ? deps.methods[method] : undefined;
  const known = definition !== undefined && (definition.eras === 'both' || definition.eras === (era.modern ? 'modern' : 'legacy'));
  if (!known || definition === undefined) {
    // Modern era: 404 (MCP 2026-07-28 §transports); 2025 era: in the body of a 200.
    throw new JsonRpcError(METHOD_NOT_FOUND, 'Method not found', era.modern ? 404 : 200);
  }
  const state = ctx.state as McpState;
  const log = state.log ?? deps.logger;
  if (state.caller === undefined) throw new Error('mcp: bearer middleware did not set ctx.state.caller');
  const view = deps.readView(ctx.query, (name) => ctx.get(name) || undefined);
  let result: Record<string, unknown> | PreparedResult;
  try {
    result = await definition.handle({
      era,
      params,
      caller: state.caller,
      connectionWorkspaceId: state.connectionWorkspaceId,
      log,
      requestId: state.requestId ?? (ctx.response.get('request-id') || undefined),
      view,
    });
  } catch (error) {
    if (error instanceof JsonRpcError) throw error;
    // An outage, not a fault: HTTP 503 + Retry-After (rendered by the router's rejection middleware).
    if (isDatabaseUnavailable(error)) {
      logDatabaseUnavailable(log, error);
      throw databaseUnavailableRejection(id, databaseOutageReason(error));
    }
    // No stack, no internals on the wire (docs/protocol.md#tools); the cause goes to the log.
    log.error({ err: error, method }, 'mcp: method failed');
    throw new JsonRpcError(INTERNAL_ERROR, 'Internal error');
  }
  if (result instanceof PreparedResult) sendPrepared(ctx, id, result);
  else sendResult(ctx, id, shapeResult(era, definition, result));
}
