/**
 * The confirmation sentence for unlinking an attachment from a payable, receivable or
 * transaction (`x-kobana-confirm: {describer: attachment-link}`). The attachment's version is
 * the one bound: linking, unlinking and edits all bump it.
 */
import type { Kysely } from 'kysely';
import { notFound } from '../errors.js';
import type { Database } from '../../store/schema.js';
import { quoteName, readPathId, type DescribeRequest, type DescribeTarget } from './target.js';
import { mayRead } from '../authorize.js';
import { kindOfType } from '../omitted.js';

const PARENT_TYPES = ['payable', 'receivable', 'transaction'] as const;
type ParentType = (typeof PARENT_TYPES)[number];

async function findAttachment(db: Kysely<Database>, workspaceId: string, id: string): Promise<{ name: string; version: number }> {
  const row = id === '' ? undefined : await db.selectFrom('attachments').select(['file_name', 'title', 'version'])
    .where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Attachment');
  return { name: row.title ?? row.file_name, version: Number(row.version) };
}

async function nameParent(request: DescribeRequest, type: ParentType, id: string): Promise<string> {
  const { db, workspaceId } = request;
  if (!mayRead(request.caller, kindOfType(type))) return `a ${type}`;
  if (type === 'transaction') {
    const row = await db.selectFrom('transactions').select(['description', 'occurred_at'])
      .where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
    return row?.description ? `transaction ${quoteName(row.description)}` : `a transaction${row ? ` dated ${row.occurred_at}` : ''}`;
  }
  const row = await db.selectFrom('titles').select('description')
    .where('workspace_id', '=', workspaceId).where('id', '=', id).where('kind', '=', type).executeTakeFirst();
  return row ? `${type} ${quoteName(row.description)}` : `a ${type}`;
}

export const describeAttachmentUnlink: DescribeTarget = async (request) => {
  const { db, workspaceId, input } = request;
  const attachment = await findAttachment(db, workspaceId, readPathId(input));
  const parentType = input.path['parent_type'];
  const parentId = input.path['parent_id'] ?? '';
  if (!(PARENT_TYPES as readonly unknown[]).includes(parentType)) throw notFound('Link');
  const link = await db.selectFrom('attachment_links').select('id')
    .where('workspace_id', '=', workspaceId).where('attachment_id', '=', readPathId(input))
    .where('parent_type', '=', parentType as ParentType).where('parent_id', '=', parentId)
    .executeTakeFirst();
  if (!link) throw notFound('Link');
  const parent = await nameParent(request, parentType as ParentType, parentId);
  return { version: attachment.version, message: `Unlink attachment ${quoteName(attachment.name)} from ${parent}?` };
};
