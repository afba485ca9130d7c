/**
 * The worker thread that parses one OFX file (ofx-thread.ts starts it): the parse of a file at
 * the contract's bounds takes a few hundred milliseconds of CPU and a few hundred megabytes,
 * here instead of on the server's event loop. Receives `{bytes, maxLines}`, answers
 * `{lines}` or `{failure}` — the kind of failure, never a message of the library.
 */
import { parentPort } from 'node:worker_threads';
import { OfxBoundExceeded, OfxParseFailure, parseOfxStatement, type OfxLine } from './ofx.js';

export type OfxWorkerAnswer =
  | { readonly lines: OfxLine[] }
  | { readonly failure: 'unreadable' }
  | { readonly failure: 'bound'; readonly bound: 'max_tags' | 'max_lines'; readonly limit: number };

function answer(bytes: Uint8Array, maxLines: number): OfxWorkerAnswer {
  try {
    return { lines: parseOfxStatement(bytes, maxLines) };
  } catch (err) {
    if (err instanceof OfxBoundExceeded) return { failure: 'bound', bound: err.bound, limit: err.limit };
    if (err instanceof OfxParseFailure) return { failure: 'unreadable' };
    throw err;
  }
}

parentPort?.once('message', (message: { bytes: Uint8Array; maxLines: number }) => {
  parentPort?.postMessage(answer(message.bytes, message.maxLines));
});
