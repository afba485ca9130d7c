/**
 * Reads the raw request body with the 14,680,064-byte cap (seed: Métodos): a declared
 * Content-Length above it is refused before anything else; a body without (or with a false)
 * Content-Length is cut while streaming, at cap + 1 bytes. No generic body parser.
 */
import type { IncomingMessage } from 'node:http';

export const BODY_LIMIT_BYTES = 14_680_064;

/** Whether the request declares a body larger than the cap (checked before authentication). */
export function declaresOversizedBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): boolean {
  const declared = req.headers['content-length'];
  if (declared === undefined) return false;
  const length = Number(declared);
  return Number.isFinite(length) && length > limit;
}

/** The body bytes, or `null` once more than `limit` bytes arrived (the rest is drained unread). */
export function readBodyWithinLimit(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<Buffer | null> {
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
        // Keep the socket flowing so the 413 can be read; nothing more is buffered.
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
