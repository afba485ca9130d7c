/**
 * The one clock (docs/architecture.md#conventions): everything time-dependent — expiries,
 * windows, TTLs, "today" — reads the process's `Clock` instead of `Date.now()`, so tests move
 * time instead of sleeping past an expiry, and a window counted in the database is counted
 * with the application's instant passed into the SQL (replicas agree on it). Data only: no
 * imports.
 */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** `clock.now()` as a `Date`. */
export function clockDate(clock: Clock): Date {
  return new Date(clock.now());
}
