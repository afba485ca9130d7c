/**
 * The review copy `generated/tools-review.gen.json`: per tool, what classifying a change needs and
 * clients are not served — every scope and panel permission a call requires (the operation's and
 * those of the resources it must reach, src/runtime/required-access.ts), whether it moves money, its classification, its
 * confirmation kind, its toolsets, the validation bounds its shown `inputSchema` leaves out, its
 * model-visible tokens, its former names and its acknowledged break — plus the acknowledged breaks of
 * operations whose tool is gone (`x-mcp.exclude` with `x-mcp.breaking`). With tools-list.gen.json
 * (what `tools/list` shows) it is everything the change report compares (diff.ts). Nothing imports it.
 */
import { NO_PERMISSION } from '../../src/identity/permissions.js';
import { requiredAccess } from '../../src/runtime/required-access.js';
import type { OperationBounds, OperationRef, ToolAlias, ToolDefinition } from '../../src/runtime/types.js';
import type { SpecPlan } from '../plan-spec.js';
import type { BreakingAcknowledgement } from './extensions.js';
import { propertyPath, structuralChildren, resolveRef, type Obj } from './schema-paths.js';
import { countModelVisible } from './tokens.js';
import { isPlainObject } from '../../src/runtime/values.js';

export const REVIEW_FILE = 'tools-review.gen.json';
export const TOOLS_LIST_FILE = 'tools-list.gen.json';
/** Bumped when the shape of the file changes, so a reader can tell an older copy. */
export const REVIEW_VERSION = 2;

/** Keyword → value, per path (schema-paths.ts); the root '' also holds the operation's own bounds. */
export type Bounds = { readonly [path: string]: { readonly [keyword: string]: unknown } };

export interface ReviewTool {
  readonly name: string;
  readonly operationId: string;
  readonly toolsets: readonly string[];
  /** Every scope a call requires, sorted: the operation's security requirement and its required resources'. */
  readonly scopes: readonly string[];
  /** Every panel permission a call requires, sorted (`none`, which every member holds, left out). */
  readonly permissions: readonly string[];
  readonly movesMoney: boolean;
  /** The measure of what it moves out (`x-kobana-moves-money.outflow`), null when nothing; absent in a review copy written before issue 29. */
  readonly outflow?: string | null;
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  /** How the person confirms a destructive call: a sentence template, a describer, or null (not destructive). */
  readonly confirmation: 'template' | 'describer' | null;
  readonly tokens: number;
  readonly bounds: Bounds;
  /** Former names, deprecated: answered by tools/call until their date, never listed. */
  readonly aliases: readonly ToolAlias[];
  readonly breaking: BreakingAcknowledgement | null;
}

/** An operation whose tool was removed on purpose (`x-mcp.exclude` and `x-mcp.breaking`). */
export interface RetiredTool extends BreakingAcknowledgement {
  readonly operationId: string;
}

export interface ReviewCopy {
  readonly version: number;
  readonly tools: readonly ReviewTool[];
  readonly retired: readonly RetiredTool[];
}

/** The keywords of an argument schema a model is not shown (src/runtime/tool-schema.ts) that bound what a call may send. */
const BOUND_KEYWORDS = ['minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties'] as const;

export function buildReview(plan: SpecPlan): ReviewCopy {
  const byOperation = new Map(plan.operations.map((planned) => [planned.definition.operation.operationId, planned] as const));
  const retired = plan.operations.flatMap(({ definition, breaking }) => (definition.toolName === null && breaking !== null
    ? [{ operationId: definition.operation.operationId, ...breaking }]
    : []));
  const tools = plan.tools.map((tool) => {
    const planned = byOperation.get(tool.operation.operationId);
    return reviewTool(tool, planned?.breaking ?? null, planned?.definition.bounds ?? null);
  });
  return { version: REVIEW_VERSION, tools, retired };
}

export function renderReview(plan: SpecPlan): string {
  return `${JSON.stringify(buildReview(plan), null, 2)}\n`;
}

function reviewTool(tool: ToolDefinition, breaking: BreakingAcknowledgement | null, declared: OperationBounds | null): ReviewTool {
  const { operation } = tool;
  const confirmation = operation.confirmation === null ? null : 'template' in operation.confirmation ? 'template' : 'describer';
  return {
    name: tool.name,
    operationId: operation.operationId,
    toolsets: tool.toolsets,
    ...requiredGrants(operation),
    movesMoney: operation.movesMoney,
    outflow: operation.outflow,
    readOnly: operation.readOnly,
    destructive: operation.destructive,
    idempotent: operation.idempotent,
    confirmation,
    tokens: countModelVisible(tool),
    bounds: collectBounds(tool, declared),
    aliases: tool.aliases ?? [],
    breaking,
  };
}

/** What the server checks before a call runs (src/api/authorize.ts assertScope, assertPermission, canReach). */
function requiredGrants(operation: OperationRef): { scopes: string[]; permissions: string[] } {
  const accesses = requiredAccess(operation);
  const scopes = new Set([...operation.scopes, ...accesses.flatMap((access) => access.scopes)]);
  const permissions = new Set([operation.permission, ...accesses.map((access) => access.permission)]);
  permissions.delete(NO_PERMISSION);
  return { scopes: [...scopes].sort(), permissions: [...permissions].sort() };
}

/** The bound keywords of the argument schema by path, and at the root the body's `minProperties` and the operation's `x-kobana-bounds`. */
function collectBounds(tool: ToolDefinition, declared: OperationBounds | null): Bounds {
  const bounds: Record<string, Obj> = {};
  const root = tool.argumentSchema as Obj;
  const visit = (node: Obj, at: string, seen: ReadonlySet<Obj>): void => {
    const schema = resolveRef(root, node);
    if (schema === undefined || seen.has(schema)) return;
    const inner = new Set(seen).add(schema);
    const found = Object.fromEntries(BOUND_KEYWORDS.filter((keyword) => schema[keyword] !== undefined).map((keyword) => [keyword, schema[keyword]]));
    if (Object.keys(found).length > 0) bounds[at] = { ...bounds[at], ...found };
    for (const [name, child] of Object.entries(isPlainObject(schema.properties) ? schema.properties : {})) if (isPlainObject(child)) visit(child, propertyPath(at, name), inner);
    for (const [path, child] of structuralChildren(schema, at)) if (isPlainObject(child)) visit(child, path, inner);
  };
  visit(root, '', new Set());
  const operationBounds = { ...(tool.minBodyArguments > 0 ? { minProperties: tool.minBodyArguments } : {}), ...readOperationBounds(declared) };
  if (Object.keys(operationBounds).length > 0) bounds[''] = { ...bounds[''], ...operationBounds };
  return bounds;
}

/** `x-kobana-bounds` as root keywords: `maxDays <from>..<to>` per date span, then the data bounds it declares. */
function readOperationBounds(declared: OperationBounds | null): Obj {
  if (declared === null) return {};
  const found: Obj = {};
  for (const span of declared.spans) found[`maxDays ${span.from}..${span.to}`] = span.maxDays;
  for (const key of ['maxScanned', 'maxPerWorkspace', 'maxLines', 'maxTags'] as const) if (declared[key] !== null) found[key] = declared[key];
  return found;
}
