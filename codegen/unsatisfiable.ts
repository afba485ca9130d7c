/**
 * Arguments that admit no value (EMPTY_ENUM): an `enum: []` (legal in 2020-12) or allOf members
 * whose enums have no value in common, which json-schema.ts writes as `not: {}`. A tool cannot be
 * called with such an argument, so each one is reported, naming the tool and the argument: an
 * optional one is dropped from the operation (a request could never carry it anyway), a required
 * one excludes the operation's tool (its REST route stays, and refuses every request as the
 * document says). `--strict` makes each report an error.
 *
 *   pruneUnsatisfiable(plan): { plan, warnings }   // the plan without them, and one warning each
 */
import { buildViews } from '../src/runtime/views.js';
import type { JsonSchema, OperationDefinition, ParameterSpec } from '../src/runtime/types.js';
import { operationPointer, type SpecWarning } from './errors.js';
import { isNoValue } from './json-schema.js';
import type { PlannedDefinition, SpecPlan } from './plan-spec.js';

type Obj = Record<string, unknown>;

const WHY = 'allows no value (an empty enum, or allOf enums with no value in common)';

/** What is left of a schema once its optional properties of no value are gone. */
interface Pruned {
  /** null when the schema admits no value. */
  readonly schema: JsonSchema | null;
  /** Argument paths (`filters.status`) of the optional properties removed. */
  readonly dropped: readonly string[];
  /** When the schema admits no value: the path of the (required) part that has none. */
  readonly blockedBy: string | null;
}

const join = (at: string, name: string): string => (at === '' ? name : `${at}.${name}`);

/** Removes optional properties of no value at any depth of nested objects; `at` is the schema's argument path. */
function prune(schema: JsonSchema, at: string): Pruned {
  const node = schema as Obj;
  if (isNoValue(node.not)) return { schema: null, dropped: [], blockedBy: at };
  if (!node.properties || typeof node.properties !== 'object') return { schema, dropped: [], blockedBy: null };
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  const dropped: string[] = [];
  const properties: Obj = {};
  for (const [name, child] of Object.entries(node.properties as Obj)) {
    const inner = prune(child as JsonSchema, join(at, name));
    dropped.push(...inner.dropped);
    if (inner.schema !== null) properties[name] = inner.schema;
    else if (required.has(name)) return { schema: null, dropped, blockedBy: inner.blockedBy };
    else dropped.push(join(at, name));
  }
  return { schema: dropped.length === 0 ? schema : ({ ...node, properties } as JsonSchema), dropped, blockedBy: null };
}

interface Outcome {
  readonly definition: OperationDefinition;
  readonly dropped: readonly string[];
  /** The required argument that excludes the tool, if any. */
  readonly excludedBy: string | null;
}

function pruneParameters(parameters: readonly ParameterSpec[], dropped: string[]): { parameters: ParameterSpec[]; excludedBy: string | null } {
  const kept: ParameterSpec[] = [];
  for (const parameter of parameters) {
    const pruned = prune(parameter.schema, parameter.name);
    dropped.push(...pruned.dropped);
    if (pruned.schema !== null) kept.push({ ...parameter, schema: pruned.schema });
    else if (parameter.required) return { parameters: kept, excludedBy: pruned.blockedBy };
    else dropped.push(parameter.name);
  }
  return { parameters: kept, excludedBy: null };
}

/** Every content type's schema pruned alike (the tool reads the first JSON one, the route any). */
function pruneBody(requestBody: NonNullable<OperationDefinition['requestBody']>, dropped: string[]): { requestBody: typeof requestBody; excludedBy: string | null } {
  const content: { [contentType: string]: JsonSchema } = {};
  let excludedBy: string | null = null;
  for (const [contentType, schema] of Object.entries(requestBody.content)) {
    const pruned = prune(schema, '');
    for (const path of pruned.dropped) if (!dropped.includes(path)) dropped.push(path);
    if (pruned.schema === null && requestBody.required) excludedBy ??= pruned.blockedBy || 'body';
    content[contentType] = pruned.schema ?? schema;
  }
  return { requestBody: { ...requestBody, content }, excludedBy };
}

function pruneDefinition(definition: OperationDefinition): Outcome {
  const dropped: string[] = [];
  const parameters = pruneParameters(definition.parameters, dropped);
  const body = definition.requestBody === null ? null : pruneBody(definition.requestBody, dropped);
  const excludedBy = parameters.excludedBy ?? body?.excludedBy ?? null;
  const pruned: OperationDefinition = {
    ...definition,
    parameters: parameters.parameters,
    requestBody: body?.requestBody ?? null,
    toolName: excludedBy === null ? definition.toolName : null,
  };
  return { definition: dropped.length === 0 && excludedBy === null ? definition : pruned, dropped, excludedBy };
}

export function pruneUnsatisfiable(plan: SpecPlan): { plan: SpecPlan; warnings: SpecWarning[] } {
  const warnings: SpecWarning[] = [];
  let changed = false;
  const operations: PlannedDefinition[] = plan.operations.map((planned) => {
    const { toolName, operation } = planned.definition;
    if (toolName === null) return planned;
    const outcome = pruneDefinition(planned.definition);
    if (outcome.definition === planned.definition) return planned;
    changed = true;
    const at = { rule: 'EMPTY_ENUM' as const, file: plan.file, pointer: operationPointer(operation) };
    for (const path of outcome.dropped) warnings.push({ ...at, detail: `argument ${path} of ${toolName} ${WHY}; it is dropped` });
    if (outcome.excludedBy !== null) {
      warnings.push({ ...at, detail: `argument ${outcome.excludedBy} of ${toolName} is required and ${WHY}; the tool is excluded (its REST route stays)` });
    }
    return { ...planned, definition: outcome.definition };
  });
  if (!changed) return { plan, warnings };
  return { plan: { ...plan, operations, ...buildViews(operations.map((planned) => planned.definition)) }, warnings };
}
