/**
 * Small shared helpers for operation modules: loading one record of the current workspace
 * (NOT_FOUND otherwise), database constraint errors → ApiError, and the audit fields of the
 * JSON shape. Resource-specific JSON lives in each operation module.
 *
 *   requireWorkspace(ctx): string
 *   findInWorkspace(ctx, table, id, label, extra?): Promise<Selectable<row>>     // NOT_FOUND when absent/other workspace
 *   auditJson(row): {created_at, updated_at, created_by, updated_by, created_via, updated_via, version}
 *   isUniqueViolation(err) / isForeignKeyViolation(err): boolean
 *   translateConstraintError(err, conflictMessage): never                       // rethrows as CONFLICT or the original
 *   toBool(v): boolean ; isUuid(text): boolean
 *   lockRow(ctx, table, id, mode): Promise<void>                                 // FOR UPDATE / FOR SHARE on PostgreSQL, no-op on SQLite
 */
import type { Kysely, Selectable } from 'kysely';
import type { AuditColumns, Database } from '../store/schema.js';
import { isPostgres } from '../store/migrations/column-types.js';
import type { OperationContext } from './context.js';
import { ApiError, notFound } from './errors.js';
import { isUuid } from '../runtime/values.js';


export function requireWorkspace(ctx: Pick<OperationContext, 'workspaceId'>): string {
  if (!ctx.workspaceId) throw new Error('This operation needs a resolved workspace');
  return ctx.workspaceId;
}

type WorkspaceTable = 'companies' | 'accounts' | 'categories' | 'cost_centers' | 'people' | 'taxes' | 'titles'
  | 'transactions' | 'transfers' | 'attachments' | 'statement_lines' | 'reconciliations' | 'classification_rules';

export interface FindOptions {
  /** Soft-deleted rows are invisible (people, companies). */
  readonly excludeDeleted?: boolean;
  /** Extra equality conditions, e.g. `{kind: 'payable'}`. */
  readonly where?: Readonly<Record<string, string | number>>;
}

export async function findInWorkspace<T extends WorkspaceTable>(
  ctx: OperationContext, table: T, id: string, label: string, options: FindOptions = {},
): Promise<Selectable<Database[T]>> {
  const workspaceId = requireWorkspace(ctx);
  // A malformed id can never match; answer like any other missing record (never say why).
  if (!isUuid(id)) throw notFound(label);
  // Table names are a closed union; Kysely cannot type a generic table here.
  let qb = (ctx.db as unknown as Kysely<any>).selectFrom(table).selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id);
  if (options.excludeDeleted) qb = qb.where('deleted_at', 'is', null);
  for (const [column, value] of Object.entries(options.where ?? {})) qb = qb.where(column, '=', value);
  const row = await qb.executeTakeFirst();
  if (!row) throw notFound(label);
  return row as Selectable<Database[T]>;
}

/**
 * Row lock for check-then-act across replicas (PostgreSQL, READ COMMITTED). Finance references
 * between records are not foreign keys, so a delete locks its row FOR UPDATE before asking "is
 * it still referenced?", and a write that refers to a row locks it FOR SHARE when validating it.
 * Whoever locks second waits for the other's commit and then, with a fresh statement snapshot,
 * sees its outcome (the referencing row, or the row gone). Held until the operation's transaction
 * ends (execute.ts opens one for every write). SQLite runs one write transaction at a time and
 * has no `FOR UPDATE`, so this is a no-op there. A missing row locks nothing; the caller's own
 * lookup decides what that means.
 */
export async function lockRow(
  ctx: Pick<OperationContext, 'db' | 'workspaceId'>, table: WorkspaceTable, id: string, mode: 'update' | 'share',
): Promise<void> {
  const db = ctx.db as unknown as Kysely<any>;
  if (!isPostgres(db) || !isUuid(id)) return;
  const query = db.selectFrom(table).select('id').where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', id);
  await (mode === 'update' ? query.forUpdate() : query.forShare()).execute();
}

export function auditJson(row: AuditColumns): Record<string, string | number> {
  return {
    created_at: row.created_at,
    updated_at: row.updated_at,
    created_by: row.created_by,
    updated_by: row.updated_by,
    created_via: row.created_via,
    updated_via: row.updated_via,
    version: Number(row.version),
  };
}

export function toBool(value: unknown): boolean {
  return value === 1 || value === true || value === '1';
}

function readCode(err: unknown): string {
  const e = err as { code?: unknown } | null;
  return typeof e?.code === 'string' ? e.code : '';
}

export function isUniqueViolation(err: unknown): boolean {
  const code = readCode(err);
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(err: unknown): boolean {
  const code = readCode(err);
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Maps a constraint failure to CONFLICT (never echoing the values); rethrows anything else. */
export function translateConstraintError(err: unknown, conflictMessage: string): never {
  if (isUniqueViolation(err) || isForeignKeyViolation(err)) throw new ApiError('CONFLICT', conflictMessage, undefined, { cause: err });
  throw err;
}

/** The JSON body of a write as a plain object (schema validation already ran in execute). */
export function readBody(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

export function boolColumn(value: unknown): number {
  return value === true ? 1 : 0;
}
