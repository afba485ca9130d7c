/**
 * The deadline of one request (`REQUEST_DEADLINE_MS`, docs/operations.md#request-deadline): the
 * instant past which its work stops and the call is answered like a database outage (REST `503`
 * + `Retry-After` with `details.reason: "deadline"`, MCP HTTP `503` + `-32003`). Read from the
 * process's clock (src/runtime/clock.ts), so tests move time instead of waiting. Operations
 * that walk rows call `check()` between chunks; nothing interrupts a running statement on
 * SQLite, so the statements themselves are bounded by construction (docs/domain.md#bounded-work).
 * Data and one error class: no imports but the clock.
 */
import type { Clock } from './clock.js';

/** Thrown by `check()` past the deadline; the outage machinery answers it (src/store/db-unavailable.ts). */
export class DeadlineExceededError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The request ran past its deadline.', options);
    this.name = 'DeadlineExceededError';
  }
}

export interface Deadline {
  /** Epoch milliseconds past which the request's work stops. */
  readonly atMs: number;
  /** Milliseconds left (0 once past). */
  remainingMs(): number;
  expired(): boolean;
  /** Throws DeadlineExceededError once past the deadline. */
  check(): void;
}

export function createDeadline(clock: Clock, budgetMs: number): Deadline {
  const atMs = clock.now() + budgetMs;
  const remainingMs = (): number => Math.max(0, atMs - clock.now());
  return {
    atMs,
    remainingMs,
    expired: () => remainingMs() === 0,
    check() {
      if (remainingMs() === 0) throw new DeadlineExceededError();
    },
  };
}
