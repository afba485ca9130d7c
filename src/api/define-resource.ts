/**
 * defineResource: the plain CRUD of one finance resource — `<resource>.list`, `.get`, `.create`,
 * `.update`, `.delete` — declared once instead of written out per module. A resource module says
 * what is its own (its list columns, its JSON, the columns a create writes and an update changes,
 * how a delete is refused); the steps every resource shares are here, in one order:
 *
 *   list    the list engine over `columns` (soft-deleted rows left out)
 *   get     the record of the workspace (NOT_FOUND otherwise), answered by `readJson`
 *   create  `create(ctx, body)` → insert id + workspace + its columns + audit → activity → `createdJson`
 *   update  the record → `update(ctx, body, current)` → update with audit → activity → re-read → `readJson`
 *   delete  'hard' | 'soft' (sets deleted_at) | {findUse, inUse}: locked FOR UPDATE, CONFLICT while in use
 *
 * An operation is declared only when its hook is (a resource without `delete` has no delete); the
 * result is a `defineOperations` map, so a module may add operations of its own beside it.
 *
 *   export const handlers = defineResource({ resource: 'taxes', label: 'Tax', columns, toJson, create, update, delete: 'hard' });
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { AuditColumns, Database } from '../store/schema.js';
import type { OperationContext, OperationHandler } from './context.js';
import { ApiError } from './errors.js';
import { insertAudit, recordActivity, updateAudit } from './audit.js';
import { listRecords, readListSpec, type ListColumn, type ListDefinition } from './list.js';
import { findInWorkspace, lockRow, readBody, requireWorkspace, translateConstraintError } from './records.js';
import { defineOperations, type OperationHandlers } from './define-operations.js';

/** The tables whose resource is plain CRUD, each named as its operations (`cost_centers.get`). */
export type ResourceTable = 'accounts' | 'categories' | 'classification_rules' | 'companies' | 'cost_centers' | 'people' | 'taxes';

/** A record of the resource's table (every one has its id and workspace). */
type Row<T extends ResourceTable> = Selectable<Database[T]> & { readonly id: string; readonly workspace_id: string };
type Json = Record<string, unknown>;
type Body = Record<string, unknown>;

/** What a create writes besides the id, the workspace and the audit columns. */
export type CreatedColumns<T extends ResourceTable> = Omit<Row<T>, 'id' | 'workspace_id' | keyof AuditColumns>;

/** How a record is deleted: removed, marked `deleted_at`, or removed unless something still uses it. */
export type DeleteRule<T extends ResourceTable> = 'hard' | 'soft' | {
  /** The CONFLICT message while the record is in use (also for a key violation the check missed). */
  readonly inUse: string;
  /** A row that uses the record, or undefined; runs with the record locked FOR UPDATE, and may refuse on its own. */
  readonly findUse: (ctx: OperationContext, current: Row<T>) => Promise<unknown>;
};

export interface ResourceDefinition<T extends ResourceTable> {
  /** The table, the operations' prefix and the activity log's resource. */
  readonly resource: T;
  /** The record's name in a NOT_FOUND answer (`Cost center`). */
  readonly label: string;
  /** Rows with `deleted_at` set are invisible to list, get, update and delete (people, companies). */
  readonly softDeleted?: boolean;
  /** API field → column of the list (filters and sort fields must be here). */
  readonly columns: Readonly<Record<string, ListColumn>>;
  readonly toJson: (row: Row<T>) => Json;
  /** The answer of get and update; `toJson` when absent (accounts add their balance). */
  readonly readJson?: (ctx: OperationContext, row: Row<T>) => Promise<Json>;
  /** The answer of create, from the row written; `toJson` when absent. */
  readonly createdJson?: (row: Row<T>) => Json;
  readonly create?: (ctx: OperationContext, body: Body) => Promise<CreatedColumns<T>> | CreatedColumns<T>;
  /** The columns a PATCH changes (absent in the body = unchanged); may refuse the change. */
  readonly update?: (ctx: OperationContext, body: Body, current: Row<T>) => Promise<Partial<Row<T>>> | Partial<Row<T>>;
  readonly delete?: DeleteRule<T>;
}

// Table names come from the definition (a closed union), never from input; Kysely cannot type a generic table.
function anyDb(ctx: OperationContext): Kysely<any> {
  return ctx.db as unknown as Kysely<any>;
}

function tableOf(def: { readonly resource: ResourceTable }): string {
  return def.resource;
}

function findRecord<T extends ResourceTable>(ctx: OperationContext, def: ResourceDefinition<T>, id: string | undefined): Promise<Row<T>> {
  return findInWorkspace(ctx, def.resource, id ?? '', def.label, { excludeDeleted: def.softDeleted === true }) as Promise<Row<T>>;
}

function readJsonOf<T extends ResourceTable>(def: ResourceDefinition<T>): (ctx: OperationContext, row: Row<T>) => Promise<Json> {
  return def.readJson ?? (async (_ctx, row) => def.toJson(row));
}

function logActivity(ctx: OperationContext, resource: ResourceTable, action: string, recordId: string): Promise<void> {
  return recordActivity(ctx, { operation: `${resource}.${action}`, resource, recordId });
}

function listHandler<T extends ResourceTable>(def: ResourceDefinition<T>): OperationHandler {
  const list: ListDefinition<T> = {
    table: def.resource,
    resourceLabel: def.label,
    columns: def.columns,
    ...(def.softDeleted ? { baseWhere: (qb) => qb.where('deleted_at', 'is', null) } : {}),
    toJson: (rows) => rows.map((row) => def.toJson(row as Row<T>)),
  };
  return async (ctx, input) => ({ body: await listRecords(ctx, input.list, readListSpec(ctx), list) });
}

function getHandler<T extends ResourceTable>(def: ResourceDefinition<T>): OperationHandler {
  const readJson = readJsonOf(def);
  return async (ctx, input) => ({ body: await readJson(ctx, await findRecord(ctx, def, input.path['id'])) });
}

function createHandler<T extends ResourceTable>(def: ResourceDefinition<T>, create: NonNullable<ResourceDefinition<T>['create']>): OperationHandler {
  const createdJson = def.createdJson ?? def.toJson;
  return async (ctx, input) => {
    const columns = await create(ctx, readBody(input.body));
    const row = { id: randomUUID(), workspace_id: requireWorkspace(ctx), ...columns, ...insertAudit(ctx) } as Row<T>;
    await anyDb(ctx).insertInto(tableOf(def)).values(row).execute();
    await logActivity(ctx, def.resource, 'create', row.id);
    return { outcome: 'created', body: createdJson(row) };
  };
}

function updateHandler<T extends ResourceTable>(def: ResourceDefinition<T>, update: NonNullable<ResourceDefinition<T>['update']>): OperationHandler {
  const readJson = readJsonOf(def);
  return async (ctx, input) => {
    const current = await findRecord(ctx, def, input.path['id']);
    const changes = await update(ctx, readBody(input.body), current);
    await anyDb(ctx).updateTable(tableOf(def)).set({ ...(changes as Json), ...updateAudit(ctx) })
      .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
    await logActivity(ctx, def.resource, 'update', current.id);
    return { body: await readJson(ctx, await findInWorkspace(ctx, def.resource, current.id, def.label) as Row<T>) };
  };
}

/** Removes (or, `soft`, marks deleted) one record that `current` names. */
async function removeRecord<T extends ResourceTable>(ctx: OperationContext, def: ResourceDefinition<T>, rule: DeleteRule<T>, current: Row<T>): Promise<void> {
  const db = anyDb(ctx);
  if (rule === 'soft') {
    await db.updateTable(tableOf(def)).set({ deleted_at: ctx.now().toISOString(), ...updateAudit(ctx) })
      .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
    return;
  }
  const remove = db.deleteFrom(tableOf(def)).where('workspace_id', '=', current.workspace_id).where('id', '=', current.id);
  if (rule === 'hard') {
    await remove.execute();
    return;
  }
  // Writes that refer to the record hold it FOR SHARE until they commit: the check below sees them.
  await lockRow(ctx, def.resource, current.id, 'update');
  if (await rule.findUse(ctx, current)) throw new ApiError('CONFLICT', rule.inUse);
  try {
    await remove.execute();
  } catch (err) {
    translateConstraintError(err, rule.inUse);
  }
}

function deleteHandler<T extends ResourceTable>(def: ResourceDefinition<T>, rule: DeleteRule<T>): OperationHandler {
  return async (ctx, input) => {
    const current = await findRecord(ctx, def, input.path['id']);
    await removeRecord(ctx, def, rule, current);
    await logActivity(ctx, def.resource, 'delete', current.id);
    return { outcome: 'deleted' };
  };
}

/** Rows of `table` that refer to a record by one of `columns` (any of them): a use that blocks its delete. */
export interface Reference {
  readonly table: keyof Database;
  readonly columns: readonly [string, ...string[]];
}

/** The first row that refers to `record` through one of `references`, in order, or undefined. */
export async function findReference(
  ctx: OperationContext, record: { readonly id: string; readonly workspace_id: string }, references: readonly Reference[],
): Promise<unknown> {
  for (const { table, columns } of references) {
    const scoped = anyDb(ctx).selectFrom(table).select('id').where('workspace_id', '=', record.workspace_id);
    const [column, ...others] = columns;
    const query = others.length === 0
      ? scoped.where(column, '=', record.id)
      : scoped.where((eb) => eb.or(columns.map((c) => eb(c, '=', record.id))));
    const row = await query.executeTakeFirst();
    if (row) return row;
  }
  return undefined;
}

/** The CRUD handlers of one resource, each under its operationId. */
export function defineResource<T extends ResourceTable>(def: ResourceDefinition<T>): OperationHandlers {
  const name = def.resource;
  return defineOperations({
    [`${name}.list`]: listHandler(def),
    [`${name}.get`]: getHandler(def),
    ...(def.create ? { [`${name}.create`]: createHandler(def, def.create) } : {}),
    ...(def.update ? { [`${name}.update`]: updateHandler(def, def.update) } : {}),
    ...(def.delete ? { [`${name}.delete`]: deleteHandler(def, def.delete) } : {}),
  });
}
