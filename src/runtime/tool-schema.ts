/**
 * What a model is shown of a tool's arguments, kept short without losing meaning (issue 17;
 * docs/protocol.md#tool-arguments): the texts of the arguments every tool shares, said once here
 * and worded for MCP (the OpenAPI texts of the same inputs are worded for REST); schemas without
 * `examples` (the descriptions teach, the examples only cost tokens); the compact filter schema;
 * and the shown schema, which keeps every type (decimals shown as strings), enum, format, default
 * and description, as plain text, but leaves the pure bounds (lengths, patterns, ranges, counts) to
 * the argument schema the server validates with — a call that breaks one gets a VALIDATION_ERROR
 * naming it. Pure.
 */
import type { FilterOperator, JsonSchema, ListDefinition } from './types.js';
import { isPlainObject as isObject } from './values.js';

type Obj = { [key: string]: unknown };

/** The most values one `in` filter takes, over MCP and REST alike: the one constant (src/api/list.ts enforces it). */
export const MAX_IN_FILTER_VALUES = 100;

/** The descriptions of the arguments the runtime adds or every tool of a kind shares. */
export const SHARED_ARGUMENT_TEXTS = {
  // How the workspace is chosen (docs/security.md#resolving-the-workspace) is said once, in the server
  // instructions (src/mcp/instructions.ts) and the workspace_required error; here only the default.
  workspace: 'Default X-Workspace-Id.',
  idempotencyKey: 'Retry key.',
  limit: 'Page size.',
  cursor: 'Next page.',
  sortBy: '-x sorts descending.',
  fields: 'Plus id; unknown → VALIDATION_ERROR.',
  filters: 'All must match.',
} as const;

/**
 * Keywords that hold subschemas, by shape; everything else is data (enum, const, default). The
 * generator's shared schemas (codegen/emit/shared-schemas.ts) walk schemas by the same keywords.
 */
export const SCHEMA_MAPS: ReadonlySet<string> = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
export const SCHEMA_VALUES: ReadonlySet<string> = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems']);
export const SCHEMA_LISTS: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** Never part of a tool's schemas: examples (data that only costs tokens) and comments. */
const NOT_FOR_TOOLS: ReadonlySet<string> = new Set(['examples', 'example', '$comment']);
/** Checked by the server, not shown: bounds a model rarely needs to plan a call (see the header). */
const NOT_SHOWN: ReadonlySet<string> = new Set([
  ...NOT_FOR_TOOLS, 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'multipleOf', 'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'contentEncoding',
]);

/** A copy of `schema` without examples and comments, at every depth: the argument schema's parts. */
export function slimSchema(schema: JsonSchema): JsonSchema {
  return copyWithout(schema, NOT_FOR_TOOLS);
}

/**
 * What a model is shown of an argument schema: the same shape without the pure bounds and
 * without `additionalProperties: false` (the properties are listed; an unknown one is refused
 * with a VALIDATION_ERROR naming it), its descriptions as plain text (toShownText) and its
 * decimals as strings (toShownType).
 */
export function toShownSchema(argumentSchema: JsonSchema): JsonSchema {
  return copyWithout(argumentSchema, NOT_SHOWN, true);
}

/**
 * A text as a model is shown it: without Markdown code-span backticks. The OpenAPI texts mark
 * names as code for the REST reference; to a model the names read the same without them, and the
 * backticks cost about one token in thirty of the tool list.
 */
export function toShownText(text: string): string {
  return text.replace(/`/g, '');
}

/**
 * A decimal the server takes as a string or a number (`["string", "number"]`: amounts, rates) is
 * shown as a string, the form the texts and the server instructions teach ("1234.56"); a number
 * is still accepted. Any other type is shown as it is.
 */
function toShownType(type: unknown): unknown {
  if (!Array.isArray(type) || !type.includes('string') || !type.includes('number')) return type;
  const shown = type.filter((t) => t !== 'number');
  return shown.length === 1 ? shown[0] : shown;
}

function copyWithout(schema: JsonSchema, dropped: ReadonlySet<string>, shown = false): JsonSchema {
  // Boolean schemas (`additionalProperties: false`) and anything that is not a schema pass unchanged.
  const child = (value: unknown): unknown => (isObject(value) ? copyWithout(value, dropped, shown) : value);
  // Shown: the description comes first, the order in which its JSON costs the fewest tokens.
  const copy: Obj = shown && typeof schema.description === 'string' ? { description: undefined } : {};
  for (const [key, value] of Object.entries(schema)) {
    if (dropped.has(key) || (shown && key === 'additionalProperties' && value === false)) continue;
    if (shown && key === 'description' && typeof value === 'string') copy[key] = toShownText(value);
    else if (shown && key === 'type') copy[key] = toShownType(value);
    else if (SCHEMA_MAPS.has(key) && isObject(value)) copy[key] = mapValues(value, child);
    else if (SCHEMA_VALUES.has(key)) copy[key] = child(value);
    else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) copy[key] = value.map(child);
    else copy[key] = value;
  }
  return copy;
}

/**
 * One filter, in the form that says its operators in the fewest tokens:
 * - `eq` only: the value schema (a plain value);
 * - `eq` and/or `in` only: a list of values, any of which matches (`in`; one value is `eq`);
 * - three or more operators on one value (a range: eq, gte, gt, lte, lt): an object whose keys
 *   are named once in `propertyNames` and whose value schema is said once in
 *   `additionalProperties` (plus `in` as a list when supported);
 * - otherwise an object with one property per operator.
 * `in` lists take 1 to MAX_IN_FILTER_VALUES values. The other natural forms are accepted too and
 * read as this one (normalizeFilterValue): a plain value is `eq`, a list is `in`, `{eq}`/`{in}`.
 */
export function planFilterSchema(filter: ListDefinition['filters'][number]): JsonSchema {
  const { operators } = filter;
  const scalar = slimSchema(filter.schema);
  // A text that only names the field (`Filter on \`status\`.`, the REST wording) tells a model nothing the key does not.
  const description = filter.description !== null && filter.description !== `Filter on \`${filter.name}\`.` ? { description: filter.description } : {};
  if (operators.length === 1 && operators[0] === 'eq') return { ...scalar, ...description };
  const list = { type: 'array', items: scalar, minItems: 1, maxItems: MAX_IN_FILTER_VALUES };
  if (operators.every((op) => op === 'eq' || op === 'in')) return { ...list, ...description };
  const valueOperators = operators.filter((op) => op !== 'in');
  if (valueOperators.length >= RANGE_OPERATOR_COUNT) {
    return {
      type: 'object',
      ...description,
      ...(operators.includes('in') ? { properties: { in: list } } : {}),
      propertyNames: { enum: [...operators] },
      additionalProperties: scalar,
    };
  }
  const properties: { [op: string]: JsonSchema } = {};
  for (const op of operators as readonly FilterOperator[]) properties[op] = op === 'in' ? list : scalar;
  return { type: 'object', ...description, properties, additionalProperties: false };
}

/** From this many operators on one value, the value schema is said once (planFilterSchema). */
const RANGE_OPERATOR_COUNT = 3;

/** How a filter schema of planFilterSchema takes its value. */
export type FilterForm =
  | { readonly form: 'value' }
  | { readonly form: 'list' }
  | { readonly form: 'operators'; readonly eq: boolean; readonly in: boolean };

/** Each filter's form (readFilterForm), from a tool's argument schema and the name of its filters argument. */
export function readFilterForms(argumentSchema: JsonSchema, filtersArgument: string): Map<string, FilterForm> {
  const filtersSchema = isObject(argumentSchema.properties) ? argumentSchema.properties[filtersArgument] : undefined;
  const filters = isObject(filtersSchema) && isObject(filtersSchema.properties) ? filtersSchema.properties : {};
  return new Map(Object.entries(filters).map(([field, schema]) => [field, readFilterForm(schema)]));
}

function readFilterForm(filterSchema: unknown): FilterForm {
  if (!isObject(filterSchema)) return { form: 'value' };
  if (filterSchema.type === 'array' && filterSchema.minItems === 1) return { form: 'list' };
  if (filterSchema.type !== 'object') return { form: 'value' };
  const properties = isObject(filterSchema.properties) ? filterSchema.properties : {};
  const named = isObject(filterSchema.propertyNames) && Array.isArray(filterSchema.propertyNames.enum) ? filterSchema.propertyNames.enum : [];
  return { form: 'operators', eq: properties.eq !== undefined || named.includes('eq'), in: properties.in !== undefined };
}

/**
 * A filter value in the form its schema shows (planFilterSchema): a plain value given to a list
 * or an operator object becomes `[value]` or `{eq: value}`, a list given to an operator object
 * `{in: list}`, and `{eq: v}` / `{in: list}` given to a list `[v]` / `list`. Anything else is
 * returned as it is, for the schema to judge.
 */
export function normalizeFilterValue(form: FilterForm, value: unknown): unknown {
  if (form.form === 'list') {
    if (Array.isArray(value)) return value;
    if (!isObject(value)) return [value];
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'eq') return [value.eq];
    if (keys.length === 1 && keys[0] === 'in' && Array.isArray(value.in)) return value.in;
    return value;
  }
  if (form.form === 'operators') {
    if (Array.isArray(value)) return form.in ? { in: value } : value;
    if (!isObject(value) && form.eq) return { eq: value };
  }
  return value;
}

function mapValues(source: Obj, map: (value: unknown) => unknown): Obj {
  const out: Obj = {};
  for (const [key, value] of Object.entries(source)) out[key] = map(value);
  return out;
}
