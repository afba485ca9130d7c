/**
 * Idempotency-Key storage (docs/domain.md#idempotency): a request fingerprint and the stored
 * response, per workspace + person + key, for 24 h, in the database so every replica shares
 * it. Runs inside the operation's transaction; when to call it is execute.ts's business, and how
 * a replay shows is the transports' (REST: `Idempotency-Replayed`, MCP: `_meta`, docs/protocol.md).
 *
 *   hashRequest(operationId, input): string
 *   findReplay(db, scope, hash, now): Promise<OperationOutput | null>   // the stored body (and a pending approval's outcome); CONFLICT when the key was used for another request
 *   storeResponse(db, scope, hash, output, now, random?): Promise<void>   // and, 1 time in 100, purgeExpiredKeys
 *   purgeExpiredKeys(db, workspaceId, now, limit?): Promise<number>        // ≤ limit expired rows of one workspace
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { isPostgres } from '../store/migrations/column-types.js';
import type { OperationInput, OperationOutput } from './context.js';
import { ApiError } from './errors.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * Written to the `response_status` column: not an HTTP status (a replay answers the route's
 * generated success status like the first call did), but the one outcome a replay must repeat —
 * a money move that became an approval request (`pending_approval`: REST 202, the MCP note) — or 0.
 */
const ANSWERED_RECORD = 0;
const ANSWERED_APPROVAL_REQUEST = 1;

export interface IdempotencyScope {
  readonly workspaceId: string;
  readonly personId: string;
  readonly key: string;
  readonly operationId: string;
}

/** JSON with sorted keys, so `{a,b}` and `{b,a}` are the same request. */
/**
 * Strings longer than this stand in the canonical form by their own digest (a 10 MB file's base64
 * would otherwise be copied three times over — quoted, joined, encoded — for one hash).
 */
const DIGESTED_STRING_LENGTH = 4096;

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Uint8Array) return JSON.stringify(createHash('sha256').update(value).digest('hex'));
  // `#` starts no JSON value, so a digested string shares its canonical form with nothing else.
  if (typeof value === 'string' && value.length > DIGESTED_STRING_LENGTH) return `#${createHash('sha256').update(value).digest('hex')}`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function hashRequest(operationId: string, input: OperationInput): string {
  // Multipart uploads carry their bytes beside the body; they are part of "the same request".
  const upload = input.upload?.bytes;
  return createHash('sha256').update(canonicalJson({ operationId, path: input.path, query: input.query, body: input.body, upload })).digest('hex');
}

function conflict(): ApiError {
  return new ApiError('CONFLICT', 'This Idempotency-Key was already used with a different request.');
}

export async function findReplay(db: Kysely<Database>, scope: IdempotencyScope, hash: string, now: Date): Promise<OperationOutput | null> {
  const row = await db.selectFrom('idempotency_keys').selectAll()
    .where('workspace_id', '=', scope.workspaceId).where('person_id', '=', scope.personId).where('key', '=', scope.key)
    .executeTakeFirst();
  if (!row) return null;
  if (row.expires_at <= now.toISOString()) {
    await db.deleteFrom('idempotency_keys')
      .where('workspace_id', '=', scope.workspaceId).where('person_id', '=', scope.personId).where('key', '=', scope.key)
      .execute();
    return null;
  }
  if (row.request_hash !== hash || row.operation_id !== scope.operationId) throw conflict();
  const outcome = Number(row.response_status) === ANSWERED_APPROVAL_REQUEST ? { outcome: 'pending_approval' as const } : {};
  return row.response_body === null ? outcome : { ...outcome, body: JSON.parse(row.response_body) as unknown };
}

/** Share of stored responses that also purge expired keys of their workspace. */
export const PURGE_PROBABILITY = 0.01;
/** The most expired rows one purge deletes, so a purge costs one small statement however far behind it is. */
export const PURGE_BATCH = 100;

/**
 * Deletes at most `limit` expired keys of one workspace (the workspace guard wants every
 * statement on a finance table scoped, and a busy workspace purges its own keys). On
 * PostgreSQL rows another transaction holds are skipped, so concurrent purges never wait on
 * (or deadlock with) each other inside the caller's transaction. Returns how many went.
 */
export async function purgeExpiredKeys(db: Kysely<Database>, workspaceId: string, now: Date, limit = PURGE_BATCH): Promise<number> {
  const postgres = isPostgres(db as Kysely<unknown>);
  // A materialized CTE, not `IN (SELECT … LIMIT n)`: PostgreSQL may rescan such a subquery per
  // outer row, and with SKIP LOCKED each rescan finds the next n rows, so the limit would not hold.
  const result = await db
    .with((cte) => (postgres ? cte('expired').materialized() : cte('expired')), (qc) => {
      const expired = qc.selectFrom('idempotency_keys').select(['person_id', 'key'])
        .where('workspace_id', '=', workspaceId).where('expires_at', '<', now.toISOString())
        .limit(limit);
      return postgres ? expired.forUpdate().skipLocked() : expired;
    })
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb(eb.refTuple('person_id', 'key'), 'in', eb.selectFrom('expired').select(['person_id', 'key']).$asTuple('person_id', 'key')))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function storeResponse(
  db: Kysely<Database>, scope: IdempotencyScope, hash: string, output: OperationOutput, now: Date, random: () => number = Math.random,
): Promise<void> {
  // Nothing else ever deletes keys nobody reuses: a cheap, bounded purge on a share of writes.
  if (random() < PURGE_PROBABILITY) await purgeExpiredKeys(db, scope.workspaceId, now);
  await db.insertInto('idempotency_keys').values({
    workspace_id: scope.workspaceId,
    person_id: scope.personId,
    key: scope.key,
    operation_id: scope.operationId,
    request_hash: hash,
    response_status: output.outcome === 'pending_approval' ? ANSWERED_APPROVAL_REQUEST : ANSWERED_RECORD,
    response_body: output.body === undefined ? null : JSON.stringify(output.body),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
  }).execute();
}
