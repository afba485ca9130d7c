/**
 * Refuses any query on a finance table that is not scoped to workspaces by `workspace_id`
 * (issue 4 §1: "every query is scoped by it"): a Kysely plugin marks the queries to check and
 * the dialect's query compiler checks them (see createWorkspaceGuard). It inspects the query
 * tree only; it never rewrites SQL. Reading the tree into bindings and scoping facts is left to
 * `workspace-guard-scope.ts`, screening raw filter fragments to `workspace-guard-raw-sql.ts`.
 *
 * ┌──────────────────────────────────────────────────────────────────────────────────────────┐
 * │ RAW SQL IS NOT CHECKED. A whole query written with the `sql` template tag                 │
 * │ (sql`select … from titles`.execute(db)) reaches the database UNGUARDED: the plugin cannot │
 * │ parse SQL text. Raw fragments inside builder queries are only screened lexically when     │
 * │ they sit in a WHERE / ON / HAVING / ON CONFLICT … WHERE filter (see checkRawFilter): no   │
 * │ top-level `or`, set operation or `select`, no comments, no `;`, balanced parentheses.     │
 * │ Raw fragments in SELECT lists, SET, ORDER BY, FROM are not looked at. Every raw query on  │
 * │ a finance table must be scoped by hand and reviewed as such.                              │
 * └──────────────────────────────────────────────────────────────────────────────────────────┘
 *
 * Rules (every builder query, including each nested subquery, CTE body and set-operation
 * member, which is validated as its own query):
 *
 * 1. SELECT / UPDATE / DELETE: every finance table the query reads or writes — the FROM
 *    tables, the UPDATE target, UPDATE … FROM tables, DELETE … USING tables and every JOINed
 *    table — identified by its alias (or bare name), must be *scoped*:
 *    - by a top-level AND conjunct of the WHERE (never under OR / NOT) of the form
 *      `<alias>.workspace_id = <value>` or `<alias>.workspace_id in (<value>, …)`
 *      (`workspace_id` unqualified counts when the query level has exactly one finance table);
 *      `<value>` is a bound value, never a column, subquery or raw fragment, and only `=` and
 *      `in` count (`!=`, `<>`, `not in`, `is`, `like`, … do not);
 *    - or by a top-level WHERE conjunct `<alias>.workspace_id = <other>.workspace_id` where
 *      `<other>` is already scoped (in this query, or an enclosing query for a correlated
 *      subquery);
 *    - a JOINed table may also be scoped by such a conjunct (value or equality with a scoped
 *      table) at the top level of its own ON clause, for inner and left joins only (right and
 *      full joins preserve the joined table's rows whatever ON says, so they need WHERE).
 *    A conjunct inside a subquery never scopes a table of the enclosing query.
 *    UPDATE may not assign `workspace_id` (rows never move between workspaces).
 * 2. INSERT into a finance table must list `workspace_id` and give it a bound value in every
 *    VALUES row; INSERT … SELECT must select a bound value or a scoped table's `workspace_id`
 *    in that position, and the SELECT must itself pass rule 1. `on conflict … do update` needs
 *    `workspace_id` in the conflict target or a rule-1 conjunct on the target table in its
 *    WHERE (`excluded.workspace_id` counts as scoped), and may not assign `workspace_id`.
 *    `insert or replace` / `replace into` / `on duplicate key update` / MERGE on finance tables
 *    are refused (they can overwrite another workspace's row).
 *
 * Errors name the table and the rule, never a bound value.
 */
import type {
  CompiledQuery, Dialect, KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryCompiler, QueryId, QueryResult,
  RootOperationNode, UnknownRow, Kysely,
} from 'kysely';
import type { Database } from './schema.js';
import { findRawFilterHazard } from './workspace-guard-raw-sql.js';
import {
  ON_SCOPES_JOINED_TABLE, WORKSPACE_COLUMN, applyFacts, isBoundValue, isFinanceTable, isKind, isNode, readBinding,
  readFacts, readIdentifierName, readTableName, readWorkspaceRef, resolve,
  type AnyNode, type Binding, type Fact, type JoinScope, type Scope, type WorkspaceRef,
} from './workspace-guard-scope.js';

export { FINANCE_TABLES } from './workspace-guard-scope.js';

export class WorkspaceGuardError extends Error {
  readonly code = 'WORKSPACE_GUARD';
  constructor(readonly table: string, readonly statement: string, readonly reason = 'without a workspace_id condition') {
    super(`Refused ${/^[aeiou]/.test(statement) ? 'an' : 'a'} ${statement} on "${table}" ${reason}.`);
    this.name = 'WorkspaceGuardError';
  }
}

/** Refuses a filter holding a raw fragment that could change its shape (see the box above). */
function checkRawFilter(filter: unknown, table: string, statement: string): void {
  const hazard = findRawFilterHazard(filter);
  if (hazard) throw new WorkspaceGuardError(table, statement, `with a raw sql filter fragment containing ${hazard}`);
}

// ───────────────────────────── per-statement checks ─────────────────────────────

function readStatementName(node: AnyNode): string {
  return node.kind.replace('QueryNode', '').toLowerCase();
}

function readFilter(node: unknown, key: 'where' | 'on'): unknown {
  if (!isNode(node)) return undefined;
  return node[key];
}

function readColumnName(node: unknown): string | undefined {
  if (isKind(node, 'ColumnNode')) return readIdentifierName(node.column);
  if (isKind(node, 'ReferenceNode') && isKind(node.column, 'ColumnNode')) return readIdentifierName(node.column.column);
  return undefined;
}

function assignsWorkspace(updates: unknown): boolean {
  return Array.isArray(updates) && updates.some((u) => isKind(u, 'ColumnUpdateNode') && readColumnName(u.column) === WORKSPACE_COLUMN);
}

/** Rule 1 for one SELECT / UPDATE / DELETE level; returns the scope its subqueries see. */
function checkFilteredQuery(node: AnyNode, parent: Scope | undefined): Scope {
  const statement = readStatementName(node);
  const bindings: Binding[] = [];
  const add = (item: unknown): Binding | undefined => {
    const binding = readBinding(item);
    if (binding) bindings.push(binding);
    return binding;
  };
  const from = node.from as { froms?: readonly unknown[] } | undefined;
  from?.froms?.forEach(add);
  if (isKind(node.table, 'ListNode')) (node.table.items as unknown[]).forEach(add);
  else if (node.table !== undefined) add(node.table);
  const using = node.using as { tables?: readonly unknown[] } | undefined;
  using?.tables?.forEach(add);
  const joins: JoinScope[] = [];
  for (const join of (node.joins as readonly AnyNode[] | undefined) ?? []) {
    const binding = add(join.table);
    const scopesJoined = typeof join.joinType === 'string' && ON_SCOPES_JOINED_TABLE.has(join.joinType);
    joins.push({ binding, facts: scopesJoined ? readFacts(readFilter(join.on, 'on')) : [] });
  }
  const scope: Scope = { bindings, parent };
  const finance = bindings.filter((b) => b.finance);
  if (finance.length === 0) return scope;

  const firstTable = (finance[0] as Binding).table as string;
  checkRawFilter(node.where, firstTable, statement);
  for (const join of (node.joins as readonly AnyNode[] | undefined) ?? []) checkRawFilter(join.on, firstTable, statement);
  checkRawFilter(node.having, firstTable, statement);

  const whereFacts = readFacts(readFilter(node.where, 'where'));
  let changed = true;
  while (changed) {
    changed = applyFacts(whereFacts, scope);
    for (const join of joins) {
      if (join.binding) changed = applyFacts(join.facts, scope, join.binding) || changed;
    }
  }
  const unscoped = finance.find((b) => !b.scoped);
  if (unscoped) {
    const alias = unscoped.alias && unscoped.alias !== unscoped.table ? `(as "${unscoped.alias}") ` : '';
    throw new WorkspaceGuardError(unscoped.table as string, statement,
      `${alias}without a workspace_id condition: it needs a top-level AND condition workspace_id = <value> or ` +
      'workspace_id in (<values>), or an equality with an already scoped table\'s workspace_id');
  }
  if (node.kind === 'UpdateQueryNode' && assignsWorkspace(node.updates)) {
    throw new WorkspaceGuardError(firstTable, statement, 'that assigns workspace_id (rows never move between workspaces)');
  }
  return scope;
}

/** The position of `workspace_id` in an INSERT … SELECT is a bound value or a scoped table's workspace_id. */
function checkInsertSelect(select: AnyNode, index: number, table: string): void {
  if (Array.isArray(select.setOperations) && select.setOperations.length > 0) {
    throw new WorkspaceGuardError(table, 'insert', 'from a select with set operations');
  }
  const scope = checkFilteredQuery(select, undefined);
  const selection = (select.selections as readonly AnyNode[] | undefined)?.[index];
  let expression = isNode(selection) ? selection.selection : undefined;
  if (isKind(expression, 'AliasNode')) expression = expression.node;
  if (isBoundValue(expression)) return;
  const ref = readWorkspaceRef(expression);
  const resolution = ref ? resolve(ref, scope) : undefined;
  if (resolution?.kind === 'local' && resolution.binding.scoped) return;
  throw new WorkspaceGuardError(table, 'insert', 'from a select whose workspace_id is not a bound value or a scoped table\'s workspace_id');
}

function checkOnConflict(onConflict: AnyNode, table: string): void {
  const updates = onConflict.updates as readonly unknown[] | undefined;
  if (onConflict.doNothing === true || !updates || updates.length === 0) return;
  if (assignsWorkspace(updates)) {
    throw new WorkspaceGuardError(table, 'insert', 'with an on conflict update that assigns workspace_id');
  }
  checkRawFilter(onConflict.updateWhere, table, 'insert');
  const columns = onConflict.columns as readonly unknown[] | undefined;
  if (columns?.some((c) => readColumnName(c) === WORKSPACE_COLUMN)) return;
  const target: Binding = { alias: table, table, finance: true, scoped: false };
  const excluded: Binding = { alias: 'excluded', table: undefined, finance: false, scoped: true };
  const scope: Scope = { bindings: [target, excluded], parent: undefined };
  // In DO UPDATE … WHERE a bare column is the target row's.
  const facts = readFacts(readFilter(onConflict.updateWhere, 'where')).map((f): Fact => {
    const fix = (ref: WorkspaceRef): WorkspaceRef => (ref.qualifier === undefined ? { qualifier: table } : ref);
    return f.kind === 'value' ? { kind: 'value', ref: fix(f.ref) } : { kind: 'equal', left: fix(f.left), right: fix(f.right) };
  });
  applyFacts(facts, scope, target);
  if (!target.scoped) {
    throw new WorkspaceGuardError(table, 'insert',
      'with an on conflict update whose conflict target lacks workspace_id and whose where lacks a workspace_id condition');
  }
}

function checkInsert(node: AnyNode): void {
  const table = readTableName(node.into);
  if (!isFinanceTable(table)) return;
  const orAction = isKind(node.orAction, 'OrActionNode') ? String(node.orAction.action) : '';
  if (node.replace === true || /replace/i.test(orAction)) {
    throw new WorkspaceGuardError(table, 'insert', 'with replace (it can overwrite another workspace\'s row)');
  }
  if (node.onDuplicateKey !== undefined) {
    throw new WorkspaceGuardError(table, 'insert', 'with on duplicate key update');
  }
  const columns = (node.columns as readonly unknown[] | undefined) ?? [];
  const index = columns.findIndex((c) => readColumnName(c) === WORKSPACE_COLUMN);
  if (node.defaultValues === true || index < 0) throw new WorkspaceGuardError(table, 'insert', 'without a workspace_id column');
  const values = node.values;
  if (isKind(values, 'ValuesNode')) {
    for (const row of (values.values as readonly unknown[] | undefined) ?? []) {
      const ok = isKind(row, 'PrimitiveValueListNode')
        ? (row.values as readonly unknown[])[index] !== undefined
        : isKind(row, 'ValueListNode') && isBoundValue((row.values as readonly unknown[])[index]);
      if (!ok) throw new WorkspaceGuardError(table, 'insert', 'whose workspace_id is not a bound value in every row');
    }
  } else if (isKind(values, 'SelectQueryNode')) {
    checkInsertSelect(values, index, table);
  } else {
    throw new WorkspaceGuardError(table, 'insert', 'without values for workspace_id');
  }
  if (isKind(node.onConflict, 'OnConflictNode')) checkOnConflict(node.onConflict, table);
}

function checkMerge(node: AnyNode): void {
  const target = readTableName(node.into);
  const source = isNode(node.using) ? readTableName(node.using.table) : undefined;
  const finance = [target, source].find(isFinanceTable);
  if (finance) throw new WorkspaceGuardError(finance, 'merge', '(merge is not supported on finance tables)');
}

/** Checks one query level; returns the scope its nested nodes see (undefined = unchanged). */
function checkQueryNode(node: AnyNode, parent: Scope | undefined): Scope | undefined {
  switch (node.kind) {
    case 'SelectQueryNode':
    case 'UpdateQueryNode':
    case 'DeleteQueryNode':
      return checkFilteredQuery(node, parent);
    case 'InsertQueryNode':
      checkInsert(node);
      // The target is not visible from VALUES or INSERT … SELECT.
      return { bindings: [], parent: undefined };
    case 'MergeQueryNode':
      checkMerge(node);
      return { bindings: [], parent: undefined };
    default:
      return undefined;
  }
}

/** Walks the whole tree so subqueries (IN (SELECT …), EXISTS, CTEs, derived tables, unions) are checked too. */
function visitQueryTree(node: unknown, scope: Scope | undefined): void {
  if (Array.isArray(node)) {
    for (const child of node) visitQueryTree(child, scope);
    return;
  }
  if (!isNode(node)) return;
  const inner = checkQueryNode(node, scope) ?? scope;
  for (const value of Object.values(node)) {
    if (typeof value === 'object' && value !== null) visitQueryTree(value, inner);
  }
}

/** Distinct SQL texts remembered as checked; list queries with many filter combinations stay bounded. */
const APPROVED_TEXTS_MAX = 4_096;

export interface WorkspaceGuard {
  /** Marks every query built through the Kysely instance that carries it (`withoutPlugins()` drops it: the escape hatch). */
  readonly plugin: KyselyPlugin;
  /** The dialect with a query compiler that checks each marked query before its SQL leaves. */
  guardDialect(dialect: Dialect): Dialect;
}

/**
 * The guard runs where the SQL text is known: in the dialect's query compiler, on the final
 * tree (after every plugin), once per distinct SQL text rather than once per execution. The
 * text is all the database receives and the rules look only at its shape (bound values are
 * `?`/`$n` placeholders in it), so a text one tree proved scoped is scoped whichever builder
 * produced it again. A refused query is never remembered: it is refused every time.
 * Subqueries are checked as part of their enclosing query (the whole tree is walked).
 */
export function createWorkspaceGuard(approvedTextsMax = APPROVED_TEXTS_MAX): WorkspaceGuard {
  const marked = new WeakSet<QueryId>();
  const approved = new Set<string>();

  function check(node: RootOperationNode, sqlText: string): void {
    if (approved.has(sqlText)) return;
    visitQueryTree(node, undefined);
    // 0 checks every execution (bench/store.ts measures what the cache saves).
    if (approvedTextsMax === 0) return;
    if (approved.size >= approvedTextsMax) approved.delete(approved.values().next().value as string);
    approved.add(sqlText);
  }

  function guardCompiler(inner: QueryCompiler): QueryCompiler {
    return {
      compileQuery(node: RootOperationNode, queryId: QueryId): CompiledQuery {
        const compiled = inner.compileQuery(node, queryId);
        if (marked.has(queryId)) check(compiled.query, compiled.sql);
        return compiled;
      },
    };
  }

  return {
    plugin: {
      transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
        marked.add(args.queryId);
        return args.node;
      },
      async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
        return args.result;
      },
    },
    guardDialect(dialect: Dialect): Dialect {
      return {
        createDriver: () => dialect.createDriver(),
        createAdapter: () => dialect.createAdapter(),
        createIntrospector: (db) => dialect.createIntrospector(db),
        createQueryCompiler: () => guardCompiler(dialect.createQueryCompiler()),
      };
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
