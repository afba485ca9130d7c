/**
 * JavaScript work over rows in chunks (docs/domain.md#bounded-work): between two chunks the
 * event loop gets a turn (other requests, timers, health checks run) and the call's deadline is
 * checked, so a walk over many rows neither blocks the process nor outlives its request.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Deadline } from '../runtime/deadline.js';

/** Rows handled between two turns of the event loop. */
const CHUNK_ROWS = 500;

/** Calls `visit` on consecutive slices of `items`; throws DeadlineExceededError between slices once past the deadline. */
export async function forEachChunk<T>(items: readonly T[], deadline: Deadline, visit: (chunk: readonly T[]) => void, size: number = CHUNK_ROWS): Promise<void> {
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) {
      await yieldToEventLoop();
    }
    deadline.check();
    visit(items.slice(start, start + size));
  }
}
