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
 */
import type { Kysely, Selectable } from 'kysely';
import type { AuditColumns, Database } from '../store/schema.js';
import type { OperationContext } from './context.js';
import { ApiError, notFound } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(text: unknown): text is string {
  return typeof text === 'string' && UUID.test(text);
}

export function requireWorkspace(ctx: Pick<OperationContext, 'workspaceId'>): string {
  if (!ctx.workspaceId) throw new Error('This operation needs a resolved workspace');
  return ctx.workspaceId;
}

type WorkspaceTable = 'companies' | 'accounts' | 'categories' | 'cost_centers' | 'people' | 'taxes' | 'titles'
  | 'transactions' | 'transfers' | 'attachments';

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
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let qb = (ctx.db as unknown as Kysely<any>).selectFrom(table).selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id);
  if (options.excludeDeleted) qb = qb.where('deleted_at', 'is', null);
  for (const [column, value] of Object.entries(options.where ?? {})) qb = qb.where(column, '=', value);
  const row = await qb.executeTakeFirst();
  if (!row) throw notFound(label);
  return row as Selectable<Database[T]>;
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

/** Only the keys present in the body, mapped to columns (PATCH semantics: absent = unchanged). */
export function pickPresent(body: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (key in body && body[key] !== undefined) out[key] = body[key];
  return out;
}

export function boolColumn(value: unknown): number {
  return value === true ? 1 : 0;
}
