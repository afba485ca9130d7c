/**
 * Single use of a confirmation across replicas (docs/security.md#confirmation): the nonce is INSERTed into
 * `confirmation_nonces` (primary key) inside the write's own transaction, so it is burnt only
 * when the write commits. A duplicate key means the state already ran → `confirmation_replayed`;
 * any other store failure means single use cannot be guaranteed → `confirmation_unavailable`.
 */
import type { Kysely } from 'kysely';
import { ApiError } from '../errors.js';
import { isUniqueViolation } from '../records.js';
import type { Database } from '../../store/schema.js';

export interface NonceUse {
  readonly nonce: string;
  readonly workspaceId: string;
  readonly personId: string;
  readonly tool: string;
  /** Epoch seconds of the state's expiry; the row may be purged an hour after it. */
  readonly expiresAt: number;
}

/** Kept after expiry for clock skew between replicas; an expired state is refused before its nonce is read. */
const PURGE_MARGIN_MS = 60 * 60 * 1000;

function replayedError(): ApiError {
  return new ApiError('confirmation_replayed', 'This confirmation was already used; nothing was changed. Call the tool again to be asked anew.');
}

export function unavailableError(cause?: unknown): ApiError {
  return new ApiError('confirmation_unavailable', 'Single use of this confirmation cannot be guaranteed right now; nothing was changed. Try again shortly.', undefined, { cause });
}

/** Inserts the nonce with `db` (the write's transaction); throws confirmation_replayed / confirmation_unavailable. */
export async function consumeNonce(db: Kysely<Database>, use: NonceUse, now: Date): Promise<void> {
  try {
    await db.insertInto('confirmation_nonces').values({
      nonce: use.nonce,
      workspace_id: use.workspaceId,
      person_id: use.personId,
      tool: use.tool,
      consumed_at: now.toISOString(),
      expires_at: new Date(use.expiresAt * 1000).toISOString(),
    }).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw replayedError();
    throw unavailableError(error);
  }
}

/** Deletes this workspace's nonces whose states can no longer be opened. Best effort. */
export async function purgeExpiredNonces(db: Kysely<Database>, workspaceId: string, now: Date): Promise<void> {
  await db.deleteFrom('confirmation_nonces')
    .where('workspace_id', '=', workspaceId)
    .where('expires_at', '<', new Date(now.getTime() - PURGE_MARGIN_MS).toISOString())
    .execute();
}
