/**
 * A clock a test moves by hand (src/runtime/clock.ts): `advance(ms)` instead of sleeping past
 * an expiry or a window.
 */
import type { Clock } from '../../src/runtime/clock.js';

export interface ManualClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

export function createManualClock(startMs: number = Date.now()): ManualClock {
  let current = startMs;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
    set(ms) {
      current = ms;
    },
  };
}
