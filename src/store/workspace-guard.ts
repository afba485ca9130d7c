/**
 * A Kysely plugin that refuses any query on a finance table that is not scoped by
 * `workspace_id` (issue 4 §1: "every query is scoped by it"). It inspects the query tree only;
 * it never rewrites SQL, and raw `sql` templates pass through unchecked (they cannot be parsed).
 */
import type {
  KyselyPlugin, OperationNode, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode,
  UnknownRow, Kysely,
} from 'kysely';
import type { Database } from './schema.js';

/** Tables whose rows belong to one workspace; every other table is identity/infrastructure. */
export const FINANCE_TABLES: ReadonlySet<string> = new Set([
  'companies', 'accounts', 'categories', 'cost_centers', 'people', 'taxes', 'titles', 'allocations',
  'transactions', 'transfers', 'blobs', 'attachments', 'attachment_links', 'activity', 'idempotency_keys',
  'security_settings', 'confirmation_nonces',
]);

export class WorkspaceGuardError extends Error {
  readonly code = 'WORKSPACE_GUARD';
  constructor(readonly table: string, readonly statement: string) {
    super(`Refused a ${statement} on "${table}" without a workspace_id condition.`);
    this.name = 'WorkspaceGuardError';
  }
}

type AnyNode = { readonly kind: string; readonly [key: string]: unknown };

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}

/** The table name of a TableNode, or of an AliasNode wrapping one. */
function readTableName(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.kind === 'AliasNode') return readTableName(node.node);
  if (node.kind !== 'TableNode') return undefined;
  const table = node.table as { identifier?: { name?: unknown } } | undefined;
  const name = table?.identifier?.name;
  return typeof name === 'string' ? name : undefined;
}

function mentionsWorkspaceColumn(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsWorkspaceColumn);
  if (!isNode(node)) return false;
  if (node.kind === 'ColumnNode') {
    const column = node.column as { name?: unknown } | undefined;
    return column?.name === 'workspace_id';
  }
  return Object.values(node).some((v) => typeof v === 'object' && v !== null && mentionsWorkspaceColumn(v));
}

/** The finance tables a query reads or writes directly (FROM, JOIN, UPDATE target, DELETE FROM). */
function collectTargetTables(node: AnyNode): string[] {
  const candidates: unknown[] = [];
  const from = node.from as { froms?: readonly unknown[] } | undefined;
  if (from?.froms) candidates.push(...from.froms);
  if (node.table) candidates.push(node.table);
  const joins = node.joins as readonly { table?: unknown }[] | undefined;
  if (joins) candidates.push(...joins.map((j) => j.table));
  return candidates.map(readTableName).filter((t): t is string => t !== undefined && FINANCE_TABLES.has(t));
}

function checkQueryNode(node: AnyNode): void {
  switch (node.kind) {
    case 'SelectQueryNode':
    case 'UpdateQueryNode':
    case 'DeleteQueryNode': {
      const tables = collectTargetTables(node);
      if (tables.length > 0 && !mentionsWorkspaceColumn(node.where)) {
        throw new WorkspaceGuardError(tables[0] as string, node.kind.replace('QueryNode', '').toLowerCase());
      }
      return;
    }
    case 'InsertQueryNode': {
      const table = readTableName(node.into);
      if (table !== undefined && FINANCE_TABLES.has(table) && !mentionsWorkspaceColumn(node.columns)) {
        throw new WorkspaceGuardError(table, 'insert');
      }
      return;
    }
    default:
      return;
  }
}

/** Walks the whole tree so subqueries (IN (SELECT …), CTEs, derived tables) are checked too. */
function visitQueryTree(node: unknown): void {
  if (Array.isArray(node)) {
    for (const child of node) visitQueryTree(child);
    return;
  }
  if (!isNode(node)) return;
  checkQueryNode(node);
  for (const value of Object.values(node)) {
    if (typeof value === 'object' && value !== null) visitQueryTree(value);
  }
}

export function createWorkspaceGuard(): KyselyPlugin {
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      visitQueryTree(args.node as OperationNode);
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return args.result;
    },
  };
}

/**
 * The explicit escape hatch for cross-workspace maintenance (purging expired idempotency keys
 * or nonces, migrations, seed). Every use must say why at the call site.
 */
export function withoutWorkspaceGuard(db: Kysely<Database>): Kysely<Database> {
  return db.withoutPlugins();
}
