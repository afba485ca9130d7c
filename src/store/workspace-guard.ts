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
import {
  AliasNode, ColumnNode, ColumnUpdateNode, DeleteQueryNode, InsertQueryNode, ListNode, MergeQueryNode, OnConflictNode,
  OrActionNode, PrimitiveValueListNode, ReferenceNode, SelectQueryNode, UpdateQueryNode, ValueListNode, ValuesNode,
  type CompiledQuery, type Dialect, type JoinNode, type KyselyPlugin, type OperationNode, type PluginTransformQueryArgs,
  type PluginTransformResultArgs, type QueryCompiler, type QueryId, type QueryResult, type RootOperationNode, type UnknownRow,
  type Kysely,
} from 'kysely';
import type { Database } from './schema.js';
import { findRawFilterHazard } from './workspace-guard-raw-sql.js';
import {
  ON_SCOPES_JOINED_TABLE, WORKSPACE_COLUMN, applyFacts, isBoundValue, isFinanceTable, isNode, readBinding,
  readFacts, readIdentifierName, readTableName, readWorkspaceRef, resolve,
  type Binding, type Fact, type JoinScope, type Scope, type WorkspaceRef,
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

/** The statements rule 1 applies to: they read or write rows chosen by a filter. */
type FilteredQueryNode = SelectQueryNode | UpdateQueryNode | DeleteQueryNode;

function readStatementName(node: OperationNode): string {
  return node.kind.replace('QueryNode', '').toLowerCase();
}

function readColumnName(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (ColumnNode.is(node)) return readIdentifierName(node.column);
  if (ReferenceNode.is(node) && ColumnNode.is(node.column)) return readIdentifierName(node.column.column);
  return undefined;
}

function assignsWorkspace(updates: readonly unknown[] | undefined): boolean {
  return Array.isArray(updates) && updates.some((u) => isNode(u) && ColumnUpdateNode.is(u) && readColumnName(u.column) === WORKSPACE_COLUMN);
}

/** One query level: its bindings (FROM, UPDATE target, DELETE … USING, JOINs) and the facts each join's ON states. */
interface Level {
  readonly scope: Scope;
  readonly joins: readonly JoinScope[];
}

function readLevel(node: FilteredQueryNode, parent: Scope | undefined): Level {
  const bindings: Binding[] = [];
  const add = (item: unknown): Binding | undefined => {
    const binding = readBinding(item);
    if (binding) bindings.push(binding);
    return binding;
  };
  node.from?.froms.forEach(add);
  if (UpdateQueryNode.is(node) && node.table !== undefined) {
    if (ListNode.is(node.table)) node.table.items.forEach(add);
    else add(node.table);
  }
  if (DeleteQueryNode.is(node)) node.using?.tables.forEach(add);
  const joins = (node.joins ?? []).map((join): JoinScope => ({
    binding: add(join.table),
    facts: ON_SCOPES_JOINED_TABLE.has(join.joinType) ? readFacts(join.on?.on) : [],
  }));
  return { scope: { bindings, parent }, joins };
}

function screenRawFilters(node: FilteredQueryNode, table: string, statement: string): void {
  checkRawFilter(node.where, table, statement);
  for (const join of node.joins ?? []) checkRawFilter(join.on, table, statement);
  if (SelectQueryNode.is(node)) checkRawFilter(node.having, table, statement);
}

/** Applies the WHERE's facts and each join's ON facts until nothing more gets scoped (a scoped table can scope the next). */
function scopeLevel(level: Level, whereFacts: readonly Fact[]): void {
  let changed = true;
  while (changed) {
    changed = applyFacts(whereFacts, level.scope);
    for (const join of level.joins) {
      if (join.binding) changed = applyFacts(join.facts, level.scope, join.binding) || changed;
    }
  }
}

function refuseUnscoped(finance: readonly Binding[], statement: string): void {
  const unscoped = finance.find((b) => !b.scoped);
  if (!unscoped) return;
  const alias = unscoped.alias && unscoped.alias !== unscoped.table ? `(as "${unscoped.alias}") ` : '';
  throw new WorkspaceGuardError(unscoped.table as string, statement,
    `${alias}without a workspace_id condition: it needs a top-level AND condition workspace_id = <value> or ` +
    'workspace_id in (<values>), or an equality with an already scoped table\'s workspace_id');
}

/** Rule 1 for one SELECT / UPDATE / DELETE level; returns the scope its subqueries see. */
function checkFilteredQuery(node: FilteredQueryNode, parent: Scope | undefined): Scope {
  const statement = readStatementName(node);
  const level = readLevel(node, parent);
  const finance = level.scope.bindings.filter((b) => b.finance);
  if (finance.length === 0) return level.scope;
  const firstTable = (finance[0] as Binding).table as string;
  screenRawFilters(node, firstTable, statement);
  scopeLevel(level, readFacts(node.where?.where));
  refuseUnscoped(finance, statement);
  if (UpdateQueryNode.is(node) && assignsWorkspace(node.updates)) {
    throw new WorkspaceGuardError(firstTable, statement, 'that assigns workspace_id (rows never move between workspaces)');
  }
  return level.scope;
}

/** The position of `workspace_id` in an INSERT … SELECT is a bound value or a scoped table's workspace_id. */
function checkInsertSelect(select: SelectQueryNode, index: number, table: string): void {
  if (Array.isArray(select.setOperations) && select.setOperations.length > 0) {
    throw new WorkspaceGuardError(table, 'insert', 'from a select with set operations');
  }
  const scope = checkFilteredQuery(select, undefined);
  const selection = select.selections?.[index];
  let expression: unknown = isNode(selection) ? selection.selection : undefined;
  if (isNode(expression) && AliasNode.is(expression)) expression = expression.node;
  if (isBoundValue(expression)) return;
  const ref = readWorkspaceRef(expression);
  const resolution = ref ? resolve(ref, scope) : undefined;
  if (resolution?.kind === 'local' && resolution.binding.scoped) return;
  throw new WorkspaceGuardError(table, 'insert', 'from a select whose workspace_id is not a bound value or a scoped table\'s workspace_id');
}

function checkOnConflict(onConflict: OnConflictNode, table: string): void {
  const updates = onConflict.updates;
  if (onConflict.doNothing === true || !updates || updates.length === 0) return;
  if (assignsWorkspace(updates)) {
    throw new WorkspaceGuardError(table, 'insert', 'with an on conflict update that assigns workspace_id');
  }
  checkRawFilter(onConflict.updateWhere, table, 'insert');
  if (onConflict.columns?.some((c) => readColumnName(c) === WORKSPACE_COLUMN)) return;
  const target: Binding = { alias: table, table, finance: true, scoped: false };
  const excluded: Binding = { alias: 'excluded', table: undefined, finance: false, scoped: true };
  const scope: Scope = { bindings: [target, excluded], parent: undefined };
  // In DO UPDATE … WHERE a bare column is the target row's.
  const facts = readFacts(onConflict.updateWhere?.where).map((f): Fact => {
    const fix = (ref: WorkspaceRef): WorkspaceRef => (ref.qualifier === undefined ? { qualifier: table } : ref);
    return f.kind === 'value' ? { kind: 'value', ref: fix(f.ref) } : { kind: 'equal', left: fix(f.left), right: fix(f.right) };
  });
  applyFacts(facts, scope, target);
  if (!target.scoped) {
    throw new WorkspaceGuardError(table, 'insert',
      'with an on conflict update whose conflict target lacks workspace_id and whose where lacks a workspace_id condition');
  }
}

/** Every VALUES row gives `workspace_id` (at `index`) a bound value. */
function checkInsertValues(values: ValuesNode, index: number, table: string): void {
  for (const row of values.values ?? []) {
    const ok = PrimitiveValueListNode.is(row)
      ? row.values[index] !== undefined
      : ValueListNode.is(row) && isBoundValue(row.values[index]);
    if (!ok) throw new WorkspaceGuardError(table, 'insert', 'whose workspace_id is not a bound value in every row');
  }
}

function refuseOverwritingInsert(node: InsertQueryNode, table: string): void {
  const orAction = isNode(node.orAction) && OrActionNode.is(node.orAction) ? String(node.orAction.action) : '';
  if (node.replace === true || /replace/i.test(orAction)) {
    throw new WorkspaceGuardError(table, 'insert', 'with replace (it can overwrite another workspace\'s row)');
  }
  if (node.onDuplicateKey !== undefined) {
    throw new WorkspaceGuardError(table, 'insert', 'with on duplicate key update');
  }
}

function checkInsert(node: InsertQueryNode): void {
  const table = readTableName(node.into);
  if (!isFinanceTable(table)) return;
  refuseOverwritingInsert(node, table);
  const index = (node.columns ?? []).findIndex((c) => readColumnName(c) === WORKSPACE_COLUMN);
  if (node.defaultValues === true || index < 0) throw new WorkspaceGuardError(table, 'insert', 'without a workspace_id column');
  const values = node.values;
  if (isNode(values) && ValuesNode.is(values)) checkInsertValues(values, index, table);
  else if (isNode(values) && SelectQueryNode.is(values)) checkInsertSelect(values, index, table);
  else throw new WorkspaceGuardError(table, 'insert', 'without values for workspace_id');
  if (isNode(node.onConflict) && OnConflictNode.is(node.onConflict)) checkOnConflict(node.onConflict, table);
}

function checkMerge(node: MergeQueryNode): void {
  const target = readTableName(node.into);
  const using: JoinNode | undefined = node.using;
  const source = isNode(using) ? readTableName(using.table) : undefined;
  const finance = [target, source].find(isFinanceTable);
  if (finance) throw new WorkspaceGuardError(finance, 'merge', '(merge is not supported on finance tables)');
}

/** Checks one query level; returns the scope its nested nodes see (undefined = unchanged). */
function checkQueryNode(node: OperationNode, parent: Scope | undefined): Scope | undefined {
  if (SelectQueryNode.is(node) || UpdateQueryNode.is(node) || DeleteQueryNode.is(node)) return checkFilteredQuery(node, parent);
  if (InsertQueryNode.is(node)) {
    checkInsert(node);
    // The target is not visible from VALUES or INSERT … SELECT.
    return { bindings: [], parent: undefined };
  }
  if (MergeQueryNode.is(node)) {
    checkMerge(node);
    return { bindings: [], parent: undefined };
  }
  return undefined;
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
  const check = createCheck(approvedTextsMax);
  return {
    plugin: createMarkingPlugin(marked),
    guardDialect(dialect: Dialect): Dialect {
      return {
        createDriver: () => dialect.createDriver(),
        createAdapter: () => dialect.createAdapter(),
        createIntrospector: (db) => dialect.createIntrospector(db),
        createQueryCompiler: () => guardCompiler(dialect.createQueryCompiler(), marked, check),
      };
    },
  };
}

/** Checks a final tree, once per distinct SQL text: an approved text is remembered (at most `approvedTextsMax`, oldest first out). */
function createCheck(approvedTextsMax: number): (node: RootOperationNode, sqlText: string) => void {
  const approved = new Set<string>();
  return (node, sqlText) => {
    if (approved.has(sqlText)) return;
    visitQueryTree(node, undefined);
    // 0 checks every execution (bench/store.ts measures what the cache saves).
    if (approvedTextsMax === 0) return;
    if (approved.size >= approvedTextsMax) approved.delete(approved.values().next().value as string);
    approved.add(sqlText);
  };
}

/** Marks each query built through the Kysely instance that carries the plugin; changes nothing. */
function createMarkingPlugin(marked: WeakSet<QueryId>): KyselyPlugin {
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      marked.add(args.queryId);
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return args.result;
    },
  };
}

/** The dialect's compiler, checking the final tree of every marked query before its SQL leaves. */
function guardCompiler(inner: QueryCompiler, marked: WeakSet<QueryId>, check: (node: RootOperationNode, sqlText: string) => void): QueryCompiler {
  return {
    compileQuery(node: RootOperationNode, queryId: QueryId): CompiledQuery {
      const compiled = inner.compileQuery(node, queryId);
      if (marked.has(queryId)) check(compiled.query, compiled.sql);
      return compiled;
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
