/**
 * Checks that the records a money write refers to (person, account, category, transaction
 * direction) exist in the caller's workspace. A bad reference in a body is a business-rule
 * failure (UNPROCESSABLE_ENTITY), never NOT_FOUND, which is kept for the record in the path.
 * Cost-center checks live in allocations.ts.
 *
 * Each check locks the referenced row FOR SHARE (PostgreSQL; records.ts lockRow) before reading
 * it, so a concurrent delete of that row (which locks it FOR UPDATE, then looks for references)
 * either waits for this write and sees its reference, or wins and this check finds no row.
 */
import type { OperationContext } from '../context.js';
import { ApiError } from '../errors.js';
import { lockRow, requireWorkspace } from '../records.js';
import { isUuid } from '../../runtime/values.js';

export type CategoryType = 'debit' | 'credit';

function unprocessable(message: string): ApiError {
  return new ApiError('UNPROCESSABLE_ENTITY', message);
}

/** The person must exist in the workspace and not be soft-deleted. */
export async function requirePersonReference(ctx: OperationContext, id: unknown): Promise<string> {
  const message = 'The person does not exist in this workspace.';
  if (!isUuid(id)) throw unprocessable(message);
  await lockRow(ctx, 'people', id, 'share');
  const row = await ctx.db.selectFrom('people').select('id')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', id).where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw unprocessable(message);
  return id;
}

/** Reads `db` and the workspace only, so the confirmation can describe a transfer without a caller. */
export async function requireAccountReference(
  ctx: Pick<OperationContext, 'db' | 'workspaceId'>, id: unknown, field = 'financial_account_id',
): Promise<{ id: string; name: string }> {
  const message = `The account in ${field} does not exist in this workspace.`;
  if (!isUuid(id)) throw unprocessable(message);
  await lockRow(ctx, 'accounts', id, 'share');
  const row = await ctx.db.selectFrom('accounts').select(['id', 'name'])
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw unprocessable(message);
  return row;
}

/** Payables and debits take `debit` categories; receivables and credits take `credit` ones. */
export async function requireCategoryReference(ctx: OperationContext, id: unknown, type: CategoryType): Promise<string> {
  if (!isUuid(id)) throw unprocessable('The category does not exist in this workspace.');
  await lockRow(ctx, 'categories', id, 'share');
  const row = await ctx.db.selectFrom('categories').select(['id', 'type'])
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw unprocessable('The category does not exist in this workspace.');
  if (row.type !== type) throw unprocessable(`The category must be a ${type} category.`);
  return id;
}

/** Optional nullable references: undefined → unchanged, null → cleared, else checked. */
export async function readOptionalReference(
  value: unknown, check: (id: unknown) => Promise<unknown>,
): Promise<string | null | undefined> {
  if (value === undefined) return undefined;
  if (value === null) return null;
  await check(value);
  return value as string;
}
