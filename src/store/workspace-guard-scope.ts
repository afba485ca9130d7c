/**
 * Reads a Kysely operation tree into what the workspace guard reasons about: which finance tables
 * a query level binds (by alias), which `workspace_id` facts its filters state, and which
 * bindings those facts scope. It throws nothing and knows no statement rules: deciding what a
 * query must satisfy, and refusing it, is `workspace-guard.ts`'s job. Node kinds are told apart
 * with Kysely's typed guards (`ColumnNode.is(node)`), on anything `isNode` accepts.
 */
import {
  AliasNode, AndNode, BinaryOperationNode, ColumnNode, IdentifierNode, OperatorNode, OrNode, ParensNode, PrimitiveValueListNode,
  ReferenceNode, TableNode, ValueListNode, ValueNode, type OperationNode,
} from 'kysely';

/** Tables whose rows belong to one workspace; every other table is identity/infrastructure. */
export const FINANCE_TABLES: ReadonlySet<string> = new Set([
  'companies', 'accounts', 'categories', 'cost_centers', 'people', 'taxes', 'titles', 'allocations',
  'transactions', 'transfers', 'blobs', 'attachments', 'attachment_links', 'activity', 'idempotency_keys',
  'security_settings', 'confirmation_nonces',
  'statement_lines', 'reconciliations', 'reconciliation_items', 'classification_rules',
  'money_moves', 'payee_allowlist', 'approval_requests',
]);

export const WORKSPACE_COLUMN = 'workspace_id';

export type AnyNode = { readonly kind: string; readonly [key: string]: unknown };

/** Any node of a Kysely operation tree (what the typed guards `ColumnNode.is(node)`, … take). */
export function isNode(value: unknown): value is AnyNode & OperationNode {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}

export function readIdentifierName(node: unknown): string | undefined {
  return isNode(node) && IdentifierNode.is(node) && typeof node.name === 'string' ? node.name : undefined;
}

/** The table name of a TableNode, or of an AliasNode wrapping one. */
export function readTableName(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (AliasNode.is(node)) return readTableName(node.node);
  if (!TableNode.is(node)) return undefined;
  return readIdentifierName(node.table?.identifier);
}

export function isFinanceTable(name: string | undefined): name is string {
  return name !== undefined && FINANCE_TABLES.has(name);
}

function unwrapParens(node: unknown): unknown {
  let current = node;
  while (isNode(current) && ParensNode.is(current)) current = current.node;
  return current;
}

/** The node under its parentheses, when it is one of Kysely's nodes. */
function unwrapNode(node: unknown): OperationNode | undefined {
  const inner = unwrapParens(node);
  return isNode(inner) ? inner : undefined;
}

// ───────────────────────────── scopes and bindings ─────────────────────────────

/** One FROM/JOIN/target item of a query level, by the name SQL resolves it with. */
export interface Binding {
  readonly alias: string | undefined;
  readonly table: string | undefined;
  readonly finance: boolean;
  scoped: boolean;
}

export interface Scope {
  readonly bindings: readonly Binding[];
  readonly parent: Scope | undefined;
}

export function readBinding(item: unknown): Binding | undefined {
  if (!isNode(item)) return undefined;
  if (TableNode.is(item)) {
    const table = readTableName(item);
    return { alias: table, table, finance: isFinanceTable(table), scoped: false };
  }
  if (AliasNode.is(item)) {
    const table = readTableName(item.node);
    const alias = readIdentifierName(item.alias);
    return { alias, table, finance: isFinanceTable(table), scoped: false };
  }
  return undefined;
}

/** A reference to some table's `workspace_id`: `qualifier` is the alias, undefined when bare. */
export interface WorkspaceRef {
  readonly qualifier: string | undefined;
}

export function readWorkspaceRef(node: unknown): WorkspaceRef | undefined {
  const inner = unwrapNode(node);
  if (!inner) return undefined;
  if (ColumnNode.is(inner)) {
    return readIdentifierName(inner.column) === WORKSPACE_COLUMN ? { qualifier: undefined } : undefined;
  }
  if (ReferenceNode.is(inner)) {
    if (!ColumnNode.is(inner.column) || readIdentifierName(inner.column.column) !== WORKSPACE_COLUMN) return undefined;
    if (inner.table === undefined) return { qualifier: undefined };
    const qualifier = readTableName(inner.table);
    return qualifier === undefined ? undefined : { qualifier };
  }
  return undefined;
}

/** A bound value: a parameter or an immediate literal, never a column, subquery or raw SQL. */
export function isBoundValue(node: unknown): boolean {
  const inner = unwrapNode(node);
  return inner !== undefined && ValueNode.is(inner);
}

function isValueList(node: unknown): boolean {
  const inner = unwrapNode(node);
  if (!inner) return false;
  if (PrimitiveValueListNode.is(inner)) return Array.isArray(inner.values);
  if (ValueListNode.is(inner)) return Array.isArray(inner.values) && inner.values.every(isBoundValue);
  return false;
}

export type Fact =
  | { readonly kind: 'value'; readonly ref: WorkspaceRef }
  | { readonly kind: 'equal'; readonly left: WorkspaceRef; readonly right: WorkspaceRef };

function readOperator(node: unknown): string | undefined {
  return isNode(node) && OperatorNode.is(node) && typeof node.operator === 'string' ? node.operator : undefined;
}

/** The scoping fact a single conjunct states, if any. */
function readFact(conjunct: unknown): Fact | undefined {
  const node = unwrapNode(conjunct);
  if (!node || !BinaryOperationNode.is(node)) return undefined;
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
    if (isNode(inner) && AndNode.is(inner)) {
      if (OrNode.is(inner.left) || OrNode.is(inner.right)) poisoned = true;
      visit(inner.left);
      visit(inner.right);
      return;
    }
    out.push(inner);
  };
  visit(filter);
  return poisoned ? [] : out;
}

export function readFacts(filter: unknown): Fact[] {
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

export function resolve(ref: WorkspaceRef, scope: Scope): Resolution {
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

function findLocalBinding(ref: WorkspaceRef, scope: Scope): Binding | undefined {
  const r = resolve(ref, scope);
  return r.kind === 'local' ? r.binding : undefined;
}

/** Applies facts; `only` restricts which binding they may scope (a join's ON scopes its table). */
export function applyFacts(facts: readonly Fact[], scope: Scope, only?: Binding): boolean {
  let changed = false;
  const mark = (binding: Binding | undefined): void => {
    if (!binding || binding.scoped || (only && binding !== only)) return;
    binding.scoped = true;
    changed = true;
  };
  for (const fact of facts) {
    if (fact.kind === 'value') {
      mark(findLocalBinding(fact.ref, scope));
      continue;
    }
    const left = resolve(fact.left, scope);
    const right = resolve(fact.right, scope);
    if (left.kind === 'local' && isScopedSide(right) && !(right.kind === 'local' && right.binding === left.binding)) mark(left.binding);
    if (right.kind === 'local' && isScopedSide(left) && !(left.kind === 'local' && left.binding === right.binding)) mark(right.binding);
  }
  return changed;
}

/** Right and full joins preserve the joined table's rows whatever ON says, so their ON scopes nothing. */
export const ON_SCOPES_JOINED_TABLE = new Set(['InnerJoin', 'LeftJoin', 'LateralInnerJoin', 'LateralLeftJoin']);

export interface JoinScope {
  readonly binding: Binding | undefined;
  readonly facts: readonly Fact[];
}
