/**
 * The MCP tool of one operation, a view of its OperationDefinition: the `inputSchema` (workspace_id,
 * path/query/header parameters, the list arguments limit, cursor, sort_by, fields, filters, and the
 * flattened request body), the argument map and the annotations (the operation's classification).
 * Two inputs with one name are told apart by renaming (tool-argument-names.ts); what a model is
 * shown is kept short (tool-schema.ts). Pure; the generator runs it too.
 */
import { ArgumentCollector } from './tool-argument-names.js';
import { planFilterSchema, SHARED_ARGUMENT_TEXTS, slimSchema, toShownSchema, toShownText } from './tool-schema.js';
import { setOwn } from './values.js';
import type { ArgumentTarget, HiddenArgument, JsonSchema, ListDefinition, OperationDefinition, ToolInputView } from './types.js';

type Obj = { [key: string]: unknown };

const WORKSPACE_ARGUMENT: JsonSchema = { type: 'string', format: 'uuid', description: SHARED_ARGUMENT_TEXTS.workspace };

/** The tool of an operation that has a tool name (`toolName` non-null). */
export function toToolView(definition: OperationDefinition & { readonly toolName: string }): ToolInputView {
  const { operation } = definition;
  const { argumentSchema, args } = planToolInput(definition);
  return {
    name: definition.toolName,
    title: definition.title,
    description: toShownText(definition.description),
    inputSchema: toShownSchema(argumentSchema),
    argumentSchema,
    annotations: {
      title: definition.title,
      readOnlyHint: operation.readOnly,
      destructiveHint: operation.destructive,
      idempotentHint: operation.idempotent,
      openWorldHint: false,
    },
    ...(definition.toolAliases?.length ? { aliases: definition.toolAliases } : {}),
    operation,
    args,
    minBodyArguments: readBodyMinProperties(toolBody(definition)),
  };
}

/** `minProperties` of the body schema the arguments were flattened from (0 when absent). */
function readBodyMinProperties(body: ToolBody | null): number {
  const min = body?.schema.minProperties;
  return typeof min === 'number' && Number.isInteger(min) && min > 0 ? min : 0;
}

/** The body schema tools are built from: the first JSON content type, else the first one. */
export function pickBodySchema(requestBody: OperationDefinition['requestBody']): Obj | undefined {
  if (!requestBody) return undefined;
  const types = Object.keys(requestBody.content);
  const contentType = types.find((t) => /json/i.test(t)) ?? types[0];
  return contentType === undefined ? undefined : (requestBody.content[contentType] as Obj);
}

/** The argument schema (what the server validates) and argument map of one operation. */
function planToolInput(definition: OperationDefinition): { argumentSchema: JsonSchema; args: { [name: string]: ArgumentTarget } } {
  const collector = new ArgumentCollector();
  if (definition.operation.workspaceScoped) collector.add('workspace_id', WORKSPACE_ARGUMENT, { in: 'workspace' }, false, 'workspace');
  const hidden = definition.hiddenArguments ?? [];
  for (const where of ['path', 'query', 'header'] as const) {
    for (const declared of definition.parameters.filter((p) => p.in === where)) {
      const schema = withoutHidden(declared.schema, hidden, 'parameter', declared.name);
      if (schema === null) continue;
      const parameter = { ...declared, schema };
      collector.add(toArgumentName(parameter.name), describeParameter(parameter), { in: where, name: parameter.name }, parameter.required, where, parameter.name);
    }
  }
  if (definition.list) addListArguments(collector, definition.list, hidden);
  addBodyArguments(collector, toolBody(definition));
  const { properties, required, args } = collector.resolve();
  const argumentSchema: { [key: string]: unknown } = { type: 'object', properties };
  if (required.length > 0) argumentSchema.required = required;
  argumentSchema.additionalProperties = false;
  return { argumentSchema, args };
}

/** A parameter's schema as a tool shows it; the Idempotency-Key header gets the MCP wording. */
function describeParameter(parameter: OperationDefinition['parameters'][number]): JsonSchema {
  const schema = slimSchema(parameter.schema);
  if (parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key') return { ...schema, description: SHARED_ARGUMENT_TEXTS.idempotencyKey };
  return schema;
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

function addListArguments(collector: ArgumentCollector, list: ListDefinition, hidden: readonly HiddenArgument[]): void {
  collector.add('limit', { ...slimSchema(list.limit), description: SHARED_ARGUMENT_TEXTS.limit }, { in: 'list', name: 'limit' }, false, 'list');
  if (list.cursor) collector.add('cursor', { ...slimSchema(list.cursor), description: SHARED_ARGUMENT_TEXTS.cursor }, { in: 'list', name: 'cursor' }, false, 'list');
  if (list.sort) collector.add('sort_by', { ...slimSchema(list.sort.schema), description: SHARED_ARGUMENT_TEXTS.sortBy }, { in: 'list', name: 'sort' }, false, 'list');
  if (list.fields) collector.add('fields', { ...slimSchema(list.fields), description: SHARED_ARGUMENT_TEXTS.fields }, { in: 'list', name: 'fields' }, false, 'list');
  if (list.filters.length > 0) {
    const properties: { [name: string]: JsonSchema } = {};
    for (const filter of list.filters) {
      const schema = withoutHidden(filter.schema, hidden, 'filter', filter.name);
      if (schema !== null) properties[filter.name] = planFilterSchema({ ...filter, schema });
    }
    collector.add('filters', { type: 'object', description: SHARED_ARGUMENT_TEXTS.filters, properties, additionalProperties: false },
      { in: 'list', name: 'filters' }, false, 'list');
  }
}

interface ToolBody {
  readonly schema: Obj;
  readonly required: boolean;
}

/** The request body schema the tool takes (pickBodySchema) without its hidden parts; null when it takes none. */
function toolBody(definition: OperationDefinition): ToolBody | null {
  const { requestBody } = definition;
  const schema = pickBodySchema(requestBody);
  if (!requestBody || schema === undefined) return null;
  const kept = withoutHidden(schema, definition.hiddenArguments ?? [], 'body', '');
  return kept === null ? null : { schema: kept as Obj, required: requestBody.required };
}

/** `schema` without the hidden property paths of one input; null when the whole input is hidden. */
function withoutHidden(schema: JsonSchema, hidden: readonly HiddenArgument[], where: HiddenArgument['in'], name: string): JsonSchema | null {
  let kept: JsonSchema | null = schema;
  for (const h of hidden) if (kept !== null && h.in === where && h.name === name) kept = withoutProperty(kept, h.path);
  return kept;
}

function withoutProperty(schema: JsonSchema, path: readonly string[]): JsonSchema | null {
  if (path.length === 0) return null;
  const [name, ...rest] = path as [string, ...string[]];
  const properties = schema.properties as Obj | undefined;
  if (!properties || typeof properties !== 'object' || !Object.hasOwn(properties, name)) return schema;
  const kept: Obj = {};
  for (const [key, child] of Object.entries(properties)) {
    const value = key === name ? withoutProperty(child as JsonSchema, rest) : child;
    if (value !== null) setOwn(kept, key, value);
  }
  return { ...schema, properties: kept };
}

/** Flattens the request body (first JSON content type, else the first one) into arguments. */
function addBodyArguments(collector: ArgumentCollector, body: ToolBody | null): void {
  if (body === null) return;
  const { schema } = body;
  const shape = extractObjectShape(schema);
  if (!shape) {
    // Not an object: the whole body is one argument (target name '' = the entire body).
    collector.add('body', slimSchema(schema), { in: 'body', name: '' }, body.required, 'body');
    return;
  }
  for (const [name, property] of Object.entries(shape.properties)) {
    if ((property as Obj).readOnly === true) continue; // OpenAPI: readOnly properties are not sent in requests
    collector.add(name, slimSchema(property as JsonSchema), { in: 'body', name }, shape.required.includes(name), 'body');
  }
}

/** The properties and required list of an object body (unions of objects are merged). */
function extractObjectShape(schema: Obj): { properties: Obj; required: string[] } | null {
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
