/**
 * A Kysely plugin that refuses any query on a finance table that is not scoped to workspaces
 * by `workspace_id` (issue 4 §1: "every query is scoped by it"). It inspects the query tree
 * only; it never rewrites SQL.
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

const WORKSPACE_COLUMN = 'workspace_id';

export class WorkspaceGuardError extends Error {
  readonly code = 'WORKSPACE_GUARD';
  constructor(readonly table: string, readonly statement: string, readonly reason = 'without a workspace_id condition') {
    super(`Refused ${/^[aeiou]/.test(statement) ? 'an' : 'a'} ${statement} on "${table}" ${reason}.`);
    this.name = 'WorkspaceGuardError';
  }
}

type AnyNode = { readonly kind: string; readonly [key: string]: unknown };

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}

function isKind(value: unknown, kind: string): value is AnyNode {
  return isNode(value) && value.kind === kind;
}

function identifierName(node: unknown): string | undefined {
  if (isKind(node, 'IdentifierNode') && typeof node.name === 'string') return node.name;
  return undefined;
}

/** The table name of a TableNode, or of an AliasNode wrapping one. */
function readTableName(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.kind === 'AliasNode') return readTableName(node.node);
  if (node.kind !== 'TableNode') return undefined;
  const table = node.table as { identifier?: unknown } | undefined;
  return identifierName(table?.identifier);
}

function isFinanceTable(name: string | undefined): name is string {
  return name !== undefined && FINANCE_TABLES.has(name);
}

function unwrapParens(node: unknown): unknown {
  let current = node;
  while (isKind(current, 'ParensNode')) current = current.node;
  return current;
}

// ───────────────────────────── scopes and bindings ─────────────────────────────

/** One FROM/JOIN/target item of a query level, by the name SQL resolves it with. */
interface Binding {
  readonly alias: string | undefined;
  readonly table: string | undefined;
  readonly finance: boolean;
  scoped: boolean;
}

interface Scope {
  readonly bindings: readonly Binding[];
  readonly parent: Scope | undefined;
}

function toBinding(item: unknown): Binding | undefined {
  if (!isNode(item)) return undefined;
  if (item.kind === 'TableNode') {
    const table = readTableName(item);
    return { alias: table, table, finance: isFinanceTable(table), scoped: false };
  }
  if (item.kind === 'AliasNode') {
    const table = readTableName(item.node);
    const alias = identifierName(item.alias);
    return { alias, table, finance: isFinanceTable(table), scoped: false };
  }
  return undefined;
}

/** A reference to some table's `workspace_id`: `qualifier` is the alias, undefined when bare. */
interface WorkspaceRef {
  readonly qualifier: string | undefined;
}

function readWorkspaceRef(node: unknown): WorkspaceRef | undefined {
  const inner = unwrapParens(node);
  if (isKind(inner, 'ColumnNode')) {
    return identifierName(inner.column) === WORKSPACE_COLUMN ? { qualifier: undefined } : undefined;
  }
  if (isKind(inner, 'ReferenceNode')) {
    if (!isKind(inner.column, 'ColumnNode') || identifierName(inner.column.column) !== WORKSPACE_COLUMN) return undefined;
    if (inner.table === undefined) return { qualifier: undefined };
    const qualifier = readTableName(inner.table);
    return qualifier === undefined ? undefined : { qualifier };
  }
  return undefined;
}

/** A bound value: a parameter or an immediate literal, never a column, subquery or raw SQL. */
function isBoundValue(node: unknown): boolean {
  return isKind(unwrapParens(node), 'ValueNode');
}

function isValueList(node: unknown): boolean {
  const inner = unwrapParens(node);
  if (isKind(inner, 'PrimitiveValueListNode')) return Array.isArray(inner.values);
  if (isKind(inner, 'ValueListNode')) return Array.isArray(inner.values) && (inner.values as unknown[]).every(isBoundValue);
  return false;
}

type Fact =
  | { readonly kind: 'value'; readonly ref: WorkspaceRef }
  | { readonly kind: 'equal'; readonly left: WorkspaceRef; readonly right: WorkspaceRef };

function readOperator(node: unknown): string | undefined {
  return isKind(node, 'OperatorNode') && typeof node.operator === 'string' ? node.operator : undefined;
}

/** The scoping fact a single conjunct states, if any. */
function readFact(conjunct: unknown): Fact | undefined {
  const node = unwrapParens(conjunct);
  if (!isKind(node, 'BinaryOperationNode')) return undefined;
  const operator = readOperator(node.operator);
  const left = readWorkspaceRef(node.leftOperand);
  const right = readWorkspaceRef(node.rightOperand);
  if (operator === '=') {
    if (left && right) return { kind: 'equal', left, right };
    if (left && isBoundValue(node.rightOperand)) return { kind: 'value', ref: left };
    if (right && isBoundValue(node.leftOperand)) return { kind: 'value', ref: right };
    return undefined;
  }
  if (operator === 'in' && left && isValueList(node.rightOperand)) return { kind: 'value', ref: left };
  return undefined;
}

/**
 * The top-level AND conjuncts of a filter, as the SQL compiler will print them. An OR / NOT
 * root is a single opaque conjunct that scopes nothing; an OR sitting unparenthesized under an
 * AND poisons the whole filter (Kysely prints AndNode(OrNode(a, b), c) as `a or b and c`).
 */
function readConjuncts(filter: unknown): unknown[] {
  const out: unknown[] = [];
  let poisoned = false;
  const visit = (node: unknown): void => {
    const inner = unwrapParens(node);
    if (isKind(inner, 'AndNode')) {
      if (isKind(inner.left, 'OrNode') || isKind(inner.right, 'OrNode')) poisoned = true;
      visit(inner.left);
      visit(inner.right);
      return;
    }
    out.push(inner);
  };
  visit(filter);
  return poisoned ? [] : out;
}

function readFacts(filter: unknown): Fact[] {
  if (filter === undefined) return [];
  return readConjuncts(filter).map(readFact).filter((f): f is Fact => f !== undefined);
}

type Resolution =
  | { readonly kind: 'local'; readonly binding: Binding }
  | { readonly kind: 'outer'; readonly binding: Binding }
  | { readonly kind: 'ambiguous' }
  | { readonly kind: 'unresolved' };

function matchAlias(bindings: readonly Binding[], qualifier: string): Binding[] {
  const wanted = qualifier.toLowerCase(); // SQLite resolves identifiers case-insensitively.
  return bindings.filter((b) => b.alias !== undefined && b.alias.toLowerCase() === wanted);
}

function resolve(ref: WorkspaceRef, scope: Scope): Resolution {
  if (ref.qualifier === undefined) {
    // Bare `workspace_id` binds to the innermost level that has one; every finance table has it.
    const finance = scope.bindings.filter((b) => b.finance);
    if (finance.length === 1) return { kind: 'local', binding: finance[0] as Binding };
    return { kind: 'ambiguous' };
  }
  let level: Scope | undefined = scope;
  let kind: 'local' | 'outer' = 'local';
  while (level) {
    const matches = matchAlias(level.bindings, ref.qualifier);
    if (matches.length > 1) return { kind: 'ambiguous' };
    if (matches.length === 1) return { kind, binding: matches[0] as Binding };
    level = level.parent;
    kind = 'outer';
  }
  return { kind: 'unresolved' };
}

/**
 * Whether the other side of an equality is scoped. A qualifier that names no table anywhere is
 * a correlation to an enclosing query that Kysely has not attached yet (it runs plugins on a
 * subquery when the subquery is built, standalone): the enclosing query is checked again as a
 * whole before execution, with that table in scope, and an alias unknown even then is an SQL
 * error, not a leak.
 */
function isScopedSide(resolution: Resolution): boolean {
  switch (resolution.kind) {
    case 'local':
    case 'outer':
      return resolution.binding.scoped;
    case 'unresolved':
      return true;
    default:
      return false;
  }
}

function localBinding(ref: WorkspaceRef, scope: Scope): Binding | undefined {
  const r = resolve(ref, scope);
  return r.kind === 'local' ? r.binding : undefined;
}

/** Applies facts; `only` restricts which binding they may scope (a join's ON scopes its table). */
function applyFacts(facts: readonly Fact[], scope: Scope, only?: Binding): boolean {
  let changed = false;
  const mark = (binding: Binding | undefined): void => {
    if (!binding || binding.scoped || (only && binding !== only)) return;
    binding.scoped = true;
    changed = true;
  };
  for (const fact of facts) {
    if (fact.kind === 'value') {
      mark(localBinding(fact.ref, scope));
      continue;
    }
    const left = resolve(fact.left, scope);
    const right = resolve(fact.right, scope);
    if (left.kind === 'local' && isScopedSide(right) && !(right.kind === 'local' && right.binding === left.binding)) mark(left.binding);
    if (right.kind === 'local' && isScopedSide(left) && !(left.kind === 'local' && left.binding === right.binding)) mark(right.binding);
  }
  return changed;
}

const ON_SCOPES_JOINED_TABLE = new Set(['InnerJoin', 'LeftJoin', 'LateralInnerJoin', 'LateralLeftJoin']);

interface JoinScope {
  readonly binding: Binding | undefined;
  readonly facts: readonly Fact[];
}

// ───────────────────────────── raw fragments in filters ─────────────────────────────

const FORBIDDEN_TOP_LEVEL_WORDS = new Set(['or', 'union', 'intersect', 'except', 'select']);

/** Why a raw fragment could change the shape of the filter around it, or undefined. */
function rawFragmentHazard(text: string): string | undefined {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "'" || ch === '"' || ch === '`') {
      const end = text.indexOf(ch, i + 1);
      if (end < 0) return 'an unterminated quote';
      i = end + 1;
      continue;
    }
    if ((ch === '-' && text[i + 1] === '-') || (ch === '/' && text[i + 1] === '*')) return 'a comment';
    if (ch === ';') return 'a semicolon';
    if (ch === '(') depth += 1;
    if (ch === ')') {
      depth -= 1;
      if (depth < 0) return 'unbalanced parentheses';
    }
    if (/[A-Za-z_]/.test(ch)) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(text.slice(i))?.[0] ?? ch;
      if (depth === 0 && FORBIDDEN_TOP_LEVEL_WORDS.has(word.toLowerCase())) return `a top-level "${word.toLowerCase()}" (wrap it in parentheses)`;
      i += word.length;
      continue;
    }
    i += 1;
  }
  return depth === 0 ? undefined : 'unbalanced parentheses';
}

function isQueryNode(node: AnyNode): boolean {
  return node.kind.endsWith('QueryNode');
}

/** Screens every raw fragment of a filter (not of nested subqueries, checked on their own). */
function checkRawFilter(filter: unknown, table: string, statement: string): void {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    if (!isNode(node) || isQueryNode(node)) return;
    if (node.kind === 'RawNode') {
      const fragments = Array.isArray(node.sqlFragments) ? (node.sqlFragments as string[]) : [];
      const hazard = rawFragmentHazard(fragments.join(' ? '));
      if (hazard) throw new WorkspaceGuardError(table, statement, `with a raw sql filter fragment containing ${hazard}`);
    }
    for (const value of Object.values(node)) if (typeof value === 'object' && value !== null) visit(value);
  };
  visit(filter);
}

// ───────────────────────────── per-statement checks ─────────────────────────────

function statementOf(node: AnyNode): string {
  return node.kind.replace('QueryNode', '').toLowerCase();
}

function filterOf(node: unknown, key: 'where' | 'on'): unknown {
  if (!isNode(node)) return undefined;
  return node[key];
}

function readColumnName(node: unknown): string | undefined {
  if (isKind(node, 'ColumnNode')) return identifierName(node.column);
  if (isKind(node, 'ReferenceNode') && isKind(node.column, 'ColumnNode')) return identifierName(node.column.column);
  return undefined;
}

function assignsWorkspace(updates: unknown): boolean {
  return Array.isArray(updates) && updates.some((u) => isKind(u, 'ColumnUpdateNode') && readColumnName(u.column) === WORKSPACE_COLUMN);
}

/** Rule 1 for one SELECT / UPDATE / DELETE level; returns the scope its subqueries see. */
function checkFilteredQuery(node: AnyNode, parent: Scope | undefined): Scope {
  const statement = statementOf(node);
  const bindings: Binding[] = [];
  const add = (item: unknown): Binding | undefined => {
    const binding = toBinding(item);
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
    joins.push({ binding, facts: scopesJoined ? readFacts(filterOf(join.on, 'on')) : [] });
  }
  const scope: Scope = { bindings, parent };
  const finance = bindings.filter((b) => b.finance);
  if (finance.length === 0) return scope;

  const firstTable = (finance[0] as Binding).table as string;
  checkRawFilter(node.where, firstTable, statement);
  for (const join of (node.joins as readonly AnyNode[] | undefined) ?? []) checkRawFilter(join.on, firstTable, statement);
  checkRawFilter(node.having, firstTable, statement);

  const whereFacts = readFacts(filterOf(node.where, 'where'));
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
  const facts = readFacts(filterOf(onConflict.updateWhere, 'where')).map((f): Fact => {
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

export function createWorkspaceGuard(): KyselyPlugin {
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      visitQueryTree(args.node as OperationNode, undefined);
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
