/**
 * The generic keyset list engine behind every `<resource>.list` (docs/domain.md#lists): limit,
 * opaque cursor on (sort value, id), sort, filters with value coercion per column kind, and
 * sparse `fields`. Always scoped to ctx.workspaceId. Resource modules describe their table
 * and JSON mapping; they never build paging SQL themselves.
 *
 *   listRecords<T>(ctx, query: ListQuery | undefined, spec: ListSpec, def: ListDefinition<T>)
 *     → Promise<{ data: object[]; meta: { next_cursor: string | null } }>
 *   ListDefinition = { table, resourceLabel, columns: {[apiField]: {column, kind}}, baseWhere?, customFilters?, toJson }
 *   readListSpec(ctx): ListSpec   // the route's spec (generated from openapi/v1.yaml), set by execute.ts
 */
import { sql, type Kysely, type SelectQueryBuilder, type Selectable, type Expression, type SqlBool } from 'kysely';
import type { Database } from '../store/schema.js';
import type { FilterOperator, JsonSchema, ListSpec, PageSize } from '../runtime/types.js';
import type { ListQuery, OperationContext } from './context.js';
import { ApiError, validationError } from './errors.js';
import { assertCursorFits, decodeCursor, encodeCursor } from './cursor.js';
import { MAX_IN_FILTER_VALUES } from '../runtime/tool-schema.js';
import { coerceFilterValue, isNumericKind, type ColumnKind } from './list-values.js';

export type { ColumnKind } from './list-values.js';

export interface ListColumn {
  readonly column: string;
  readonly kind: ColumnKind;
}

/** A list's columns, each named as its API field unless given as `{column, kind}`: `listColumns({id: 'uuid', amount: {column: 'amount_cents', kind: 'money'}})`. */
export function listColumns(columns: Readonly<Record<string, ColumnKind | ListColumn>>): Readonly<Record<string, ListColumn>> {
  return Object.fromEntries(Object.entries(columns).map(([field, c]) => [field, typeof c === 'string' ? { column: field, kind: c } : c]));
}

// Dynamic table/column names cannot be typed by Kysely; the builder is `any`-typed on purpose
// and every name comes from the resource module's static definition, never from input.
export type AnySelect = SelectQueryBuilder<any, any, any>;

export type CustomFilter = (qb: AnySelect, operator: FilterOperator, value: unknown) => AnySelect;

export interface ListDefinition<T extends keyof Database> {
  readonly table: T;
  readonly resourceLabel: string;
  /** API field → column (filters and sort fields must be here, or in customFilters). */
  readonly columns: Readonly<Record<string, ListColumn>>;
  /** Extra always-on conditions (e.g. `kind = 'payable'`, `deleted_at is null`). */
  readonly baseWhere?: (qb: AnySelect) => AnySelect;
  /** Filters that are not a plain column comparison; receive the raw (uncoerced) value. */
  readonly customFilters?: Readonly<Record<string, CustomFilter>>;
  readonly toJson: (rows: Selectable<Database[T]>[]) => Promise<object[]> | object[];
}

export interface ListResult {
  readonly data: object[];
  readonly meta: { readonly next_cursor: string | null };
}

const SORT_KEY = '__sort_key';

function badRequest(message: string): ApiError {
  return new ApiError('BAD_REQUEST', message);
}

/** The page's row count: `limit` within the list's declared page size, its default when absent. */
export function resolveLimit(limit: unknown, pageSize: PageSize): number {
  if (limit === undefined) return pageSize.default;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < pageSize.minimum || limit > pageSize.maximum) {
    throw validationError([{ path: 'limit', message: `must be an integer from ${pageSize.minimum} to ${pageSize.maximum}` }]);
  }
  return limit;
}

/** A filter name as it may appear in an answer: only a plain `a-z 0-9 _` name, at most 64 characters. */
function describeName(name: string): string {
  return /^[a-z][a-z0-9_]{0,63}$/.test(name) ? name : '(not a filter name)';
}

function resolveSort(sort: string, spec: ListSpec, columns: Readonly<Record<string, ListColumn>>) {
  const descending = sort.startsWith('-');
  const field = descending ? sort.slice(1) : sort;
  const column = Object.hasOwn(columns, field) ? columns[field] : undefined;
  if (!spec.sortFields.includes(field) || !column) throw badRequest('Unknown sort field.');
  return { field, descending, column };
}

/** Nulls sort differently on SQLite and PostgreSQL; a sentinel makes both (and the cursor) agree. */
function sortExpression(column: ListColumn): Expression<unknown> {
  return isNumericKind(column.kind) ? sql`coalesce(${sql.ref(column.column)}, -1)` : sql`coalesce(${sql.ref(column.column)}, '')`;
}

const COMPARATORS: Record<Exclude<FilterOperator, 'in'>, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** The values of an `in` filter: an array (MCP, REST after splitting) or comma-separated text. */
function readInList(raw: unknown): unknown[] {
  return Array.isArray(raw) ? raw : String(raw).split(',');
}

interface FilterStep {
  readonly name: string;
  readonly operator: FilterOperator;
  readonly raw: unknown;
  readonly schema: JsonSchema;
}

/**
 * Checks every filter's name, operator and `in` size before any filter is applied: custom
 * filters included, so no filter ever receives more than MAX_IN_FILTER_VALUES values (40,000 ids once
 * reached SQLite's variable limit as a 500).
 */
function checkFilters(query: ListQuery, spec: ListSpec): FilterStep[] {
  const steps: FilterStep[] = [];
  for (const [name, operators] of Object.entries(query.filters ?? {})) {
    // Own names only: `constructor` or `__proto__` must not resolve to something inherited.
    const allowed = Object.hasOwn(spec.filters, name) ? spec.filters[name] : undefined;
    if (!allowed) throw badRequest(`Unknown filter: ${describeName(name)}.`);
    if (operators === null || typeof operators !== 'object') throw badRequest('Unknown filter operator.');
    for (const [operator, raw] of Object.entries(operators) as [FilterOperator, unknown][]) {
      if (!allowed.operators.includes(operator)) throw badRequest('Unknown filter operator.');
      if (operator === 'in') {
        const list = readInList(raw);
        if (list.length === 0 || list.length > MAX_IN_FILTER_VALUES) {
          throw validationError([{ path: `filters.${name}.in`, message: `must list from 1 to ${MAX_IN_FILTER_VALUES} values` }]);
        }
        steps.push({ name, operator, raw: list, schema: allowed.schema });
      } else {
        steps.push({ name, operator, raw, schema: allowed.schema });
      }
    }
  }
  return steps;
}

function applyFilters<T extends keyof Database>(qb: AnySelect, query: ListQuery, spec: ListSpec, def: ListDefinition<T>): AnySelect {
  for (const { name, operator, raw, schema } of checkFilters(query, spec)) {
    const custom = def.customFilters && Object.hasOwn(def.customFilters, name) ? def.customFilters[name] : undefined;
    if (custom) {
      qb = custom(qb, operator, raw);
      continue;
    }
    const column = Object.hasOwn(def.columns, name) ? def.columns[name] : undefined;
    if (!column) throw badRequest('Unknown filter.');
    if (operator === 'in') {
      const values = (raw as unknown[]).map((v) => coerceFilterValue(v, column.kind, schema, `filters.${name}.in`));
      qb = qb.where(sql.ref(column.column), 'in', values);
    } else {
      const value = coerceFilterValue(raw, column.kind, schema, `filters.${name}.${operator}`);
      qb = qb.where(sql.ref(column.column), COMPARATORS[operator] as '=', value);
    }
  }
  return qb;
}

function pickFields(record: object, fields: readonly string[] | undefined): object {
  if (!fields) return record;
  const source = record as Record<string, unknown>;
  const picked: Record<string, unknown> = { id: source['id'] };
  for (const field of fields) if (field in source) picked[field] = source[field];
  return picked;
}

type ResolvedSort = ReturnType<typeof resolveSort>;

/** One list call, checked: its query, the route's vocabulary, the sort (as asked and resolved) and the page size. */
interface PageRequest {
  readonly q: ListQuery;
  readonly spec: ListSpec;
  readonly sortText: string;
  readonly sort: ResolvedSort;
  readonly limit: number;
}

/** Rows after the cursor's position in the sort's order (ties broken by id). */
function applyCursor(qb: AnySelect, cursor: string | undefined, sortText: string, sort: ResolvedSort, keyExpr: Expression<unknown>): AnySelect {
  if (cursor === undefined) return qb;
  const position = decodeCursor(cursor, sortText);
  assertCursorFits(position, sort.column.kind);
  // cmp is one of two literals, never input; values are bound parameters.
  const op = sql.raw(sort.descending ? '<' : '>');
  return qb.where(
    sql<SqlBool>`(${keyExpr} ${op} ${position.value} or (${keyExpr} = ${position.value} and ${sql.ref('id')} ${op} ${position.id}))`,
  );
}

/** The page's rows and one more (to know there are more), each with its sort key under SORT_KEY. */
async function readRows<T extends keyof Database>(
  ctx: OperationContext, workspaceId: string, request: PageRequest, def: ListDefinition<T>,
): Promise<Record<string, unknown>[]> {
  const { q, spec, sortText, sort, limit } = request;
  // See AnySelect: dynamic names come from static definitions only.
  const db = ctx.db as unknown as Kysely<any>;
  const keyExpr = sortExpression(sort.column);
  let qb: AnySelect = db
    .selectFrom(def.table)
    .selectAll()
    .select(sql`${keyExpr}`.as(SORT_KEY))
    .where('workspace_id', '=', workspaceId);
  if (def.baseWhere) qb = def.baseWhere(qb);
  qb = applyCursor(applyFilters(qb, q, spec, def), q.cursor, sortText, sort, keyExpr);
  const direction = sort.descending ? 'desc' : 'asc';
  const rows = (await qb.orderBy(keyExpr, direction).orderBy('id', direction).limit(limit + 1).execute()) as Record<string, unknown>[];
  return rows;
}

/** The records of the page, cut to `maxBytes` when set, and the cursor continuing after its last row. */
async function buildPage<T extends keyof Database>(rows: Record<string, unknown>[], request: PageRequest, def: ListDefinition<T>): Promise<ListResult> {
  const { q, sortText, sort, limit } = request;
  const page = rows.slice(0, limit);
  const keys = page.map((row) => row[SORT_KEY]);
  /** The cursor continuing after the row at `index` of the page. */
  const cursorAfter = (index: number): string => {
    const raw = keys[index];
    // PostgreSQL may return bigint as text; numeric kinds go back into the cursor as numbers.
    const value = isNumericKind(sort.column.kind) ? Number(raw) : String(raw);
    return encodeCursor({ sort: sortText, value, id: String(page[index]!['id']) });
  };
  for (const row of page) delete row[SORT_KEY];
  const records = await def.toJson(page as Selectable<Database[T]>[]);
  const data = records.map((r) => pickFields(r, q.fields));
  const kept = q.maxBytes === undefined ? data.length : countRowsWithin(data, q.maxBytes);
  if (kept < data.length) return { data: data.slice(0, kept), meta: { next_cursor: cursorAfter(kept - 1) } };
  return { data, meta: { next_cursor: rows.length > limit && page.length > 0 ? cursorAfter(page.length - 1) : null } };
}

export async function listRecords<T extends keyof Database>(
  ctx: OperationContext,
  query: ListQuery | undefined,
  spec: ListSpec,
  def: ListDefinition<T>,
): Promise<ListResult> {
  const workspaceId = ctx.workspaceId;
  if (!workspaceId) throw new Error('listRecords needs a workspace-scoped operation');
  const q: ListQuery = query ?? { filters: {} };
  const limit = resolveLimit(q.limit, spec.pageSize);
  const sortText = q.sort ?? spec.defaultSort;
  const sort = resolveSort(sortText, spec, def.columns);
  // `id` is always returned, so naming it is harmless.
  for (const field of q.fields ?? []) if (field !== 'id' && !spec.fields.includes(field)) throw badRequest('Unknown field in fields.');
  const request: PageRequest = { q, spec, sortText, sort, limit };
  return buildPage(await readRows(ctx, workspaceId, request, def), request, def);
}

/** How many leading rows fit in `maxBytes` of JSON (commas included); always at least one. */
function countRowsWithin(rows: readonly object[], maxBytes: number): number {
  let bytes = 0;
  for (let index = 0; index < rows.length; index++) {
    bytes += Buffer.byteLength(JSON.stringify(rows[index]), 'utf8') + 1;
    if (bytes > maxBytes) return Math.max(1, index);
  }
  return rows.length;
}

/** The context execute.ts builds carries the route's ListSpec (from the OpenAPI parameters). */
export interface ListAwareContext extends OperationContext {
  readonly listSpec?: ListSpec | null;
}

/**
 * The list vocabulary of the running operation: the route's, generated from the spec, which
 * execute.ts puts in the context. There is no hand-kept copy to fall back on (it would drift):
 * a list handler run any other way is a programming error.
 */
export function readListSpec(ctx: OperationContext): ListSpec {
  const spec = (ctx as ListAwareContext).listSpec;
  if (!spec) throw new Error('internal: a list operation ran without its route\'s list spec (run it through execute)');
  return spec;
}
