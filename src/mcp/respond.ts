/**
 * Writing `/mcp` responses: the headers every response carries (`Cache-Control: no-store`,
 * `MCP-Protocol-Version`), JSON-RPC bodies, 202 acknowledgements, and the era shaping of
 * results (`resultType`, `ttlMs`/`cacheScope`, `_meta` serverInfo — docs/protocol.md#modern-era-2026-07-28).
 */
import type Koa from 'koa';
import { serviceUnavailable, type ServiceUnavailableReason } from '../api/index.js';
import { HttpError } from '../http/errors.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../store/db-unavailable.js';
import { decodeHeaderValue } from './headers.js';
import { INVALID_REQUEST, JsonRpcError, RawJson, SERVICE_UNAVAILABLE, serializeError, serializePrepared, serializeSuccess, type JsonRpcId, type PreparedResult } from './json-rpc.js';
import { BODY_LIMIT_BYTES } from './request-body.js';
import type { MethodDefinition } from './methods/types.js';
import { DEFAULT_LEGACY_VERSION, META_SERVER_INFO, SERVER_INFO, isSupportedVersion, type Era } from './versions.js';

/**
 * Before the era is known (rejections, parse errors) the response names the version the
 * client asked for in its header when we speak it, else 2025-03-26 (the version a client
 * without the header is assumed to speak, MCP 2025-06-18 §transports).
 */
export function setPreEraHeaders(ctx: Koa.Context): void {
  const asked = ctx.get('mcp-protocol-version');
  const decoded = asked === '' ? null : decodeHeaderValue(asked);
  ctx.set('Cache-Control', 'no-store');
  ctx.set('MCP-Protocol-Version', decoded !== null && isSupportedVersion(decoded) ? decoded : DEFAULT_LEGACY_VERSION);
}

export function setEraHeader(ctx: Koa.Context, era: Era): void {
  ctx.set('MCP-Protocol-Version', era.version);
}

export function sendJson(ctx: Koa.Context, status: number, json: string | Buffer): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = json;
}

export function sendError(ctx: Koa.Context, id: JsonRpcId | null, error: JsonRpcError): void {
  sendJson(ctx, error.httpStatus, serializeError(id, error.code, error.message, error.data));
}

/** Notifications and client responses: 202, empty body (both eras). */
export function sendAccepted(ctx: Koa.Context): void {
  ctx.body = null;
  // Setting the body to null turns the status into 204; set 202 afterwards.
  ctx.status = 202;
}

/** Seed (Encabezados de la solicitud): `Content-Type: application/json` is required. */
export const UNSUPPORTED_MEDIA_TYPE = new JsonRpcError(INVALID_REQUEST, 'Content-Type must be application/json', 415);

/** The exact 413 body of docs/protocol.md#transport. */
export const BODY_TOO_LARGE = new JsonRpcError(INVALID_REQUEST, `Request body too large (limit ${BODY_LIMIT_BYTES} bytes)`, 413);

/**
 * The database cannot answer (or the request ran past its deadline: `reason` "deadline"), at any
 * step of any method: HTTP 503 + Retry-After (a transport
 * rejection, like an unreachable Account), with a JSON-RPC error naming the request when its id
 * is known and carrying the API's `SERVICE_UNAVAILABLE` envelope in `data`. Never -32603:
 * nothing is wrong with the request, and retrying is safe.
 */
export function databaseUnavailableRejection(id: JsonRpcId | null, reason: ServiceUnavailableReason): HttpError {
  const envelope = serviceUnavailable(DATABASE_RETRY_AFTER_SECONDS, reason).toEnvelope();
  const body = { jsonrpc: '2.0', id, error: { code: SERVICE_UNAVAILABLE, message: envelope.error.message, data: envelope } };
  return new HttpError(503, envelope.error.message, { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) }, 'database_unavailable', body);
}

const SERVER_INFO_META = { [META_SERVER_INFO]: SERVER_INFO };
/** The same `_meta`, serialized once: most results carry no `_meta` of their own. */
const SERVER_INFO_META_JSON = new RawJson(JSON.stringify(SERVER_INFO_META));

/** Adds what the modern era requires around a handler's result; the 2025 era gets it as is. */
export function shapeResult(era: Era, method: Pick<MethodDefinition, 'callerScoped'>, result: Record<string, unknown>): Record<string, unknown> {
  if (!era.modern) return result;
  const meta = result['_meta'];
  return {
    resultType: 'complete',
    ...result,
    ...(method.callerScoped ? { ttlMs: 0, cacheScope: 'private' } : {}),
    _meta: meta === undefined ? SERVER_INFO_META_JSON : meta !== null && typeof meta === 'object' && !(meta instanceof RawJson) ? { ...meta, ...SERVER_INFO_META } : SERVER_INFO_META,
  };
}

export function sendResult(ctx: Koa.Context, id: JsonRpcId, result: Record<string, unknown>): void {
  sendJson(ctx, 200, serializeSuccess(id, result));
}

/**
 * A result already shaped and serialized (PreparedResult): only the id is written per request,
 * gzip-encoded when the client accepts it (fetch-based clients do by default; the admin's
 * tools/list is ~100 KB of JSON and ~10x smaller compressed).
 */
export function sendPrepared(ctx: Koa.Context, id: JsonRpcId, prepared: PreparedResult): void {
  ctx.vary('Accept-Encoding');
  const gzipped = ctx.acceptsEncodings('gzip', 'identity') === 'gzip' ? prepared.gzip(id) : undefined;
  if (gzipped === undefined) {
    sendJson(ctx, 200, serializePrepared(id, prepared));
    return;
  }
  ctx.set('Content-Encoding', 'gzip');
  sendJson(ctx, 200, gzipped);
}
