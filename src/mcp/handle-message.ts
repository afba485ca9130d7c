/**
 * One JSON-RPC message of `/mcp`: read the body (capped), parse it once, classify it, decide
 * the era, look the method up and answer. Every failure is thrown to the one funnel
 * (failure.ts), which the `exchange` tells what is known of the message: its id once read, the
 * method while its handler runs.
 */
import type { Logger } from 'pino';
import type { Caller } from '../api/index.js';
import type { AppContext as Context } from '../http/app-state.js';
import { readMetaTraceParent } from '../http/trace-context.js';
import { passThroughTracing, type TraceSpan, type Tracing } from '../http/tracing.js';
import { decideEra } from './era.js';
import type { Exchange } from './failure.js';
import type { HeaderReader } from './headers.js';
import { JsonRpcError, METHOD_NOT_FOUND, PARSE_ERROR, PreparedResult, classifyMessage, readMessageId, type JsonRpcId } from './json-rpc.js';
import type { MethodDefinition, MethodTable } from './methods/index.js';
import { readBodyWithinLimit } from './request-body.js';
import { BODY_TOO_LARGE, sendAccepted, sendError, sendPrepared, sendResult, setEraHeader, shapeResult } from './respond.js';
import type { QueryReader, ToolView } from './view.js';
import type { Era } from './versions.js';

export interface MessageDeps {
  readonly methods: MethodTable;
  readonly logger: Logger;
  /** The span of each request message; default pass-through. */
  readonly tracing?: Tracing | undefined;
  /** The request's view (view.ts); throws a JsonRpcError for a value it does not know. */
  readonly readView: (query: QueryReader, readHeader: HeaderReader) => ToolView;
}

/** Answers the message of an admitted request (the caller authenticated and within its protocol rate). */
export type MessageHandler = (ctx: Context, exchange: Exchange, caller: Caller) => Promise<void>;

/** The body as JSON; undefined when an answer was already sent (413, parse error). */
async function readMessageBody(ctx: Context): Promise<{ readonly body: unknown } | undefined> {
  const raw = await readBodyWithinLimit(ctx.req);
  if (raw === null) {
    // The rest of the body is drained unread (request-body.ts), so the client can finish
    // sending and read the 413 on a live connection.
    sendError(ctx, null, BODY_TOO_LARGE);
    return undefined;
  }
  try {
    return { body: JSON.parse(raw.toString('utf8')) };
  } catch {
    sendError(ctx, null, new JsonRpcError(PARSE_ERROR, 'Parse error', 400));
    return undefined;
  }
}

export function handleMessage(deps: MessageDeps): MessageHandler {
  return async function handleMcpMessage(ctx, exchange, caller) {
    const read = await readMessageBody(ctx);
    if (read === undefined) return;
    exchange.id = readMessageId(read.body);
    const message = classifyMessage(read.body);
    if (message.kind !== 'request') {
      sendAccepted(ctx);
      return;
    }
    exchange.id = message.id;
    const era = decideEra(message, (name) => ctx.get(name) || undefined);
    setEraHeader(ctx, era);
    await dispatchRequest(ctx, { deps, exchange, caller, era, id: message.id }, message.method, message.params ?? {});
  };
}

interface Dispatch {
  readonly deps: MessageDeps;
  readonly exchange: Exchange;
  readonly caller: Caller;
  readonly era: Era;
  readonly id: JsonRpcId;
}

function findMethod(methods: MethodTable, era: Era, method: string): MethodDefinition {
  const definition = Object.hasOwn(methods, method) ? methods[method] : undefined;
  if (definition !== undefined && (definition.eras === 'both' || definition.eras === (era.modern ? 'modern' : 'legacy'))) return definition;
  // Modern era: 404 (MCP 2026-07-28 §transports); 2025 era: in the body of a 200.
  throw new JsonRpcError(METHOD_NOT_FOUND, 'Method not found', era.modern ? 404 : 200);
}

/**
 * The span of one request message (OpenTelemetry's MCP conventions): the context in the message's
 * `params._meta` wins and is its parent, the HTTP span then a link; without one, the HTTP span is
 * its parent. Named by the method (`tools/call` adds the tool once it is found: src/mcp/tools/call.ts).
 */
function startMessageSpan(tracing: Tracing, httpSpan: TraceSpan | undefined, method: string, era: Era, params: Readonly<Record<string, unknown>>): TraceSpan {
  const remoteParent = readMetaTraceParent(params);
  return tracing.startSpan({
    name: method,
    kind: 'server',
    remoteParent,
    parent: remoteParent === undefined ? httpSpan : undefined,
    link: remoteParent === undefined ? undefined : httpSpan,
    attributes: { 'mcp.method.name': method, 'mcp.protocol.version': era.version, 'network.protocol.name': 'http' },
  });
}

async function dispatchRequest(ctx: Context, call: Dispatch, method: string, params: Readonly<Record<string, unknown>>): Promise<void> {
  const { deps, exchange, era, id } = call;
  const definition = findMethod(deps.methods, era, method);
  const { state } = ctx;
  const view = deps.readView(ctx.query, (name) => ctx.get(name) || undefined);
  exchange.method = method;
  const span = startMessageSpan(deps.tracing ?? passThroughTracing, state.span, method, era, params);
  let result: Awaited<ReturnType<MethodDefinition['handle']>>;
  try {
    result = await definition.handle({
      era,
      params,
      caller: call.caller,
      connectionWorkspaceId: state.connectionWorkspaceId,
      log: state.log ?? deps.logger,
      requestId: state.requestId ?? (ctx.response.get('request-id') || undefined),
      view,
      span,
    });
  } catch (error) {
    span.fail(error instanceof JsonRpcError ? String(error.code) : '_OTHER');
    throw error;
  } finally {
    span.end();
  }
  exchange.method = undefined;
  if (result instanceof PreparedResult) sendPrepared(ctx, id, result);
  else sendResult(ctx, id, shapeResult(era, definition, result));
}
