/**
 * The views of the generated operation model: the REST route table, the MCP tools and the
 * resource templates, computed from the OperationDefinitions when the registry loads. Pure
 * functions; nothing here reads the spec, so a route and a tool can never disagree about an
 * operation (they share its OperationRef object).
 */
import { pointAtGetters, toToolOutput } from './output-schema.js';
import { toSnakeCase, toToolView } from './tool-view.js';
import type { JsonSchema, ListDefinition, ListSpec, OperationDefinition, PageSize, ResourceTemplateDefinition, RouteDefinition, ToolDefinition } from './types.js';

const RESOURCE_GET_PATH = /^\/v1\/([^/{}]+)\/\{id\}$/;

export interface OperationViews {
  /** Every MCP tool, sorted by name. */
  readonly tools: readonly ToolDefinition[];
  /** Every REST route (including operations excluded from MCP), sorted by path then method. */
  readonly routes: readonly RouteDefinition[];
  /** One template per `GET /v1/<resource>/{id}` tool, sorted by URI template. */
  readonly resourceTemplates: readonly ResourceTemplateDefinition[];
}

export function buildViews(definitions: readonly OperationDefinition[]): OperationViews {
  const tools: ToolDefinition[] = [];
  const resourceTemplates: ResourceTemplateDefinition[] = [];
  for (const definition of definitions) {
    if (!hasTool(definition)) continue;
    tools.push(toToolDefinition(definition));
    const template = toResourceTemplateView(definition);
    if (template) resourceTemplates.push(template);
  }
  return {
    tools: pointAtGetters(tools.sort((a, b) => compareText(a.name, b.name))),
    routes: definitions.map(toRouteView).sort((a, b) => compareText(a.operation.path, b.operation.path) || compareText(a.operation.method, b.operation.method)),
    resourceTemplates: resourceTemplates.sort((a, b) => compareText(a.uriTemplate, b.uriTemplate)),
  };
}

/** The tool of an operation: its input view (tool-view.ts), its typed output and its toolsets. */
function toToolDefinition(definition: OperationDefinition & { readonly toolName: string }): ToolDefinition {
  return { ...toToolView(definition), output: toToolOutput(definition.successResponse, definition.acceptedResponse), toolsets: toToolsets(definition.tags) };
}

/** Toolsets are the operation's tags in snake_case (`Cost Centers` → `cost_centers`); an untagged operation is in `other`. */
const UNTAGGED_TOOLSET = 'other';

function toToolsets(tags: readonly string[]): readonly string[] {
  const names = [...new Set(tags.map(toSnakeCase).filter((name) => name !== ''))];
  return names.length > 0 ? names : [UNTAGGED_TOOLSET];
}

function hasTool(definition: OperationDefinition): definition is OperationDefinition & { readonly toolName: string } {
  return definition.toolName !== null;
}

/** `/v1/payables/{id}/settle` → `/v1/payables/:id/settle`. */
function toKoaPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

function toRouteView(definition: OperationDefinition): RouteDefinition {
  return {
    operation: definition.operation,
    koaPath: toKoaPath(definition.operation.path),
    parameters: definition.parameters,
    list: definition.list ? toListSpec(definition.list) : null,
    requestBody: definition.requestBody,
    successStatus: definition.successStatus,
    bounds: definition.bounds,
  };
}

/**
 * What a list's `limit` schema says of its page size. A document that does not bound it (a
 * third-party contract; openapi/v1.yaml always does, test/codegen/bounded-inputs.test.ts holds
 * it) gets pages of 1 to 100 rows, 25 by default, and a default above the maximum is the maximum.
 */
export function readPageSize(limit: JsonSchema | undefined): PageSize {
  const integer = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : undefined);
  const minimum = integer(limit?.['minimum']) ?? 1;
  const maximum = Math.max(minimum, integer(limit?.['maximum']) ?? 100);
  const fallback = Math.min(Math.max(25, minimum), maximum);
  const declared = integer(limit?.['default']);
  return { default: declared === undefined ? fallback : Math.min(Math.max(declared, minimum), maximum), minimum, maximum };
}

/** docs/domain.md#lists: sort enum (leading `-` stripped), its default, fields enum, filters. */
function toListSpec(list: ListDefinition): ListSpec {
  const sortEnum = (list.sort?.schema.enum as unknown[] | undefined) ?? [];
  const fieldsItems = (list.fields?.items as { enum?: unknown[] } | undefined)?.enum ?? [];
  const filters: { [field: string]: ListSpec['filters'][string] } = {};
  for (const { name, operators, schema } of list.filters) filters[name] = { operators, schema };
  return {
    pageSize: readPageSize(list.limit),
    sortFields: [...new Set(sortEnum.map((value) => String(value).replace(/^-/, '')))],
    defaultSort: typeof list.sort?.schema.default === 'string' ? list.sort.schema.default : '',
    filters,
    fields: fieldsItems.map(String),
  };
}

/** A `kobana://finance/<resource>/{id}` template for a `GET /v1/<resource>/{id}` tool; null otherwise. */
function toResourceTemplateView(definition: OperationDefinition & { readonly toolName: string }): ResourceTemplateDefinition | null {
  const { operation } = definition;
  const match = operation.method === 'GET' ? RESOURCE_GET_PATH.exec(operation.path) : null;
  if (!match) return null;
  return {
    uriTemplate: `kobana://finance/${match[1]}/{id}`,
    name: definition.toolName,
    title: definition.title,
    description: definition.description,
    mimeType: 'application/json',
    operation,
  };
}

/** Locale-independent ordering, so output never depends on the machine's locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
