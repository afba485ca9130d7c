/**
 * Writing `/mcp` responses: the headers every response carries (`Cache-Control: no-store`,
 * `MCP-Protocol-Version`), JSON-RPC bodies, 202 acknowledgements, and the era shaping of
 * results (`resultType`, `ttlMs`/`cacheScope`, `_meta` serverInfo — PROTOCOL.md §3).
 */
import type Koa from 'koa';
import { decodeHeaderValue } from './headers.js';
import { INVALID_REQUEST, JsonRpcError, RawJson, serializeError, serializeSuccess, type JsonRpcId } from './json-rpc.js';
import { BODY_LIMIT_BYTES } from './request-body.js';
import type { MethodDefinition } from './methods/index.js';
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

export function sendJson(ctx: Koa.Context, status: number, json: string): void {
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

/** The exact 413 body of PROTOCOL.md §1. */
export const BODY_TOO_LARGE = new JsonRpcError(INVALID_REQUEST, `Request body too large (limit ${BODY_LIMIT_BYTES} bytes)`, 413);

const SERVER_INFO_META = { [META_SERVER_INFO]: SERVER_INFO };

/** Adds what the modern era requires around a handler's result; the 2025 era gets it as is. */
export function shapeResult(era: Era, method: MethodDefinition, result: Record<string, unknown>): Record<string, unknown> {
  if (!era.modern) return result;
  const meta = result['_meta'];
  return {
    resultType: 'complete',
    ...result,
    ...(method.callerScoped ? { ttlMs: 0, cacheScope: 'private' } : {}),
    _meta: meta !== null && typeof meta === 'object' && !(meta instanceof RawJson) ? { ...meta, ...SERVER_INFO_META } : SERVER_INFO_META,
  };
}

export function sendResult(ctx: Koa.Context, id: JsonRpcId, result: Record<string, unknown>): void {
  sendJson(ctx, 200, serializeSuccess(id, result));
}
