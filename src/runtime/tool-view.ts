/**
 * The MCP tool of one operation, a view of its OperationDefinition: the `inputSchema` (workspace_id,
 * path/query/header parameters, the list arguments limit, cursor, sort_by, fields, filters, and the
 * flattened request body), the argument map and the annotations (the operation's classification).
 * Pure; the generator runs it too, so a name clash between argument sources fails the build.
 */
import type { ArgumentTarget, FilterOperator, JsonSchema, ListDefinition, ListParameterDefinition, OperationDefinition, ToolDefinition } from './types.js';

type Obj = { [key: string]: unknown };

/** Two sources of one operation produce the same argument name (reported by the generator). */
export class ArgumentClashError extends Error {
  constructor(readonly argument: string, readonly source: string, readonly previous: string) {
    super(`argument "${argument}" from ${source} clashes with ${previous}`);
  }
}

const WORKSPACE_ARGUMENT: JsonSchema = {
  type: 'string',
  format: 'uuid',
  description: 'Workspace to run in. Optional: defaults to the workspace chosen for this connection.',
};

/** The most values one `in` filter takes; the same bound as MAX_IN_VALUES in src/api/list.ts. */
export const MAX_IN_FILTER_VALUES = 100;

/** Collects arguments in a fixed order and fails on the first clash. */
class ArgumentCollector {
  readonly properties: { [name: string]: JsonSchema } = {};
  readonly required: string[] = [];
  readonly args: { [name: string]: ArgumentTarget } = {};
  private readonly sources = new Map<string, string>();

  add(name: string, schema: JsonSchema, target: ArgumentTarget, required: boolean, source: string): void {
    const previous = this.sources.get(name);
    if (previous !== undefined) throw new ArgumentClashError(name, source, previous);
    this.sources.set(name, source);
    this.properties[name] = schema;
    this.args[name] = target;
    if (required) this.required.push(name);
  }
}

/** The tool of an operation that has a tool name (`toolName` non-null). */
export function toToolView(definition: OperationDefinition & { readonly toolName: string }): ToolDefinition {
  const { operation } = definition;
  const { inputSchema, args } = planToolInput(definition);
  return {
    name: definition.toolName,
    title: definition.title,
    description: definition.description,
    inputSchema,
    annotations: {
      title: definition.title,
      readOnlyHint: operation.readOnly,
      destructiveHint: operation.destructive,
      idempotentHint: operation.idempotent,
      openWorldHint: false,
    },
    operation,
    args,
    minBodyArguments: readBodyMinProperties(definition.requestBody),
  };
}

/** `minProperties` of the body schema the arguments were flattened from (0 when absent). */
function readBodyMinProperties(requestBody: OperationDefinition['requestBody']): number {
  const min = pickBodySchema(requestBody)?.minProperties;
  return typeof min === 'number' && Number.isInteger(min) && min > 0 ? min : 0;
}

/** The body schema tools are built from: the first JSON content type, else the first one. */
function pickBodySchema(requestBody: OperationDefinition['requestBody']): Obj | undefined {
  if (!requestBody) return undefined;
  const types = Object.keys(requestBody.content);
  const contentType = types.find((t) => /json/i.test(t)) ?? types[0];
  return contentType === undefined ? undefined : (requestBody.content[contentType] as Obj);
}

/** The input schema and argument map of one operation; throws ArgumentClashError. */
export function planToolInput(definition: OperationDefinition): { inputSchema: JsonSchema; args: { [name: string]: ArgumentTarget } } {
  const collector = new ArgumentCollector();
  if (definition.operation.workspaceScoped) collector.add('workspace_id', WORKSPACE_ARGUMENT, { in: 'workspace' }, false, 'the workspace argument');
  for (const where of ['path', 'query', 'header'] as const) {
    for (const parameter of definition.parameters.filter((p) => p.in === where)) {
      collector.add(toArgumentName(parameter.name), parameter.schema, { in: where, name: parameter.name }, parameter.required,
        `the ${where} parameter "${parameter.name}"`);
    }
  }
  if (definition.list) addListArguments(collector, definition.list);
  addBodyArguments(collector, definition.requestBody);
  const inputSchema: Obj = { type: 'object', properties: collector.properties };
  if (collector.required.length > 0) inputSchema.required = collector.required;
  inputSchema.additionalProperties = false;
  return { inputSchema, args: collector.args };
}

/** `payables.settle` → `payables_settle`; `getPetById` → `get_pet_by_id`; `Pagamentos-Ação` → `pagamentos_acao`. */
export function toSnakeCase(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** Header parameter → argument name: `Idempotency-Key` → `idempotency_key`. */
export function toArgumentName(parameterName: string): string {
  return toSnakeCase(parameterName) || 'value';
}

function addListArguments(collector: ArgumentCollector, list: ListDefinition): void {
  collector.add('limit', list.limit, { in: 'list', name: 'limit' }, false, 'the list argument "limit"');
  if (list.cursor) collector.add('cursor', list.cursor, { in: 'list', name: 'cursor' }, false, 'the list argument "cursor"');
  if (list.sort) {
    const schema = { ...list.sort.schema, description: describeSort(list.sort) };
    collector.add('sort_by', schema, { in: 'list', name: 'sort' }, false, 'the list argument "sort_by"');
  }
  if (list.fields) collector.add('fields', list.fields, { in: 'list', name: 'fields' }, false, 'the list argument "fields"');
  if (list.filters.length > 0) {
    const properties: { [name: string]: JsonSchema } = {};
    for (const filter of list.filters) properties[filter.name] = planFilterSchema(filter);
    collector.add('filters', {
      type: 'object',
      description: 'Filters, all of which must match. Each value is either the plain value (equals) or an object of operators, e.g. {"due_date": {"gte": "2026-01-01"}}.',
      properties,
      additionalProperties: false,
    }, { in: 'list', name: 'filters' }, false, 'the list argument "filters"');
  }
}

function describeSort(sort: ListParameterDefinition): string {
  const base = sort.description ?? 'Sort order.';
  const direction = /descend/i.test(base) ? '' : ' A leading "-" sorts descending.';
  const fallback = sort.schema.default !== undefined && !/default/i.test(base) ? ` Default: ${String(sort.schema.default)}.` : '';
  return base + direction + fallback;
}

/**
 * One filter: the scalar schema when only `eq` is supported; otherwise the scalar (eq) or an
 * object of the supported operators (`in` takes an array of 1 to MAX_IN_FILTER_VALUES values).
 */
export function planFilterSchema(filter: ListDefinition['filters'][number]): JsonSchema {
  const { operators, schema: scalar } = filter;
  const description = `${filter.description ? filter.description + ' ' : ''}Operators: ${operators.join(', ')}.`;
  if (operators.length === 1 && operators[0] === 'eq') return { ...scalar, description };
  const operatorProperties: { [op: string]: JsonSchema } = {};
  for (const op of operators as readonly FilterOperator[]) {
    operatorProperties[op] = op === 'in' ? { type: 'array', items: scalar, minItems: 1, maxItems: MAX_IN_FILTER_VALUES } : scalar;
  }
  const objectForm = { type: 'object', additionalProperties: false, minProperties: 1, properties: operatorProperties };
  if (!operators.includes('eq')) return { ...objectForm, description };
  const scalarTypes = Array.isArray(scalar.type) ? scalar.type : [scalar.type];
  return { type: [...new Set([...scalarTypes, 'object'])], description, anyOf: [scalar, objectForm] };
}

/** Flattens the request body (first JSON content type, else the first one) into arguments. */
function addBodyArguments(collector: ArgumentCollector, requestBody: OperationDefinition['requestBody']): void {
  const schema = pickBodySchema(requestBody);
  if (!requestBody || schema === undefined) return;
  const shape = extractObjectShape(schema);
  if (!shape) {
    // Not an object: the whole body is one argument (target name '' = the entire body).
    collector.add('body', schema, { in: 'body', name: '' }, requestBody.required, 'the request body');
    return;
  }
  for (const [name, property] of Object.entries(shape.properties)) {
    if ((property as Obj).readOnly === true) continue; // OpenAPI: readOnly properties are not sent in requests
    collector.add(name, property as JsonSchema, { in: 'body', name }, shape.required.includes(name), `the body field "${name}"`);
  }
}

/** The properties and required list of an object body (unions of objects are merged). */
export function extractObjectShape(schema: Obj): { properties: Obj; required: string[] } | null {
  if (schema.properties && typeof schema.properties === 'object') {
    return { properties: schema.properties as Obj, required: (schema.required as string[] | undefined) ?? [] };
  }
  const members = (schema.oneOf ?? schema.anyOf) as Obj[] | undefined;
  if (!Array.isArray(members)) return null;
  const shapes = members.map(extractObjectShape);
  if (shapes.length === 0 || shapes.some((s) => s === null)) return null;
  const properties: Obj = {};
  for (const shape of shapes) for (const [k, v] of Object.entries(shape!.properties)) properties[k] ??= v;
  // A field is required only when every alternative requires it.
  const required = shapes[0]!.required.filter((name) => shapes.every((s) => s!.required.includes(name)));
  return { properties, required };
}
