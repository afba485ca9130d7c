/**
 * Scoped lookups behind completions: record ids whose label (description, name, file name)
 * or id starts with the typed text, and account names. Every query is bound to workspaces the
 * caller was already checked to reach (and goes through the store's workspace guard) and to a
 * table whose read operation the caller may run; deciding that is the provider's job. Table
 * and column names come only from this file's map, never from the request.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../../../store/schema.js';

interface RecordSource {
  readonly table: keyof Database;
  /** Columns matched by prefix (case-insensitive); the first orders the results. */
  readonly labels: readonly string[];
  /** Extra equality or null condition: soft deletes, payables vs receivables in one table. */
  readonly filter?: { readonly column: string; readonly value: string | null };
}

/** Template resource (`kobana://finance/<resource>/{id}`) → where its records live. */
const RECORD_SOURCES: Readonly<Record<string, RecordSource>> = {
  accounts: { table: 'accounts', labels: ['name'] },
  attachments: { table: 'attachments', labels: ['file_name', 'title'] },
  categories: { table: 'categories', labels: ['name'] },
  companies: { table: 'companies', labels: ['name', 'trade_name'], filter: { column: 'deleted_at', value: null } },
  cost_centers: { table: 'cost_centers', labels: ['name'] },
  payables: { table: 'titles', labels: ['description', 'document_number'], filter: { column: 'kind', value: 'payable' } },
  people: { table: 'people', labels: ['name'], filter: { column: 'deleted_at', value: null } },
  receivables: { table: 'titles', labels: ['description', 'document_number'], filter: { column: 'kind', value: 'receivable' } },
  taxes: { table: 'taxes', labels: ['name'] },
  transactions: { table: 'transactions', labels: ['description'] },
  transfers: { table: 'transfers', labels: ['description'] },
};

export interface Matches {
  readonly values: readonly string[];
  readonly total: number;
}

/**
 * The tables are chosen at run time from RECORD_SOURCES, which the typed builder cannot follow;
 * this view keeps the builder (and so the workspace guard) while typing columns loosely.
 */
type LooseDatabase = Record<string, Record<string, string | number | null>>;

/** `LIKE` pattern for "starts with", with `\`, `%` and `_` escaped (one escape char in both dialects). */
export function buildPrefixPattern(typed: string): string {
  return `${typed.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

function matchPrefix(column: string, pattern: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}

function buildQuery(db: Kysely<Database>, source: RecordSource, workspaceIds: readonly string[], typed: string) {
  const pattern = buildPrefixPattern(typed);
  const columns = [...source.labels, 'id'];
  let query = (db as unknown as Kysely<LooseDatabase>).selectFrom(source.table)
    .where('workspace_id', 'in', [...workspaceIds])
    .where((eb) => eb.or(columns.map((column) => matchPrefix(column, pattern))));
  const filter = source.filter;
  if (filter) query = filter.value === null ? query.where(filter.column, 'is', null) : query.where(filter.column, '=', filter.value);
  return query;
}

/** Ids of records of `resource` in the given workspaces whose label or id starts with `typed`. */
export async function matchRecordIds(db: Kysely<Database>, resource: string, workspaceIds: readonly string[], typed: string, limit: number): Promise<Matches> {
  const source = Object.hasOwn(RECORD_SOURCES, resource) ? RECORD_SOURCES[resource] : undefined;
  if (source === undefined || workspaceIds.length === 0) return { values: [], total: 0 };
  const query = buildQuery(db, source, workspaceIds, typed);
  const rows = await query.select('id').orderBy(source.labels[0] ?? 'id').orderBy('id').limit(limit).execute();
  const counted = await query.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
  return { values: rows.map((row) => String(row['id'])), total: Number(counted?.n ?? 0) };
}

/** Distinct account names in the given workspaces starting with `typed`. */
export async function matchAccountNames(db: Kysely<Database>, workspaceIds: readonly string[], typed: string, limit: number): Promise<Matches> {
  if (workspaceIds.length === 0) return { values: [], total: 0 };
  const query = db.selectFrom('accounts')
    .where('workspace_id', 'in', [...workspaceIds])
    .where(matchPrefix('name', buildPrefixPattern(typed)));
  const rows = await query.select('name').distinct().orderBy('name').limit(limit).execute();
  const counted = await query.select(sql<number | string>`count(distinct name)`.as('n')).executeTakeFirst();
  return { values: rows.map((row) => row.name), total: Number(counted?.n ?? 0) };
}
