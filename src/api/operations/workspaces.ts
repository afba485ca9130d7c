/**
 * workspaces.list: the workspaces of the caller's organization granted to the caller (not
 * workspace-scoped; docs/security.md#resolving-the-workspace — what an agent calls after `workspace_required`). A person
 * reaches a handful, so paging runs over the granted ids in memory with the usual cursor.
 */
import type { OperationHandler } from '../context.js';
import { ApiError } from '../errors.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { readListSpec, resolveLimit } from '../list.js';
import { defineOperations } from '../define-operations.js';

interface WorkspaceJson { id: string; name: string; organization_id: string }

function compareBy(descending: boolean) {
  return (a: { key: string; id: string }, b: { key: string; id: string }): number => {
    const order = a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return descending ? -order : order;
  };
}

const listWorkspaces: OperationHandler = async (ctx, input) => {
  const spec = readListSpec(ctx);
  const query = input.list ?? { filters: {} };
  if (Object.keys(query.filters ?? {}).length > 0) throw new ApiError('BAD_REQUEST', 'Unknown filter.');
  for (const field of query.fields ?? []) if (field !== 'id' && !spec.fields.includes(field)) throw new ApiError('BAD_REQUEST', 'Unknown field in fields.');
  const sort = query.sort ?? spec.defaultSort;
  const descending = sort.startsWith('-');
  if (!spec.sortFields.includes(descending ? sort.slice(1) : sort)) throw new ApiError('BAD_REQUEST', 'Unknown sort field.');

  const granted = ctx.caller.membership?.workspaceIds ?? [];
  const rows: WorkspaceJson[] = granted.length === 0 ? [] : await ctx.db.selectFrom('workspaces')
    .select(['id', 'name', 'organization_id'])
    .where('organization_id', '=', ctx.caller.organizationId).where('id', 'in', [...granted]).execute();
  const compare = compareBy(descending);
  let page = rows.map((w) => ({ key: w.name, id: w.id, row: w })).sort(compare);
  if (query.cursor !== undefined) {
    const position = decodeCursor(query.cursor, sort);
    const after = { key: String(position.value), id: position.id };
    page = page.filter((w) => compare(w, after) > 0);
  }
  const limit = resolveLimit(query.limit, spec.pageSize);
  const last = page.length > limit ? page[limit - 1] : undefined;
  const data = page.slice(0, limit).map(({ row }) => {
    if (!query.fields) return row;
    const picked: Record<string, unknown> = { id: row.id };
    for (const field of query.fields) picked[field] = row[field as keyof WorkspaceJson];
    return picked;
  });
  return { body: { data, meta: { next_cursor: last ? encodeCursor({ sort, value: last.key, id: last.id }) : null } } };
};

export const handlers = defineOperations({ 'workspaces.list': listWorkspaces });
