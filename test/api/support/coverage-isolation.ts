/**
 * Helpers of the cross-workspace coverage test: a full snapshot of one workspace's rows (to
 * prove nothing was written there) and the record-id fields a route's JSON body declares.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../../src/store/schema.js';
import type { JsonSchema, RouteDefinition } from '../../../src/runtime/types.js';

/** Every table that carries workspace_id (src/store/schema.ts). */
const WORKSPACE_TABLES = [
  'companies', 'accounts', 'categories', 'cost_centers', 'people', 'taxes', 'titles', 'allocations', 'transactions',
  'transfers', 'blobs', 'attachments', 'attachment_links', 'activity', 'idempotency_keys', 'security_settings',
] as const;

export interface WorkspaceSnapshot {
  /** table → rows of the workspace, ordered by every column's JSON (stable across dialects). */
  readonly rows: Record<string, unknown[]>;
  /** The `id` of every row. */
  readonly ids: string[];
}

export async function snapshotWorkspace(db: Kysely<Database>, workspaceId: string): Promise<WorkspaceSnapshot> {
  const rows: Record<string, unknown[]> = {};
  const ids: string[] = [];
  for (const table of WORKSPACE_TABLES) {
    // Dynamic table names over the typed schema; every listed table has workspace_id.
    const found = await (db as unknown as Kysely<Record<string, { workspace_id: string }>>)
      .selectFrom(table).selectAll().where('workspace_id', '=', workspaceId).execute();
    const serialized = found.map((row) => JSON.stringify(row, (_key, value: unknown) => (Buffer.isBuffer(value) ? value.toString('base64') : value))).sort();
    rows[table] = serialized;
    for (const row of found as Record<string, unknown>[]) if (typeof row.id === 'string') ids.push(row.id);
  }
  return { rows, ids };
}

/** JSON pointers of the `*_id` fields of the route's JSON body (array items as index 0). */
export function collectBodyIdPointers(route: RouteDefinition): string[] {
  const pointers: string[] = [];
  const walk = (schema: JsonSchema | undefined, prefix: string) => {
    if (!schema || typeof schema !== 'object') return;
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, child] of Object.entries(properties)) {
      if (name.endsWith('_id')) pointers.push(`${prefix}/${name}`);
      // A list of ids (`statement_line_ids`, a batch's `ids`), a polymorphic item's `id` beside its
      // `type`, and the `id` of a list's item (a batch's `items`).
      if (name.endsWith('_ids') || name === 'ids') pointers.push(`${prefix}/${name}/0`);
      if (name === 'id' && ('type' in properties || prefix.endsWith('/0'))) pointers.push(`${prefix}/${name}`);
      walk(child, `${prefix}/${name}`);
    }
    if (schema.items) walk(schema.items as JsonSchema, `${prefix}/0`);
    for (const key of ['allOf', 'anyOf', 'oneOf']) for (const branch of (schema[key] as JsonSchema[] | undefined) ?? []) walk(branch, prefix);
  };
  walk(route.requestBody?.content['application/json'], '');
  return [...new Set(pointers)];
}
