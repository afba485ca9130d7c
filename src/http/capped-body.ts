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
export function declaredBodyLength(req: IncomingMessage): number | null {
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
  // A declared body within the limit is read straight into one buffer of its size: no list of
  // socket chunks concatenated at the end, so a held body costs its size once, not twice.
  const whole = declared !== null && declared > 0 && declared <= limit ? Buffer.allocUnsafeSlow(declared) : null;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (declared === null && received <= limit) {
        try {
          reserveBodyMemory(req, chunk.length);
        } catch (error) {
          cleanup();
          chunks.length = 0;
          reject(error as Error);
          return;
        }
      }
      if (received > limit) {
        cleanup();
        // Keep the socket flowing so the client can read the refusal; nothing more is buffered.
        req.on('error', () => undefined);
        req.resume();
        resolve(null);
        return;
      }
      if (whole === null) {
        chunks.push(chunk);
        return;
      }
      // The HTTP parser delivers exactly Content-Length bytes; anything past it is kept anyway.
      const offset = received - chunk.length;
      const fits = Math.max(0, Math.min(chunk.length, whole.length - offset));
      if (fits > 0) chunk.copy(whole, offset, 0, fits);
      if (fits < chunk.length) chunks.push(chunk.subarray(fits));
    };
    const onEnd = (): void => {
      cleanup();
      if (whole !== null) {
        const head = whole.subarray(0, Math.min(received, whole.length));
        resolve(chunks.length === 0 ? head : Buffer.concat([head, ...chunks]));
        return;
      }
      resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, received));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    // Destroyed without an error (the connection cut at the shutdown deadline): never 'end'.
    const onClose = (): void => {
      if (req.complete) return;
      cleanup();
      reject(abortedBody());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
