/**
 * The one place a failure on `/mcp` becomes a response, in one of two shapes
 * (docs/protocol.md#transport):
 *
 * - a JSON-RPC error on the status the fault carries: a `JsonRpcError` from any step, with the
 *   message's id once it was read; an unexpected failure inside a method handler, in-band on 200
 *   as `-32603` (no stack, no internals on the wire: the cause goes to the log);
 * - an HTTP error: a transport rejection (`HttpError` from the gates, authentication, limits) with
 *   its status, headers and a `-32600`/`-32603` body with `id: null` (or its own body); the
 *   database unreachable at any step, 503 + Retry-After naming the request when its id is known;
 *   anything else outside a method, 500 `-32603`.
 *
 * A client that went away before the answer gets nothing (a debug line, http/observability).
 */
import type { Logger } from 'pino';
import { HttpError } from '../http/errors.js';
import type { AppContext as Context } from '../http/app-state.js';
import { settleClientAbort } from '../http/observability.js';
import { databaseOutageReason, isDatabaseUnavailable, logDatabaseUnavailable } from '../store/db-unavailable.js';
import { INTERNAL_ERROR, INVALID_REQUEST, JsonRpcError, serializeError, type JsonRpcId } from './json-rpc.js';
import { databaseUnavailableRejection, sendError, sendJson } from './respond.js';

/** What is known of the message when something fails: its id once read, the method while its handler runs. */
export interface Exchange {
  id: JsonRpcId | null;
  method: string | undefined;
}

function sendRejection(ctx: Context, rejection: HttpError): void {
  ctx.set(rejection.headers);
  const code = rejection.status >= 500 ? INTERNAL_ERROR : INVALID_REQUEST;
  sendJson(ctx, rejection.status, rejection.body === undefined ? serializeError(null, code, rejection.message) : JSON.stringify(rejection.body));
}

/** An outage, not a fault: HTTP 503 + Retry-After at any step (retrying is safe). */
function sendOutage(ctx: Context, error: unknown, exchange: Exchange, log: Logger): void {
  logDatabaseUnavailable(log, error);
  sendRejection(ctx, databaseUnavailableRejection(exchange.id, databaseOutageReason(error)));
}

/** A method handler failed: answered in-band, like every error a method raises. */
function answerMethodFailure(ctx: Context, error: unknown, exchange: Exchange, log: Logger): void {
  if (isDatabaseUnavailable(error)) return sendOutage(ctx, error, exchange, log);
  log.error({ err: error, method: exchange.method }, 'mcp: method failed');
  sendError(ctx, exchange.id, new JsonRpcError(INTERNAL_ERROR, 'Internal error'));
}

/** The transport failed around the message: a rejection, the client gone, an outage, or a fault of ours. */
function answerTransportFailure(ctx: Context, error: unknown, exchange: Exchange, log: Logger): void {
  if (error instanceof HttpError) return sendRejection(ctx, error);
  // The client went away (e.g. mid-body): nothing to answer, a debug line (its ECONNRESET is no database outage).
  if (settleClientAbort(ctx, log, error)) return;
  // The database failed before the message was dispatched (e.g. loading the caller): an outage.
  if (isDatabaseUnavailable(error)) return sendOutage(ctx, error, exchange, log);
  log.error({ err: error }, 'mcp: unexpected failure');
  sendJson(ctx, 500, serializeError(null, INTERNAL_ERROR, 'Internal error'));
}

export function answerFailure(ctx: Context, error: unknown, exchange: Exchange, log: Logger): void {
  if (error instanceof JsonRpcError) return sendError(ctx, exchange.id, error);
  if (exchange.method !== undefined) return answerMethodFailure(ctx, error, exchange, log);
  answerTransportFailure(ctx, error, exchange, log);
}
