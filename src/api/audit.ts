/**
 * The audit trail of every write (docs/security.md#what-is-recorded): the created_/updated_ columns and the
 * activity log entry. Operations spread these into their insert/update values; this module
 * never decides what is written, only who/when/through which channel.
 *
 *   insertAudit(ctx): AuditColumns                        // created_* = updated_* = caller/now/channel, version 1
 *   updateAudit(ctx): {updated_at, updated_by, updated_via, version: sql`version + 1`}
 *   recordActivity(ctx, {operation, resource, recordId, details?}): Promise<void>   // one activity row in ctx.workspaceId (also a download link's use)
 */
import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { AuditColumns } from '../store/schema.js';
import type { OperationContext } from './context.js';

/**
 * The channel a write is recorded with. A download link only reads (docs/security.md#download-links):
 * a write reaching here on the `link` channel is a bug, stopped before anything is written.
 */
function writeChannel(ctx: OperationContext): AuditColumns['created_via'] {
  const { channel } = ctx.caller;
  if (channel === 'link') throw new Error('a download link cannot write');
  return channel;
}

export function insertAudit(ctx: OperationContext): AuditColumns {
  const now = ctx.now().toISOString();
  const channel = writeChannel(ctx);
  return {
    created_at: now,
    updated_at: now,
    created_by: ctx.caller.personId,
    updated_by: ctx.caller.personId,
    created_via: channel,
    updated_via: channel,
    version: 1,
  };
}

export interface UpdateAuditColumns {
  updated_at: string;
  updated_by: string;
  updated_via: AuditColumns['updated_via'];
  version: RawBuilder<number>;
}

export function updateAudit(ctx: OperationContext): UpdateAuditColumns {
  return {
    updated_at: ctx.now().toISOString(),
    updated_by: ctx.caller.personId,
    updated_via: writeChannel(ctx),
    // Incremented in SQL so concurrent writers never lose a bump.
    version: sql<number>`version + 1`,
  };
}

export interface ActivityEntry {
  /** operationId, e.g. `payables.settle`. */
  readonly operation: string;
  /** resource name as in the operationId, e.g. `payables`. */
  readonly resource: string;
  readonly recordId: string | null;
  /** Stored as JSON in `activity.details`: a configuration change's `{changes: [{field, old, new}]}`, a move's approver. */
  readonly details?: Readonly<Record<string, unknown>>;
}

export async function recordActivity(ctx: OperationContext, entry: ActivityEntry): Promise<void> {
  if (!ctx.workspaceId) throw new Error('recordActivity needs a workspace-scoped operation');
  await ctx.db
    .insertInto('activity')
    .values({
      id: randomUUID(),
      workspace_id: ctx.workspaceId,
      person_id: ctx.caller.personId,
      channel: ctx.caller.channel,
      operation: entry.operation,
      resource: entry.resource,
      record_id: entry.recordId,
      created_at: ctx.now().toISOString(),
      details: entry.details || ctx.activityDetails ? JSON.stringify({ ...ctx.activityDetails, ...entry.details }) : null,
    })
    .execute();
}
