/**
 * The `/mcp` body cap, 14,680,064 bytes (docs/protocol.md#transport): a declared Content-Length above it is
 * refused before authentication; a body without (or with a false) Content-Length is cut while
 * streaming. The reading itself is `http/capped-body.ts`'s; no generic body parser.
 */
import type { IncomingMessage } from 'node:http';
import { declaresOversizedBody as declaresOver, readBodyWithinLimit as readWithin } from '../http/capped-body.js';

export const BODY_LIMIT_BYTES = 14_680_064;

/** Whether the request declares a body larger than the cap (checked before authentication). */
export function declaresOversizedBody(req: IncomingMessage): boolean {
  return declaresOver(req, BODY_LIMIT_BYTES);
}

/** The body bytes, or `null` once more than the cap arrived (the rest is drained unread). */
export function readBodyWithinLimit(req: IncomingMessage): Promise<Buffer | null> {
  return readWithin(req, BODY_LIMIT_BYTES);
}
