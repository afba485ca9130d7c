/**
 * Operation handlers for attachments (issue 7): upload, list, get, download, link, unlink and
 * delete. Bytes live once per workspace in `blobs` (content-addressed by SHA-256), metadata in
 * `attachments`, parents in `attachment_links`. Input checks live in src/api/rules/attachments/;
 * transports decide how a FileOutput reaches the caller (REST streams it, MCP shows metadata).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { AttachmentLinksTable, AttachmentsTable } from '../../store/schema.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import type { FileOutput, OperationContext, OperationHandler } from '../context.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { listColumns, listRecords, readListSpec, type AnySelect } from '../list.js';
import { auditJson, lockRow, requireWorkspace, translateConstraintError } from '../records.js';
import { deleteBlobIfUnused, loadBlob, storeBlob } from '../rules/attachments/blob-store.js';
import { checkUploadInput } from '../rules/attachments/upload-input.js';
import { defineOperations } from '../define-operations.js';

type AttachmentRow = Selectable<AttachmentsTable>;
type LinkRow = Selectable<AttachmentLinksTable>;
type ParentType = LinkRow['parent_type'];

const PARENT_TYPES: readonly ParentType[] = ['payable', 'receivable', 'transaction'];
const LABEL = 'Attachment';
const ALREADY_LINKED = 'The attachment is already linked to this record.';

function buildDownloadPath(id: string): string {
  return `/v1/attachments/${id}/download`;
}

function renderAttachment(row: AttachmentRow, links: readonly LinkRow[]): Record<string, unknown> {
  return {
    id: row.id,
    title: row.title,
    file_name: row.file_name,
    content_type: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    links: links.map((l) => ({ parent_type: l.parent_type, parent_id: l.parent_id, created_at: l.created_at })),
    ...auditJson(row),
  };
}

async function loadLinks(ctx: OperationContext, attachmentIds: readonly string[]): Promise<Map<string, LinkRow[]>> {
  const byAttachment = new Map<string, LinkRow[]>();
  if (attachmentIds.length === 0) return byAttachment;
  const rows = await ctx.db.selectFrom('attachment_links').selectAll()
    .where('workspace_id', '=', requireWorkspace(ctx))
    .where('attachment_id', 'in', attachmentIds)
    .orderBy('created_at').orderBy('id')
    .execute();
  for (const row of rows) byAttachment.set(row.attachment_id, [...(byAttachment.get(row.attachment_id) ?? []), row]);
  return byAttachment;
}

async function findAttachment(ctx: OperationContext, id: unknown): Promise<AttachmentRow> {
  if (typeof id !== 'string' || id === '') throw notFound(LABEL);
  const row = await ctx.db.selectFrom('attachments').selectAll()
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(LABEL);
  return row;
}

async function renderOne(ctx: OperationContext, row: AttachmentRow): Promise<Record<string, unknown>> {
  const links = await loadLinks(ctx, [row.id]);
  return renderAttachment(row, links.get(row.id) ?? []);
}

// ---- upload -----------------------------------------------------------------------------

const upload: OperationHandler = async (ctx, input) => {
  const workspaceId = requireWorkspace(ctx);
  const file = checkUploadInput(input);
  const sha256 = createHash('sha256').update(file.bytes).digest('hex');
  const row: AttachmentRow = {
    id: randomUUID(), workspace_id: workspaceId, sha256, file_name: file.fileName, title: file.title,
    content_type: file.contentType, size: file.bytes.byteLength, ...insertAudit(ctx),
  };
  // The metadata row first, then the blob: a concurrent delete of the last other reference
  // then sees this row and keeps the blob (see blob-store.ts lockBlob).
  await ctx.db.insertInto('attachments').values(row).execute();
  await storeBlob(ctx, sha256, file.bytes);
  await recordActivity(ctx, { operation: 'attachments.upload', resource: 'attachments', recordId: row.id });
  return { outcome: 'created', body: renderAttachment(row, []) };
};

// ---- read -------------------------------------------------------------------------------

/** `parent_type` / `parent_id` filters: attachments linked to that parent. */
function filterByLink(ctx: OperationContext, column: 'parent_type' | 'parent_id') {
  return (qb: AnySelect, operator: string, value: unknown): AnySelect => {
    const values = operator === 'in' ? (Array.isArray(value) ? value : String(value).split(',')) : [value];
    if (operator !== 'eq' && operator !== 'in') throw new ApiError('BAD_REQUEST', 'Unknown filter operator.');
    const valid = (v: unknown): boolean => typeof v === 'string' && (column === 'parent_id' || (PARENT_TYPES as readonly string[]).includes(v));
    if (!values.every(valid)) throw validationError([{ path: `filters.${column}`, message: column === 'parent_id' ? 'must be string' : `must be one of: ${PARENT_TYPES.join(', ')}` }]);
    return qb.where('id', 'in', ctx.db.selectFrom('attachment_links').select('attachment_id')
      .where('workspace_id', '=', requireWorkspace(ctx)).where(column, 'in', values as string[]));
  };
}

const list: OperationHandler = async (ctx, input) => {
  const body = await listRecords(ctx, input.list, readListSpec(ctx), {
    table: 'attachments',
    resourceLabel: LABEL,
    columns: listColumns({
      created_at: 'timestamp', updated_at: 'timestamp', file_name: 'string', title: 'string', content_type: 'string',
      size: 'integer', sha256: 'string',
    }),
    customFilters: { parent_type: filterByLink(ctx, 'parent_type'), parent_id: filterByLink(ctx, 'parent_id') },
    toJson: async (rows) => {
      const links = await loadLinks(ctx, rows.map((r) => r.id));
      return rows.map((r) => renderAttachment(r, links.get(r.id) ?? []));
    },
  });
  return { body };
};

const get: OperationHandler = async (ctx, input) => {
  const row = await findAttachment(ctx, input.path['id']);
  return { body: await renderOne(ctx, row) };
};

const download: OperationHandler = async (ctx, input) => {
  const row = await findAttachment(ctx, input.path['id']);
  // Each use of a download link is logged in the activity (docs/security.md#download-links).
  if (ctx.caller.channel === 'link') await recordActivity(ctx, { operation: 'attachments.download', resource: 'attachments', recordId: row.id });
  const file: FileOutput = {
    attachmentId: row.id,
    contentType: row.content_type,
    size: Number(row.size),
    fileName: row.file_name,
    sha256: row.sha256,
    downloadPath: buildDownloadPath(row.id),
    // Loaded only when a transport streams it: MCP never reads the bytes (issue 7).
    // GET operations run on the root handle (not a finished transaction), so it is still usable.
    bytes: async () => {
      const bytes = await loadBlob(ctx, row.sha256);
      if (!bytes) throw notFound(LABEL);
      return bytes;
    },
  };
  return {
    // Content-Disposition and Cache-Control are the REST renderer's (src/http/rest-render.ts).
    file,
    body: {
      id: row.id,
      content_type: file.contentType,
      size: file.size,
      file_name: file.fileName,
      sha256: file.sha256,
      download_path: file.downloadPath,
      note: 'The file is not included here. Download it with GET on download_path at the REST API, '
        + 'using a token issued for the API (an MCP token is not accepted there).',
    },
  };
};

// ---- links ------------------------------------------------------------------------------

function readParentType(value: unknown, path: string): ParentType {
  if (typeof value !== 'string' || !(PARENT_TYPES as readonly string[]).includes(value)) {
    throw validationError([{ path, message: `must be one of: ${PARENT_TYPES.join(', ')}` }]);
  }
  return value as ParentType;
}

/** The parent must exist in this workspace; another workspace's record is simply not found. */
async function assertParentExists(ctx: OperationContext, parentType: ParentType, parentId: string): Promise<void> {
  const workspaceId = requireWorkspace(ctx);
  // PostgreSQL: a parent being deleted concurrently is either waited for or seen gone.
  await lockRow(ctx, parentType === 'transaction' ? 'transactions' : 'titles', parentId, 'share');
  const found = parentType === 'transaction'
    ? await ctx.db.selectFrom('transactions').select('id').where('workspace_id', '=', workspaceId).where('id', '=', parentId).executeTakeFirst()
    : await ctx.db.selectFrom('titles').select('id').where('workspace_id', '=', workspaceId).where('kind', '=', parentType)
      .where('id', '=', parentId).executeTakeFirst();
  if (!found) throw notFound(parentType === 'payable' ? 'Payable' : parentType === 'receivable' ? 'Receivable' : 'Transaction');
}

async function findLink(ctx: OperationContext, attachmentId: string, parentType: ParentType, parentId: string): Promise<LinkRow | undefined> {
  return ctx.db.selectFrom('attachment_links').selectAll()
    .where('workspace_id', '=', requireWorkspace(ctx)).where('attachment_id', '=', attachmentId)
    .where('parent_type', '=', parentType).where('parent_id', '=', parentId)
    .executeTakeFirst();
}

/** Marks the attachment as changed (its `links` changed) and returns the fresh row. */
async function touchAttachment(ctx: OperationContext, id: string): Promise<AttachmentRow> {
  return ctx.db.updateTable('attachments').set(updateAudit(ctx))
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', id)
    .returningAll().executeTakeFirstOrThrow();
}

const link: OperationHandler = async (ctx, input) => {
  const workspaceId = requireWorkspace(ctx);
  // FOR UPDATE (PostgreSQL) before reading it: a concurrent delete either sees this link or wins first,
  // and links/unlinks of one attachment run one after the other (a shared lock here deadlocked two
  // links, each waiting to update the attachment the other held).
  if (typeof input.path['id'] === 'string') await lockRow(ctx, 'attachments', input.path['id'], 'update');
  const attachment = await findAttachment(ctx, input.path['id']);
  const body = (typeof input.body === 'object' && input.body !== null ? input.body : {}) as Record<string, unknown>;
  const parentType = readParentType(body['parent_type'], 'parent_type');
  const parentId = body['parent_id'];
  if (typeof parentId !== 'string' || parentId === '') throw validationError([{ path: 'parent_id', message: 'is required' }]);
  await assertParentExists(ctx, parentType, parentId);
  if (await findLink(ctx, attachment.id, parentType, parentId)) {
    throw new ApiError('CONFLICT', ALREADY_LINKED);
  }
  await ctx.db.insertInto('attachment_links').values({
    id: randomUUID(), workspace_id: workspaceId, attachment_id: attachment.id, parent_type: parentType, parent_id: parentId,
    created_at: ctx.now().toISOString(), created_by: ctx.caller.personId,
  }).execute().catch((err: unknown) => translateConstraintError(err, ALREADY_LINKED)); // a concurrent twin won the race
  const updated = await touchAttachment(ctx, attachment.id);
  await recordActivity(ctx, { operation: 'attachments.link', resource: 'attachments', recordId: attachment.id });
  return { outcome: 'created', body: await renderOne(ctx, updated) };
};

const unlink: OperationHandler = async (ctx, input) => {
  // Locked like link, so two unlinks of one link cannot both succeed.
  if (typeof input.path['id'] === 'string') await lockRow(ctx, 'attachments', input.path['id'], 'update');
  const attachment = await findAttachment(ctx, input.path['id']);
  const parentType = input.path['parent_type'];
  const parentId = input.path['parent_id'];
  if (!(PARENT_TYPES as readonly unknown[]).includes(parentType) || typeof parentId !== 'string') throw notFound('Link');
  const existing = await findLink(ctx, attachment.id, parentType as ParentType, parentId);
  if (!existing) throw notFound('Link');
  const removed = await ctx.db.deleteFrom('attachment_links')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', existing.id)
    .executeTakeFirst();
  // Gone meanwhile with its parent (a title or transaction delete removes its links).
  if (Number(removed.numDeletedRows) === 0) throw notFound('Link');
  await touchAttachment(ctx, attachment.id);
  await recordActivity(ctx, { operation: 'attachments.unlink', resource: 'attachments', recordId: attachment.id });
  return { outcome: 'deleted' };
};

// ---- delete -----------------------------------------------------------------------------

const remove: OperationHandler = async (ctx, input) => {
  const workspaceId = requireWorkspace(ctx);
  const attachment = await findAttachment(ctx, input.path['id']);
  // Links being written hold the attachment FOR UPDATE until they commit.
  await lockRow(ctx, 'attachments', attachment.id, 'update');
  const linked = await ctx.db.selectFrom('attachment_links').select('id')
    .where('workspace_id', '=', workspaceId).where('attachment_id', '=', attachment.id)
    .executeTakeFirst();
  if (linked) throw new ApiError('CONFLICT', 'The attachment is linked to a record; unlink it first.');
  await ctx.db.deleteFrom('attachments').where('workspace_id', '=', workspaceId).where('id', '=', attachment.id).execute();
  await deleteBlobIfUnused(ctx, attachment.sha256);
  await recordActivity(ctx, { operation: 'attachments.delete', resource: 'attachments', recordId: attachment.id });
  return { outcome: 'deleted' };
};

export const handlers = defineOperations({
  'attachments.list': list,
  'attachments.get': get,
  'attachments.upload': upload,
  'attachments.download': download,
  'attachments.link': link,
  'attachments.unlink': unlink,
  'attachments.delete': remove,
});
