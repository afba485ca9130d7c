/**
 * categories.*: the three-level chart of accounts. Level is computed from the parent; a child's
 * type equals its parent's (inherited when omitted, mismatch → UNPROCESSABLE_ENTITY); deeper
 * than 3 → UNPROCESSABLE_ENTITY; delete with children → UNPROCESSABLE_ENTITY; in use → CONFLICT.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { CategoriesTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import { listRecords, readListSpec, type ListDefinition } from '../list.js';
import { auditJson, findInWorkspace, lockRow, readBody, requireWorkspace, translateConstraintError } from '../records.js';
import { defineOperations } from '../define-operations.js';

const LABEL = 'Category';
const MAX_CATEGORY_LEVEL = 3;
type CategoryRow = Selectable<CategoriesTable>;

function toCategoryJson(row: CategoryRow): Record<string, unknown> {
  return { id: row.id, name: row.name, type: row.type, parent_id: row.parent_id, level: Number(row.level), ...auditJson(row) };
}

const LIST: ListDefinition<'categories'> = {
  table: 'categories',
  resourceLabel: LABEL,
  columns: {
    id: { column: 'id', kind: 'uuid' },
    name: { column: 'name', kind: 'string' },
    type: { column: 'type', kind: 'string' },
    parent_id: { column: 'parent_id', kind: 'uuid' },
    level: { column: 'level', kind: 'integer' },
    created_at: { column: 'created_at', kind: 'timestamp' },
    updated_at: { column: 'updated_at', kind: 'timestamp' },
  },
  toJson: (rows) => rows.map(toCategoryJson),
};

function rule(message: string): ApiError {
  return new ApiError('UNPROCESSABLE_ENTITY', message);
}

/**
 * A parent named in the body must be a category of this workspace. Like every other id in a
 * request body, an unknown one (or another workspace's) is a rule failure, not a missing target.
 */
async function loadParent(ctx: OperationContext, parentId: unknown): Promise<CategoryRow | null> {
  if (parentId === null || parentId === undefined) return null;
  try {
    // FOR SHARE (PostgreSQL): a concurrent delete of the parent cannot miss this new child.
    await lockRow(ctx, 'categories', String(parentId), 'share');
    return await findInWorkspace(ctx, 'categories', String(parentId), 'Parent category');
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') throw rule('The parent category does not exist in this workspace.');
    throw err;
  }
}

async function loadChildren(ctx: OperationContext, id: string): Promise<CategoryRow[]> {
  return ctx.db.selectFrom('categories').selectAll()
    .where('workspace_id', '=', requireWorkspace(ctx)).where('parent_id', '=', id).execute();
}

function resolveType(body: Record<string, unknown>, parent: CategoryRow | null): CategoriesTable['type'] {
  const given = body['type'] as CategoriesTable['type'] | undefined;
  if (parent) {
    if (given !== undefined && given !== parent.type) throw rule("A category's type must equal its parent's type.");
    return parent.type;
  }
  const type = given;
  if (type === undefined) throw validationError([{ path: 'type', message: 'is required for a top-level category' }]);
  return type;
}

const listCategories: OperationHandler = async (ctx, input) => ({
  body: await listRecords(ctx, input.list, readListSpec(ctx), LIST),
});

const getCategory: OperationHandler = async (ctx, input) => ({
  body: toCategoryJson(await findInWorkspace(ctx, 'categories', input.path['id'] ?? '', LABEL)),
});

const createCategory: OperationHandler = async (ctx, input) => {
  const body = readBody(input.body);
  const parent = await loadParent(ctx, body['parent_id']);
  const level = parent ? Number(parent.level) + 1 : 1;
  if (level > MAX_CATEGORY_LEVEL) throw rule('The chart of accounts has at most three levels.');
  const row: CategoryRow = {
    id: randomUUID(),
    workspace_id: requireWorkspace(ctx),
    name: String(body['name']),
    type: resolveType(body, parent),
    parent_id: parent?.id ?? null,
    level,
    ...insertAudit(ctx),
  };
  await ctx.db.insertInto('categories').values(row).execute();
  await recordActivity(ctx, { operation: 'categories.create', resource: 'categories', recordId: row.id });
  return { outcome: 'created', body: toCategoryJson(row) };
};

/**
 * CategoryUpdate allows only `name` (openapi/v1.yaml): moving a category or changing its type
 * would reclassify every record filed under it, so the chart's shape changes by delete + create.
 */
const updateCategory: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'categories', input.path['id'] ?? '', LABEL);
  const body = readBody(input.body);
  await ctx.db.updateTable('categories')
    .set({ name: body['name'] === undefined ? current.name : String(body['name']), ...updateAudit(ctx) })
    .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
  await recordActivity(ctx, { operation: 'categories.update', resource: 'categories', recordId: current.id });
  return { body: toCategoryJson(await findInWorkspace(ctx, 'categories', current.id, LABEL)) };
};

const IN_USE = 'The category is in use by payables, receivables or transactions.';

const deleteCategory: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'categories', input.path['id'] ?? '', LABEL);
  const workspaceId = current.workspace_id;
  // Children and referencing writes hold the category FOR SHARE until they commit.
  await lockRow(ctx, 'categories', current.id, 'update');
  if ((await loadChildren(ctx, current.id)).length > 0) throw rule('The category has child categories; delete or move them first.');
  const used = await ctx.db.selectFrom('titles').select('id')
    .where('workspace_id', '=', workspaceId).where('category_id', '=', current.id).executeTakeFirst()
    ?? await ctx.db.selectFrom('transactions').select('id')
      .where('workspace_id', '=', workspaceId).where('category_id', '=', current.id).executeTakeFirst();
  if (used) throw new ApiError('CONFLICT', IN_USE);
  try {
    await ctx.db.deleteFrom('categories').where('workspace_id', '=', workspaceId).where('id', '=', current.id).execute();
  } catch (err) {
    translateConstraintError(err, IN_USE);
  }
  await recordActivity(ctx, { operation: 'categories.delete', resource: 'categories', recordId: current.id });
  return { outcome: 'deleted' };
};

export const handlers = defineOperations({
  'categories.list': listCategories,
  'categories.get': getCategory,
  'categories.create': createCategory,
  'categories.update': updateCategory,
  'categories.delete': deleteCategory,
});
