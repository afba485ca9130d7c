/**
 * A tool's `inputSchema` and argument map: workspace_id, path/query/header parameters, the list
 * arguments (limit, cursor, sort_by, fields, filters) and the flattened request body. Any name
 * clash between these sources fails the build. Runtime validation of the schema is src/'s job.
 */
import type { ArgumentTarget, FilterOperator, JsonSchema } from '../src/runtime/types.js';
import { CodegenError } from './errors.js';
import { toArgumentName } from './naming.js';
import type { ListParameters, OperationModel, ParameterModel } from './plan-operation.js';

type Obj = Record<string, unknown>;

export interface PlannedInput {
  readonly inputSchema: JsonSchema;
  readonly args: Record<string, ArgumentTarget>;
  /** The request content type whose schema was flattened into arguments (null without a body). */
  readonly bodyContentType: string | null;
}

const WORKSPACE_ARGUMENT: JsonSchema = {
  type: 'string',
  format: 'uuid',
  description: 'Workspace to run in. Optional: defaults to the workspace chosen for this connection.',
};

/** Collects arguments in a fixed order and fails on the first clash. */
class ArgumentCollector {
  readonly properties: Record<string, JsonSchema> = {};
  readonly required: string[] = [];
  readonly args: Record<string, ArgumentTarget> = {};
  private readonly sources = new Map<string, string>();
  constructor(private readonly model: OperationModel) {}

  add(name: string, schema: JsonSchema, target: ArgumentTarget, required: boolean, source: string): void {
    const previous = this.sources.get(name);
    if (previous !== undefined) {
      throw new CodegenError('ARGUMENT_CLASH', this.model.file, this.model.pointer,
        `argument "${name}" from ${source} clashes with ${previous} in operation ${this.model.ref.operationId}`);
    }
    this.sources.set(name, source);
    this.properties[name] = schema;
    this.args[name] = target;
    if (required) this.required.push(name);
  }
}

/** Plans the input schema and argument map of one operation. */
export function planInput(model: OperationModel): PlannedInput {
  const collector = new ArgumentCollector(model);
  if (model.ref.workspaceScoped) collector.add('workspace_id', WORKSPACE_ARGUMENT, { in: 'workspace' }, false, 'the workspace argument');
  for (const where of ['path', 'query', 'header'] as const) {
    for (const parameter of model.parameters.filter((p) => p.in === where)) {
      collector.add(toArgumentName(parameter.name), parameter.schema, { in: where, name: parameter.name }, parameter.required,
        `the ${where} parameter "${parameter.name}"`);
    }
  }
  if (model.list) addListArguments(collector, model.list);
  const bodyContentType = addBodyArguments(collector, model);
  const inputSchema: Obj = { type: 'object', properties: collector.properties };
  if (collector.required.length > 0) inputSchema.required = collector.required;
  inputSchema.additionalProperties = false;
  return { inputSchema, args: collector.args, bodyContentType };
}

function addListArguments(collector: ArgumentCollector, list: ListParameters): void {
  collector.add('limit', list.limit.schema, { in: 'list', name: 'limit' }, false, 'the list argument "limit"');
  if (list.cursor) collector.add('cursor', list.cursor.schema, { in: 'list', name: 'cursor' }, false, 'the list argument "cursor"');
  if (list.sort) {
    const schema = { ...list.sort.schema, description: describeSort(list.sort) };
    collector.add('sort_by', schema, { in: 'list', name: 'sort' }, false, 'the list argument "sort_by"');
  }
  if (list.fields) collector.add('fields', list.fields.schema, { in: 'list', name: 'fields' }, false, 'the list argument "fields"');
  if (list.filters.length > 0) {
    const properties: Record<string, JsonSchema> = {};
    for (const filter of list.filters) properties[filter.name] = planFilterSchema(filter);
    collector.add('filters', {
      type: 'object',
      description: 'Filters, all of which must match. Each value is either the plain value (equals) or an object of operators, e.g. {"due_date": {"gte": "2026-01-01"}}.',
      properties,
      additionalProperties: false,
    }, { in: 'list', name: 'filters' }, false, 'the list argument "filters"');
  }
}

function describeSort(sort: ParameterModel): string {
  const base = sort.description ?? 'Sort order.';
  const direction = /descend/i.test(base) ? '' : ' A leading "-" sorts descending.';
  const fallback = sort.schema.default !== undefined && !/default/i.test(base) ? ` Default: ${String(sort.schema.default)}.` : '';
  return base + direction + fallback;
}

/** The most values one `in` filter takes; the same bound as MAX_IN_VALUES in src/api/list.ts. */
export const MAX_IN_FILTER_VALUES = 100;

/**
 * One filter: the scalar schema when only `eq` is supported; otherwise the scalar (eq) or an
 * object of the supported operators (`in` takes an array of 1 to MAX_IN_FILTER_VALUES values).
 */
export function planFilterSchema(filter: ParameterModel): JsonSchema {
  const operators = filter.filterOperators ?? ['eq'];
  const { description: _omit, ...scalar } = filter.schema as Obj;
  const description = `${filter.description ? filter.description + ' ' : ''}Operators: ${operators.join(', ')}.`;
  if (operators.length === 1 && operators[0] === 'eq') return { ...scalar, description };
  const operatorProperties: Record<string, JsonSchema> = {};
  for (const op of operators as FilterOperator[]) {
    operatorProperties[op] = op === 'in' ? { type: 'array', items: scalar, minItems: 1, maxItems: MAX_IN_FILTER_VALUES } : scalar;
  }
  const objectForm = { type: 'object', additionalProperties: false, minProperties: 1, properties: operatorProperties };
  if (!operators.includes('eq')) return { ...objectForm, description };
  const scalarTypes = Array.isArray(scalar.type) ? scalar.type : [scalar.type];
  return { type: [...new Set([...scalarTypes, 'object'])], description, anyOf: [scalar, objectForm] };
}

/** Flattens the request body (first JSON content type, else the first one) into arguments. */
function addBodyArguments(collector: ArgumentCollector, model: OperationModel): string | null {
  if (!model.requestBody) return null;
  const types = Object.keys(model.requestBody.content);
  const contentType = types.find((t) => /json/i.test(t)) ?? types[0];
  if (contentType === undefined) return null;
  const schema = model.requestBody.content[contentType] as Obj;
  const shape = extractObjectShape(schema);
  if (!shape) {
    // Not an object: the whole body is one argument (target name '' = the entire body).
    collector.add('body', schema, { in: 'body', name: '' }, model.requestBody.required, 'the request body');
    return contentType;
  }
  for (const [name, property] of Object.entries(shape.properties)) {
    if ((property as Obj).readOnly === true) continue; // OpenAPI: readOnly properties are not sent in requests
    collector.add(name, property as JsonSchema, { in: 'body', name }, shape.required.includes(name), `the body field "${name}"`);
  }
  return contentType;
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
