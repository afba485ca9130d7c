/**
 * categories.*: the three-level chart of accounts. Level is computed from the parent; a child's
 * type equals its parent's (inherited when omitted, mismatch → UNPROCESSABLE_ENTITY); deeper
 * than 3 → UNPROCESSABLE_ENTITY; delete with children → UNPROCESSABLE_ENTITY; in use → CONFLICT.
 */
import type { Selectable } from 'kysely';
import type { AuditColumns, CategoriesTable } from '../../store/schema.js';
import type { OperationContext } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { listColumns } from '../list.js';
import { auditJson, findInWorkspace, lockRow, requireWorkspace } from '../records.js';
import { defineResource, findReference } from '../define-resource.js';

const MAX_CATEGORY_LEVEL = 3;
type CategoryRow = Selectable<CategoriesTable>;

function toCategoryJson(row: CategoryRow): Record<string, unknown> {
  return { id: row.id, name: row.name, type: row.type, parent_id: row.parent_id, level: Number(row.level), ...auditJson(row) };
}

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

async function createColumns(ctx: OperationContext, body: Record<string, unknown>): Promise<Omit<CategoriesTable, 'id' | 'workspace_id' | keyof AuditColumns>> {
  const parent = await loadParent(ctx, body['parent_id']);
  const level = parent ? Number(parent.level) + 1 : 1;
  if (level > MAX_CATEGORY_LEVEL) throw rule('The chart of accounts has at most three levels.');
  return { name: String(body['name']), type: resolveType(body, parent), parent_id: parent?.id ?? null, level };
}

/** A use of the category: a title or a transaction filed under it; refused outright while it has children. */
async function findUse(ctx: OperationContext, current: CategoryRow): Promise<unknown> {
  if ((await loadChildren(ctx, current.id)).length > 0) throw rule('The category has child categories; delete or move them first.');
  return findReference(ctx, current, [{ table: 'titles', columns: ['category_id'] }, { table: 'transactions', columns: ['category_id'] }]);
}

export const handlers = defineResource({
  resource: 'categories',
  label: 'Category',
  columns: listColumns({
    id: 'uuid', name: 'string', type: 'string', parent_id: 'uuid', level: 'integer', created_at: 'timestamp', updated_at: 'timestamp',
  }),
  toJson: toCategoryJson,
  create: createColumns,
  /**
   * CategoryUpdate allows only `name` (openapi/v1.yaml): moving a category or changing its type
   * would reclassify every record filed under it, so the chart's shape changes by delete + create.
   */
  update: (_ctx, body, current) => ({ name: body['name'] === undefined ? current.name : String(body['name']) }),
  // Children and referencing writes hold the category FOR SHARE until they commit.
  delete: { inUse: 'The category is in use by payables, receivables or transactions.', findUse },
});
