/**
 * Reading request bodies under a hard byte cap, for every surface (`/mcp`, `/v1` JSON): a
 * declared Content-Length above the cap is refused before anything is read, and a body without
 * (or with a false) Content-Length is cut while streaming, at cap + 1 bytes. What a surface
 * answers to an oversized body is its own business; this module only reads and counts.
 *
 * It also keeps the process's body-memory budget (`MAX_INFLIGHT_BODY_BYTES`): the bytes of all
 * request bodies held at once. A body reserves its declared Content-Length before the first byte
 * is read (a chunked body reserves as it is read); when the budget cannot hold it the reader
 * throws a 503 `HttpError` with `Retry-After` (each surface renders it like its other transport
 * rejections) and discards the body unread. A reservation lasts until the response closes,
 * however the request ends (answered, failed, aborted).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './errors.js';

/** The budget of request-body bytes this process holds at once; a server tracks every request with it. */
export interface BodyMemory {
  readonly capBytes: number;
  /** Bytes reserved right now by requests that have not ended. */
  reservedBytes(): number;
  /** Lets `req` reserve from this budget; all it reserved is released when `res` closes. */
  track(req: IncomingMessage, res: ServerResponse): void;
}

interface Account {
  reserved: number;
  readonly tryAdd: (bytes: number) => boolean;
}

const accounts = new WeakMap<IncomingMessage, Account>();

export function createBodyMemory(capBytes: number): BodyMemory {
  let reserved = 0;
  return {
    capBytes,
    reservedBytes: () => reserved,
    track(req, res) {
      const account: Account = {
        reserved: 0,
        tryAdd(bytes) {
          if (reserved + bytes > capBytes) return false;
          reserved += bytes;
          account.reserved += bytes;
          return true;
        },
      };
      accounts.set(req, account);
      res.once('close', () => {
        reserved -= account.reserved;
        account.reserved = 0;
      });
    },
  };
}

/**
 * Reserves `bytes` more of the body-memory budget for `req`'s body. Over the budget: the body is
 * discarded unread and a 503 is thrown. A request no server tracks (a unit test's) is not limited.
 */
export function reserveBodyMemory(req: IncomingMessage, bytes: number): void {
  const account = accounts.get(req);
  if (account === undefined || account.tryAdd(bytes)) return;
  req.on('error', () => undefined);
  req.resume();
  // Connection: close — the unread rest of the body must not be taken for the next request.
  throw new HttpError(503, 'The server is busy reading other requests. Retry later.', { 'Retry-After': '1', Connection: 'close' }, 'body_memory_busy');
}

/** The declared Content-Length, or null when the body is chunked (or the header is not a number). */
function declaredBodyLength(req: IncomingMessage): number | null {
  const declared = req.headers['content-length'];
  if (declared === undefined) return null;
  const length = Number(declared);
  return Number.isFinite(length) && length >= 0 ? length : null;
}

/**
 * The readers' common first step: throws when the connection is already gone, else reserves the
 * declared Content-Length (at most `max`) from the body-memory budget (throwing its 503) and
 * returns it — null for a chunked body, which reserves as it is read.
 */
export function reserveDeclaredBody(req: IncomingMessage, max: number): number | null {
  if (req.destroyed) throw abortedBody();
  const declared = declaredBodyLength(req);
  if (declared !== null) reserveBodyMemory(req, Math.min(declared, max));
  return declared;
}

/** Thrown by the readers when the request's connection is already gone (shutdown deadline, client abort). */
export function abortedBody(): Error {
  return new Error('request aborted');
}

/** The media type of a Content-Type value, lower-cased and without parameters (`''` when absent). */
export function readMediaType(contentType: string | undefined): string {
  return ((contentType ?? '').split(';')[0] ?? '').trim().toLowerCase();
}

/** Whether the request declares a body larger than `limit` bytes. */
export function declaresOversizedBody(req: IncomingMessage, limit: number): boolean {
  return (declaredBodyLength(req) ?? 0) > limit;
}

/**
 * The body bytes, or `null` once more than `limit` bytes arrived (the rest is drained unread).
 * Throws the 503 of `reserveBodyMemory` when the process's body-memory budget is spent.
 */
export function readBodyWithinLimit(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  let declared: number | null;
  // A declared length is reserved whole, before reading (at most cap + 1: more is never held).
  try {
    declared = reserveDeclaredBody(req, limit + 1);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return new Promise((resolve, reject) => new CappedBodyReader(req, limit, declared, resolve, reject).start());
}

/**
 * One body being read under its cap. A declared body within the limit is read straight into one
 * buffer of its size: no list of socket chunks concatenated at the end, so a held body costs its
 * size once, not twice. Any other body is kept as its chunks.
 */
class CappedBodyReader {
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private readonly whole: Buffer | null;

  constructor(
    private readonly req: IncomingMessage,
    private readonly limit: number,
    /** The declared Content-Length (already reserved), or null for a chunked body, which reserves as it is read. */
    private readonly declared: number | null,
    private readonly resolve: (body: Buffer | null) => void,
    private readonly reject: (error: Error) => void,
  ) {
    this.whole = declared !== null && declared > 0 && declared <= limit ? Buffer.allocUnsafeSlow(declared) : null;
  }

  start(): void {
    this.req.on('data', this.onData);
    this.req.on('end', this.onEnd);
    this.req.on('error', this.onError);
    this.req.on('close', this.onClose);
  }

  private stop(): void {
    this.req.off('data', this.onData);
    this.req.off('end', this.onEnd);
    this.req.off('error', this.onError);
    this.req.off('close', this.onClose);
  }

  private readonly onData = (chunk: Buffer): void => {
    this.received += chunk.length;
    if (this.declared === null && this.received <= this.limit && !this.reserve(chunk)) return;
    if (this.received > this.limit) {
      this.stop();
      // Keep the socket flowing so the client can read the refusal; nothing more is buffered.
      this.req.on('error', () => undefined);
      this.req.resume();
      this.resolve(null);
      return;
    }
    this.keep(chunk);
  };

  /** A chunked body's bytes are reserved as they arrive; false (and the 503 rejected) when the budget is spent. */
  private reserve(chunk: Buffer): boolean {
    try {
      reserveBodyMemory(this.req, chunk.length);
      return true;
    } catch (error) {
      this.stop();
      this.chunks.length = 0;
      this.reject(error as Error);
      return false;
    }
  }

  private keep(chunk: Buffer): void {
    if (this.whole === null) {
      this.chunks.push(chunk);
      return;
    }
    // The HTTP parser delivers exactly Content-Length bytes; anything past it is kept anyway.
    const offset = this.received - chunk.length;
    const fits = Math.max(0, Math.min(chunk.length, this.whole.length - offset));
    if (fits > 0) chunk.copy(this.whole, offset, 0, fits);
    if (fits < chunk.length) this.chunks.push(chunk.subarray(fits));
  }

  private readonly onEnd = (): void => {
    this.stop();
    const { whole, chunks, received } = this;
    if (whole !== null) {
      const head = whole.subarray(0, Math.min(received, whole.length));
      this.resolve(chunks.length === 0 ? head : Buffer.concat([head, ...chunks]));
      return;
    }
    this.resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, received));
  };

  private readonly onError = (error: Error): void => {
    this.stop();
    this.reject(error);
  };

  /** Destroyed without an error (the connection cut at the shutdown deadline): never 'end'. */
  private readonly onClose = (): void => {
    if (this.req.complete) return;
    this.stop();
    this.reject(abortedBody());
  };
}
