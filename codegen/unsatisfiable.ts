/**
 * Arguments that admit no value (EMPTY_ENUM): an `enum: []` (legal in 2020-12) or allOf members
 * whose enums have no value in common, which json-schema.ts writes as `not: {}` — and what admits
 * no value because of one: an `anyOf`/`oneOf` none of whose branches admits a value, an array of
 * at least one item whose items admit none. A tool cannot be called with such an argument, so each
 * one is reported, naming the tool and the argument: an optional one (a parameter, a list filter,
 * a body property at any depth, or an optional body whose required property has none) is hidden
 * from the tool (`hiddenArguments`, read by src/runtime/tool-view.ts), a required one excludes the
 * tool. Either way the REST route keeps the document's schemas and refuses such values as it says.
 * The body is judged by the content type the tool reads (its JSON one). `--strict` makes each
 * report an error.
 *
 *   pruneUnsatisfiable(plan): { plan, warnings }   // the plan with them hidden, and one warning each
 */
import { pickBodySchema } from '../src/runtime/tool-view.js';
import { buildViews } from '../src/runtime/views.js';
import type { HiddenArgument, JsonSchema, OperationDefinition } from '../src/runtime/types.js';
import { operationPointer, type SpecWarning } from './errors.js';
import { isNoValue } from './json-schema.js';
import type { PlannedDefinition, SpecPlan } from './plan-spec.js';
import { isPlainObject } from '../src/runtime/values.js';

type Obj = Record<string, unknown>;

const WHY = 'allows no value (an empty enum, or allOf enums with no value in common)';

/** What a schema's optional properties of no value are, or, when the schema admits no value, why. */
interface Pruned {
  /** Property paths of the optional properties of no value, at any depth of nested objects. */
  readonly dropped: readonly (readonly string[])[];
  /** When the schema admits no value: the property path of the (required) part that has none; else null. */
  readonly blockedBy: readonly string[] | null;
}

/** `not: {}`, a union none of whose branches admits a value, or an array of ≥ 1 item of no value. */
function admitsNoValue(node: Obj): boolean {
  if (isNoValue(node.not)) return true;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (Array.isArray(branches) && branches.length > 0 && branches.every((branch) => isPlainObject(branch) && admitsNoValue(branch))) return true;
  }
  const minItems = typeof node.minItems === 'number' ? node.minItems : 0;
  return minItems >= 1 && isPlainObject(node.items) && admitsNoValue(node.items);
}


function prune(schema: JsonSchema, at: readonly string[]): Pruned {
  const node = schema as Obj;
  if (admitsNoValue(node)) return { dropped: [], blockedBy: at };
  if (!isPlainObject(node.properties)) return { dropped: [], blockedBy: null };
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const dropped: (readonly string[])[] = [];
  for (const [name, child] of Object.entries(node.properties)) {
    const inner = prune(child as JsonSchema, [...at, name]);
    if (inner.blockedBy === null) dropped.push(...inner.dropped);
    else if (required.has(name)) return { dropped: [], blockedBy: inner.blockedBy };
    else dropped.push([...at, name]);
  }
  return { dropped, blockedBy: null };
}

interface Outcome {
  readonly hidden: readonly HiddenArgument[];
  /** Argument paths (`filters.status`, `options.mode`) of the hidden inputs, for the warnings. */
  readonly dropped: readonly string[];
  /** Why the tool is excluded (a required argument of no value), or null. */
  readonly excludedBy: string | null;
  /** Set when an optional body is hidden because its required property `blockedBy` has no value. */
  readonly bodyBlockedBy: string | null;
}

/** One input (parameter, filter or body) judged: its hidden parts, or what excludes the tool. */
function judge(schema: JsonSchema, where: HiddenArgument['in'], name: string, required: boolean, prefix: readonly string[], outcome: { hidden: HiddenArgument[]; dropped: string[] }): string[] | null {
  const pruned = prune(schema, []);
  if (pruned.blockedBy !== null) {
    if (required) return [...prefix, ...pruned.blockedBy];
    outcome.hidden.push({ in: where, name, path: [] });
    if (where !== 'body') outcome.dropped.push([...prefix].join('.'));
    return null;
  }
  for (const path of pruned.dropped) {
    outcome.hidden.push({ in: where, name, path });
    outcome.dropped.push([...prefix, ...path].join('.'));
  }
  return null;
}

function judgeDefinition(definition: OperationDefinition): Outcome {
  const outcome = { hidden: [] as HiddenArgument[], dropped: [] as string[] };
  let excludedBy: string[] | null = null;
  let bodyBlockedBy: string | null = null;
  for (const parameter of definition.parameters) {
    excludedBy ??= judge(parameter.schema, 'parameter', parameter.name, parameter.required, [parameter.name], outcome);
  }
  for (const filter of definition.list?.filters ?? []) judge(filter.schema, 'filter', filter.name, false, ['filters', filter.name], outcome);
  const body = pickBodySchema(definition.requestBody);
  if (body !== undefined && definition.requestBody) {
    const blocked = prune(body, []).blockedBy;
    if (blocked !== null && !definition.requestBody.required) bodyBlockedBy = blocked.length === 0 ? 'body' : blocked.join('.');
    excludedBy ??= judge(body, 'body', '', definition.requestBody.required, [], outcome);
  }
  return { ...outcome, excludedBy: excludedBy === null ? null : excludedBy.join('.') || 'body', bodyBlockedBy };
}

export function pruneUnsatisfiable(plan: SpecPlan): { plan: SpecPlan; warnings: SpecWarning[] } {
  const warnings: SpecWarning[] = [];
  let changed = false;
  const operations: PlannedDefinition[] = plan.operations.map((planned) => {
    const { toolName, operation } = planned.definition;
    if (toolName === null) return planned;
    const outcome = judgeDefinition(planned.definition);
    if (outcome.hidden.length === 0 && outcome.excludedBy === null) return planned;
    changed = true;
    const at = { rule: 'EMPTY_ENUM' as const, file: plan.file, pointer: operationPointer(operation) };
    if (outcome.excludedBy !== null) {
      warnings.push({ ...at, detail: `argument ${outcome.excludedBy} of ${toolName} is required and ${WHY}; the tool is excluded (its REST route stays)` });
      return { ...planned, definition: { ...planned.definition, toolName: null } };
    }
    for (const path of outcome.dropped) warnings.push({ ...at, detail: `argument ${path} of ${toolName} ${WHY}; it is dropped` });
    if (outcome.bodyBlockedBy !== null) {
      warnings.push({ ...at, detail: `the optional request body of ${toolName} requires ${outcome.bodyBlockedBy}, which ${WHY}; the tool takes no body` });
    }
    return { ...planned, definition: { ...planned.definition, hiddenArguments: outcome.hidden } };
  });
  if (!changed) return { plan, warnings };
  return { plan: { ...plan, operations, ...buildViews(operations.map((planned) => planned.definition)) }, warnings };
}
