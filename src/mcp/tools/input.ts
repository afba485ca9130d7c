/**
 * Tool arguments → the transport-neutral `OperationInput`, driven only by the generated
 * `ToolDefinition.args` table (renamed arguments included: the table says where each goes). Owns
 * the MCP list vocabulary (`sort_by`; `filters` lists as `in`, plain values as `eq`); a list tool
 * called without `limit` leaves it out, so the list's declared default applies (`ListSpec.pageSize`,
 * the REST default too). Validation of the
 * arguments and every authorization check are left to others.
 */
import type { ListQuery, OperationInput } from '../../api/index.js';
import { readFilterForms, type FilterForm } from '../../runtime/tool-schema.js';
import type { ArgumentTarget, FilterOperator, ToolDefinition } from '../../runtime/types.js';
import { isPlainObject } from '../../runtime/values.js';

export interface ToolInput {
  readonly input: OperationInput;
  /** The `workspace_id` argument, when given (docs/security.md#resolving-the-workspace step 1). */
  readonly workspaceArgument: string | undefined;
}

type Filters = Record<string, Partial<Record<FilterOperator, unknown>>>;

/** Whether the tool's operation is a list (it declares any list argument). */
export function isListTool(tool: ToolDefinition): boolean {
  return Object.values(tool.args).some((target) => target.in === 'list');
}

/** Whether the operation takes a body (some argument lands in it). */
function hasBodyArguments(tool: ToolDefinition): boolean {
  return Object.values(tool.args).some((target) => target.in === 'body');
}

/** A prototype-less copy: keys from the call (`__proto__`, `constructor`) stay plain data. */
function copyWithoutPrototype<T>(source: Readonly<Record<string, T>>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, source);
}

/** Each filter's form, read once per tool from its argument schema (src/runtime/tool-schema.ts). */
const filterForms = new WeakMap<ToolDefinition, ReadonlyMap<string, FilterForm>>();

function readToolFilterForms(tool: ToolDefinition, argument: string): ReadonlyMap<string, FilterForm> {
  let forms = filterForms.get(tool);
  if (forms === undefined) {
    forms = readFilterForms(tool.argumentSchema, argument);
    filterForms.set(tool, forms);
  }
  return forms;
}

/**
 * Filters in the list engine's form `{operator: value}`: an object already names its operators, a
 * list is `in` where the filter takes one (the shown form of eq/in filters, src/runtime/tool-schema.ts),
 * anything else is `eq`. Built without prototypes, so every name reaches the list engine's own
 * check (unknown → BAD_REQUEST).
 */
function normalizeFilters(forms: ReadonlyMap<string, FilterForm>, value: unknown): Filters {
  const filters: Filters = Object.create(null) as Filters;
  if (!isPlainObject(value)) return filters;
  for (const [field, given] of Object.entries(value)) {
    const form = forms.get(field) ?? VALUE_FORM;
    const takesList = form.form === 'list' || (form.form === 'operators' && form.in);
    if (isPlainObject(given)) filters[field] = copyWithoutPrototype(given);
    else filters[field] = copyWithoutPrototype(Array.isArray(given) && takesList ? { in: given } : { eq: given });
  }
  return filters;
}

const VALUE_FORM: FilterForm = { form: 'value' };

/** The list query as the arguments build it (ListQuery's fields, writable while building). */
interface ListDraft {
  limit?: number;
  cursor?: string;
  sort?: string;
  fields?: readonly string[];
  filters: Filters;
}

/** The operation input while the arguments are read one by one. */
interface InputDraft {
  readonly path: Record<string, string>;
  readonly query: Record<string, unknown>;
  body: unknown;
  list: ListDraft | undefined;
  workspaceArgument: string | undefined;
  idempotencyKey: string | undefined;
}

/** Puts one argument where its target says (the generated `ToolDefinition.args` table). */
function placeArgument(draft: InputDraft, target: ArgumentTarget, value: unknown, tool: ToolDefinition, name: string): void {
  switch (target.in) {
    case 'workspace':
      if (typeof value === 'string') draft.workspaceArgument = value;
      return;
    case 'path':
      draft.path[target.name] = asText(value);
      return;
    case 'query':
      draft.query[target.name] = value;
      return;
    case 'header':
      // Idempotency-Key is the only header parameter of the API (a reusable component of openapi/v1.yaml).
      if (target.name.toLowerCase() === 'idempotency-key') draft.idempotencyKey = asText(value);
      else draft.query[target.name] = value;
      return;
    case 'body':
      // Target name '' is the whole body (a non-object request schema, src/runtime/tool-view.ts).
      if (target.name === '') draft.body = value;
      else if (draft.body !== null && typeof draft.body === 'object') (draft.body as Record<string, unknown>)[target.name] = value;
      return;
    case 'list':
      draft.list = target.name === 'filters'
        ? { ...draft.list, filters: normalizeFilters(readToolFilterForms(tool, name), value) }
        : applyListArgument(draft.list ?? { filters: {} }, target.name, value);
  }
}

/** Builds the operation input from already-validated arguments. Unknown arguments are ignored. */
export function buildToolInput(tool: ToolDefinition, args: Readonly<Record<string, unknown>>): ToolInput {
  const draft: InputDraft = {
    path: {},
    query: {},
    body: hasBodyArguments(tool) ? {} : undefined,
    list: isListTool(tool) ? { filters: {} } : undefined,
    workspaceArgument: undefined,
    idempotencyKey: undefined,
  };
  for (const [name, value] of Object.entries(args)) {
    const target = Object.hasOwn(tool.args, name) ? tool.args[name] : undefined;
    if (target !== undefined && value !== undefined) placeArgument(draft, target, value, tool, name);
  }
  const { path, query, body, list, idempotencyKey } = draft;
  const input: OperationInput = {
    path,
    query,
    ...(list ? { list: list as ListQuery } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
  };
  return { input, workspaceArgument: draft.workspaceArgument };
}

/**
 * An argument as text for the operation input, built before the arguments are validated (the
 * validation then refuses what is not a string): a primitive as `String` writes it, anything else
 * as its JSON — never by calling the value's own `toString`, which a client's object may replace
 * (`{"toString": false}` made `String()` throw, an internal error instead of VALIDATION_ERROR).
 */
function asText(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value) ?? '';
}

function applyListArgument(list: ListDraft, name: 'limit' | 'cursor' | 'sort' | 'fields', value: unknown): ListDraft {
  switch (name) {
    case 'limit':
      return { ...list, limit: typeof value === 'number' ? value : Number(asText(value)) };
    case 'cursor':
      return { ...list, cursor: asText(value) };
    case 'sort':
      return { ...list, sort: asText(value) };
    case 'fields':
      return { ...list, fields: Array.isArray(value) ? value.map(asText) : [asText(value)] };
  }
}
