/**
 * Reading request bodies under a hard byte cap, for every surface (`/mcp`, `/v1` JSON): a
 * declared Content-Length above the cap is refused before anything is read, and a body without
 * (or with a false) Content-Length is cut while streaming, at cap + 1 bytes. What a surface
 * answers to an oversized body is its own business; this module only reads and counts.
 */
import type { IncomingMessage } from 'node:http';

/** The media type of a Content-Type value, lower-cased and without parameters (`''` when absent). */
export function readMediaType(contentType: string | undefined): string {
  return ((contentType ?? '').split(';')[0] ?? '').trim().toLowerCase();
}

/** Whether the request declares a body larger than `limit` bytes. */
export function declaresOversizedBody(req: IncomingMessage, limit: number): boolean {
  const declared = req.headers['content-length'];
  if (declared === undefined) return false;
  const length = Number(declared);
  return Number.isFinite(length) && length > limit;
}

/** The body bytes, or `null` once more than `limit` bytes arrived (the rest is drained unread). */
export function readBodyWithinLimit(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) {
        cleanup();
        // Keep the socket flowing so the client can read the refusal; nothing more is buffered.
        req.on('error', () => undefined);
        req.resume();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, received));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
