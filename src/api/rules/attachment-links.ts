/**
 * What money records need from attachment links: how many attachments each record has
 * (`attachments_count`) and removing a record's links when the record is deleted. Linking and
 * the files themselves are the attachments operations' business.
 */
import { sql } from 'kysely';
import type { OperationContext } from '../context.js';
import { requireWorkspace } from '../records.js';
import type { AllocationParent } from './allocations.js';

export async function countAttachments(
  ctx: OperationContext, parentType: AllocationParent, parentIds: readonly string[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (parentIds.length === 0) return counts;
  const rows = await ctx.db.selectFrom('attachment_links')
    .select(['parent_id', sql<number | string>`count(*)`.as('n')])
    .where('workspace_id', '=', requireWorkspace(ctx)).where('parent_type', '=', parentType).where('parent_id', 'in', [...parentIds])
    .groupBy('parent_id').execute();
  for (const r of rows) counts.set(r.parent_id, Number(r.n));
  return counts;
}

export async function deleteAttachmentLinks(ctx: OperationContext, parentType: AllocationParent, parentId: string): Promise<void> {
  await ctx.db.deleteFrom('attachment_links')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('parent_type', '=', parentType).where('parent_id', '=', parentId)
    .execute();
}
