/**
 * "The database cannot answer right now" — told apart from every other failure, so the
 * transports answer it as an outage (REST `503 SERVICE_UNAVAILABLE`, MCP HTTP `503`, both with
 * `Retry-After`) instead of a `500`, and start-up knows what to wait out. Only the failure's
 * kind reaches logs (a SQLSTATE or a socket error code), never its message or parameters.
 *
 * Unavailable: PostgreSQL connection exceptions (SQLSTATE class 08), admin/crash shutdown and
 * "cannot connect now" (57P01–57P03), too many connections (53300), a cancelled statement
 * (57014: our `statement_timeout`), a deadlock or serialization failure (40P01, 40001, 55P03:
 * rolled back, safe to retry), refused/reset/unreachable sockets, the pool's connect
 * timeout, a terminated connection, the client-side read timeout; on SQLite a lock held past
 * `busy_timeout` (SQLITE_BUSY*); a prepared statement whose plan a schema change invalidated
 * (0A000 "cached plan must not change result type": db.ts names statements, and a migration by
 * another replica can add a column under them; the connection is replaced and a retry succeeds).
 *
 * Out of space is an outage too, told apart as `disk_full` (docs/operations.md#database-outages):
 * SQLite `SQLITE_FULL` (and any `SQLITE_FULL_*` extended code), PostgreSQL `53100` (disk_full),
 * Node's `ENOSPC`. Nothing was applied (the write's transaction rolled back), the request is not
 * at fault, and the replica's `/readyz` runs a write probe until space is back (write-probe.ts).
 * The rest of class 53 is not: `53000`, `53200` (out of memory) and `53400` (configuration
 * limit exceeded) can fail the same statement every time, so a retry promise would be false,
 * and no probe could tell when they end; `53300` (too many connections) is above.
 */

import { DeadlineExceededError } from '../runtime/deadline.js';

/** Seconds a client is asked to wait before retrying after an outage answer. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** Why the database could not answer: out of space (`disk_full`) or any other outage (`database`). */
export type DatabaseOutageReason = 'database' | 'disk_full' | 'deadline';

/** The failure kinds that mean "no space left": a write fails until an operator frees some. */
const SPACE_KINDS = new Set(['SQLITE_FULL', '53100', 'ENOSPC']);

/**
 * Also the transient concurrency failures (40P01 deadlock, 40001 serialization failure, 55P03
 * lock not available): PostgreSQL rolled the transaction back, so nothing was applied and the
 * same request can simply be retried — a 503 + Retry-After says exactly that, a 500 would not.
 */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '53300', '40P01', '40001', '55P03']);

const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** node-postgres and pg-pool raise these without a code; the texts are theirs, stable across 8.x. */
const UNAVAILABLE_DRIVER_MESSAGES: ReadonlyMap<string, string> = new Map([
  ['Connection terminated unexpectedly', 'connection_terminated'],
  ['Connection terminated', 'connection_terminated'],
  ['Connection terminated due to connection timeout', 'connect_timeout'],
  ['timeout exceeded when trying to connect', 'connect_timeout'],
  ['Query read timeout', 'read_timeout'],
  ['Client has encountered a connection error and is not queryable', 'connection_terminated'],
]);

/** The one 0A000 (feature_not_supported) that is transient: PostgreSQL's text, stable across versions. */
const STALE_PLAN_MESSAGE = 'cached plan must not change result type';

function readCode(error: object): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The failure's kind when it means "the database is unreachable or overloaded right now", else null. */
function classify(error: unknown, depth: number): string | null {
  if (error === null || typeof error !== 'object' || depth > 4) return null;
  // The request's own deadline (src/runtime/deadline.ts) is answered as an outage too.
  if (error instanceof DeadlineExceededError) return 'deadline';
  const code = readCode(error);
  if (code !== undefined) {
    if (code.startsWith('08') && code.length === 5) return code;
    if (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code)) return code;
    if (code.startsWith('SQLITE_BUSY')) return code;
    if (SPACE_KINDS.has(code)) return code;
    if (code.startsWith('SQLITE_FULL_')) return code;
    if (code === '0A000' && error instanceof Error && error.message === STALE_PLAN_MESSAGE) return 'stale_plan';
  }
  if (error instanceof Error) {
    const kind = UNAVAILABLE_DRIVER_MESSAGES.get(error.message);
    if (kind !== undefined) return kind;
  }
  // Node reports a refused dual-stack connect as an AggregateError of the per-address errors.
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const kind = classify(inner, depth + 1);
      if (kind !== null) return kind;
    }
  }
  return classify((error as { cause?: unknown }).cause, depth + 1);
}

export function isDatabaseUnavailable(error: unknown): boolean {
  return classify(error, 0) !== null;
}

/** Loggable kind of an outage failure (`57P01`, `ECONNREFUSED`, `read_timeout`, …); never a message. */
export function databaseFailureKind(error: unknown): string {
  return classify(error, 0) ?? 'unknown';
}

/** Whether `error` means the database (or the disk under it) has no space left. */
export function isDiskFull(error: unknown): boolean {
  const kind = classify(error, 0);
  return kind !== null && (SPACE_KINDS.has(kind) || kind.startsWith('SQLITE_FULL_'));
}

/**
 * The `details.reason` of an outage answer: `deadline` when the request ran past
 * REQUEST_DEADLINE_MS (src/runtime/deadline.ts), `disk_full` when space ran out, else `database`.
 */
export function databaseOutageReason(error: unknown): DatabaseOutageReason {
  if (classify(error, 0) === 'deadline') return 'deadline';
  return isDiskFull(error) ? 'disk_full' : 'database';
}

/** The one log line of a request answered as an outage: the failure's kind and reason, no message, no values. */
export function logDatabaseUnavailable(log: { warn(obj: object, msg: string): void } | undefined, error: unknown): void {
  const reason = databaseOutageReason(error);
  log?.warn({ db_error: databaseFailureKind(error), reason }, reason === 'deadline' ? 'request deadline passed: answered 503' : 'database unavailable: answered 503');
}
