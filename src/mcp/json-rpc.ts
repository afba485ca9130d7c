/**
 * The JSON-RPC 2.0 envelope of `/mcp`: the `JsonRpcError` family for protocol faults, the
 * shape check of one incoming message, and serialization of responses (with pre-serialized
 * fragments spliced in, so `tools/list` never re-serializes schemas). No HTTP, no eras.
 */
import zlib from 'node:zlib';
import { isPlainObject } from '../runtime/values.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
export const RESOURCE_NOT_FOUND = -32002;
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** Implementation-defined server error: the database is unreachable; sent on HTTP 503 with Retry-After. */
export const SERVICE_UNAVAILABLE = -32003;

export type JsonRpcId = string | number;

/** A protocol fault; `httpStatus` is the status the transport answers with (200 = in-band). */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly httpStatus = 200,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

/** A JSON fragment already serialized; `serializeResult` splices it in verbatim. */
export class RawJson {
  constructor(readonly json: string) {}
}

/** RFC 1952 §2.3: a gzip member header with no file name, no time and "unknown" OS. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0xff]);
/** RFC 1951 §3.2.4: a stored (uncompressed) block holds at most this many bytes. */
const STORED_BLOCK_MAX = 0xffff;

/**
 * A whole `result`, era shaping included, ready as bytes: `serializePrepared` puts the request's
 * id in front and copies the bytes once. `tools/list` answers with one (tools/catalog.ts).
 *
 * `gzip(id)` is the same response gzip-encoded without compressing anything per request: the
 * body `{"jsonrpc":"2.0","result":…,"id":` is deflated once, ending on a byte boundary (a sync
 * flush); each request appends its id and the closing brace as the final *stored* block, then
 * the trailer (the CRC-32 continued over those bytes, and the total length). The id comes last
 * in this form, which JSON allows (member order carries no meaning).
 */
export class PreparedResult {
  /** `,"result":<result>}` — everything after the id. */
  readonly tail: Buffer;
  #gzip: { readonly deflated: Buffer; readonly crc: number; readonly size: number } | undefined;
  constructor(resultJson: string) {
    this.tail = Buffer.from(`,"result":${resultJson}}`, 'utf8');
  }

  /**
   * The gzip-encoded response for `id`; undefined when the id does not fit one stored block, or
   * on a Node.js without `zlib.crc32` (before 20.15), where the response goes out uncompressed.
   */
  gzip(id: JsonRpcId): Buffer | undefined {
    const end = Buffer.from(`${JSON.stringify(id)}}`, 'utf8');
    if (end.length > STORED_BLOCK_MAX || crc32 === undefined) return undefined;
    this.#gzip ??= deflateOnce(Buffer.concat([GZIP_PREFIX, this.tail.subarray(0, -1), GZIP_ID_KEY]));
    const { deflated, crc, size } = this.#gzip;
    const out = Buffer.allocUnsafe(GZIP_HEADER.length + deflated.length + 5 + end.length + 8);
    let at = GZIP_HEADER.copy(out, 0);
    at += deflated.copy(out, at);
    // The final stored block: BFINAL=1, BTYPE=00, then LEN and its one's complement (little-endian).
    at = out.writeUInt8(0x01, at);
    at = out.writeUInt16LE(end.length, at);
    at = out.writeUInt16LE(~end.length & 0xffff, at);
    at += end.copy(out, at);
    at = out.writeUInt32LE(crc32(end, crc), at);
    out.writeUInt32LE((size + end.length) % 2 ** 32, at);
    return out;
  }
}

const GZIP_PREFIX = Buffer.from('{"jsonrpc":"2.0"', 'utf8');
const GZIP_ID_KEY = Buffer.from(',"id":', 'utf8');

/** Node.js 20.15+ and 22.2+; the engines field admits earlier 20.x releases. */
const crc32: ((data: Buffer, value?: number) => number) | undefined = typeof zlib.crc32 === 'function' ? zlib.crc32 : undefined;

function deflateOnce(body: Buffer): { deflated: Buffer; crc: number; size: number } {
  // Z_SYNC_FLUSH ends the stream on a byte boundary without a final block, so one can follow.
  return { deflated: zlib.deflateRawSync(body, { finishFlush: zlib.constants.Z_SYNC_FLUSH }), crc: crc32!(body), size: body.length };
}

const SUCCESS_HEAD = Buffer.from('{"jsonrpc":"2.0","id":', 'utf8');

export function serializePrepared(id: JsonRpcId, prepared: PreparedResult): Buffer {
  return Buffer.concat([SUCCESS_HEAD, Buffer.from(JSON.stringify(id), 'utf8'), prepared.tail]);
}

export type IncomingMessage =
  | { readonly kind: 'request'; readonly id: JsonRpcId; readonly method: string; readonly params: Readonly<Record<string, unknown>> | undefined }
  | { readonly kind: 'notification' }
  | { readonly kind: 'response' };

/** Classifies a parsed body; throws -32600 (HTTP 400) for anything that is not one JSON-RPC message. */
export function classifyMessage(body: unknown): IncomingMessage {
  if (Array.isArray(body)) {
    // Batching was removed in 2025-06-18; this server rejects it in every era (docs/protocol.md#transport).
    throw new JsonRpcError(INVALID_REQUEST, 'Invalid Request: batch requests are not supported', 400);
  }
  if (!isPlainObject(body) || body['jsonrpc'] !== '2.0') {
    throw new JsonRpcError(INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message', 400);
  }
  const hasId = Object.hasOwn(body, 'id');
  if (typeof body['method'] === 'string') {
    if (!hasId) return { kind: 'notification' };
    const id = body['id'];
    if (typeof id !== 'string' && (typeof id !== 'number' || !Number.isFinite(id))) {
      throw new JsonRpcError(INVALID_REQUEST, 'Invalid Request: id must be a string or a number', 400);
    }
    const params = body['params'];
    if (params !== undefined && !isPlainObject(params)) {
      throw new JsonRpcError(INVALID_REQUEST, 'Invalid Request: params must be an object', 400, undefined);
    }
    return { kind: 'request', id, method: body['method'], params };
  }
  if (hasId && (Object.hasOwn(body, 'result') || Object.hasOwn(body, 'error'))) return { kind: 'response' };
  throw new JsonRpcError(INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message', 400);
}

/** Reads the id of a message that failed classification, when it has a usable one. */
export function readMessageId(body: unknown): JsonRpcId | null {
  if (!isPlainObject(body)) return null;
  const id = body['id'];
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Top-level fields serialized in order; `RawJson` values are spliced in without re-serializing. */
export function serializeResult(result: Readonly<Record<string, unknown>>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (value === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${value instanceof RawJson ? value.json : JSON.stringify(value)}`);
  }
  return `{${parts.join(',')}}`;
}

export function serializeSuccess(id: JsonRpcId, result: Readonly<Record<string, unknown>>): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${serializeResult(result)}}`;
}

export function serializeError(id: JsonRpcId | null, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}
