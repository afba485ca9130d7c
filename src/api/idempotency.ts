/**
 * Idempotency-Key storage (DOMAIN.md "Idempotency"): a request fingerprint and the stored
 * response, per workspace + person + key, for 24 h, in the database so every replica shares
 * it. Runs inside the operation's transaction; when to call it is execute.ts's business.
 *
 *   hashRequest(operationId, input): string
 *   findReplay(db, scope, hash, now): Promise<OperationOutput | null>   // CONFLICT when the key was used for another request
 *   storeResponse(db, scope, hash, output, now): Promise<void>
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { OperationInput, OperationOutput } from './context.js';
import { ApiError } from './errors.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const REPLAYED_HEADER = 'Idempotency-Replayed';

export interface IdempotencyScope {
  readonly workspaceId: string;
  readonly personId: string;
  readonly key: string;
  readonly operationId: string;
}

/** JSON with sorted keys, so `{a,b}` and `{b,a}` are the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Uint8Array) return JSON.stringify(createHash('sha256').update(value).digest('hex'));
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
  return {
    status: row.response_status,
    ...(row.response_body === null ? {} : { body: JSON.parse(row.response_body) as unknown }),
    headers: { [REPLAYED_HEADER]: 'true' },
  };
}

export async function storeResponse(db: Kysely<Database>, scope: IdempotencyScope, hash: string, output: OperationOutput, now: Date): Promise<void> {
  await db.insertInto('idempotency_keys').values({
    workspace_id: scope.workspaceId,
    person_id: scope.personId,
    key: scope.key,
    operation_id: scope.operationId,
    request_hash: hash,
    response_status: output.status,
    response_body: output.body === undefined ? null : JSON.stringify(output.body),
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
  }).execute();
}
