/**
 * The content-addressed bytes of attachments (`blobs`, one row per workspace and SHA-256): store
 * once, load, and drop when no attachment of the workspace refers to them any more. Metadata
 * rows and links are the attachments operations' business; this module never touches them
 * except to ask whether a blob is still referenced.
 */
import type { Kysely } from 'kysely';
import type { OperationContext } from '../../context.js';
import { requireWorkspace } from '../../records.js';
import { isPostgres } from '../../../store/migrations/column-types.js';

/**
 * Locks the blob row (PostgreSQL) so an upload and a delete of the same bytes cannot interleave
 * across replicas: whoever locks second waits, then sees the other's committed outcome (READ
 * COMMITTED gives each statement a fresh snapshot). SQLite runs one write transaction at a
 * time, so a plain read is enough there. Returns whether the blob exists.
 */
async function lockBlob(ctx: OperationContext, sha256: string): Promise<boolean> {
  const query = ctx.db.selectFrom('blobs').select('sha256')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('sha256', '=', sha256);
  return (await (isPostgres(ctx.db as Kysely<unknown>) ? query.forUpdate() : query).executeTakeFirst()) !== undefined;
}

/** Call after inserting the attachment row that refers to the bytes. */
export async function storeBlob(ctx: OperationContext, sha256: string, bytes: Uint8Array): Promise<void> {
  if (await lockBlob(ctx, sha256)) return;
  // better-sqlite3 binds Buffers only; wrapping shares the memory instead of copying 10 MB.
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  await ctx.db.insertInto('blobs')
    .values({ workspace_id: requireWorkspace(ctx), sha256, size: bytes.byteLength, bytes: buffer, created_at: ctx.now().toISOString() })
    .onConflict((oc) => oc.columns(['workspace_id', 'sha256']).doNothing())
    .execute();
}

/** Call after deleting an attachment row: drops the bytes when nothing else refers to them. */
export async function deleteBlobIfUnused(ctx: OperationContext, sha256: string): Promise<void> {
  const workspaceId = requireWorkspace(ctx);
  if (!(await lockBlob(ctx, sha256))) return;
  await ctx.db.deleteFrom('blobs')
    .where('workspace_id', '=', workspaceId).where('sha256', '=', sha256)
    .where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('attachments').select('id').where('workspace_id', '=', workspaceId).where('sha256', '=', sha256),
    )))
    .execute();
}

/** The bytes, or undefined when they are gone. */
export async function loadBlob(ctx: OperationContext, sha256: string): Promise<Uint8Array | undefined> {
  const row = await ctx.db.selectFrom('blobs').select('bytes')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('sha256', '=', sha256)
    .executeTakeFirst();
  return row?.bytes;
}
