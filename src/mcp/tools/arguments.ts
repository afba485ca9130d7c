/**
 * Tool argument validation: one validator per tool over its argumentSchema (the inputSchema a
 * model is shown, with every bound; src/runtime/tool-schema.ts), compiled once at
 * start-up by the Finance API's one ajv (src/api/validation.ts), and the mapping of failures to
 * `VALIDATION_ERROR` issues named after the tool's arguments. `execute` runs it in place of the
 * route's schemas (`checkArguments`), after authorization: a tool call is validated once. A filter
 * value given in another accepted form than the one its schema shows (a plain value for a list,
 * `{eq}` for a list, a list for an operator object; src/runtime/tool-schema.ts) is checked in the
 * shown form, as input.ts reads it.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { boundedValidationError, compileSchema, findExcessUnknownKeys, toIssues } from '../../api/index.js';
import type { ApiError, ValidationIssue } from '../../api/index.js';
import { normalizeFilterValue, readFilterForms } from '../../runtime/tool-schema.js';
import type { ToolDefinition } from '../../runtime/types.js';
import { isPlainObject } from '../../runtime/values.js';

/** Named list arguments that agents often misplace inside `filters` (docs/security.md#check-order-and-error-catalogue). */
const NAMED_LIST_ARGUMENTS = ['limit', 'cursor', 'sort_by', 'fields'] as const;

export type ArgumentValidator = (args: Readonly<Record<string, unknown>>) => ApiError | null;

/** Compiles every tool's argumentSchema once; a schema that fails to compile fails start-up. */
export function compileArgumentValidators(tools: readonly ToolDefinition[]): ReadonlyMap<string, ArgumentValidator> {
  const validators = new Map<string, ArgumentValidator>();
  for (const tool of tools) {
    const validate = compileSchema(tool.argumentSchema);
    const expand = createFilterNormalizer(tool);
    const check = createArgumentValidator(validate, tool.argumentSchema, hasFiltersArgument(tool), readBodyRule(tool));
    validators.set(tool.name, expand ? (args) => check(expand(args)) : check);
  }
  return validators;
}

/** The body's `minProperties` over the tool's body arguments (an update must change something). */
interface BodyRule {
  readonly min: number;
  readonly names: readonly string[];
}

function readBodyRule(tool: ToolDefinition): BodyRule | null {
  if (tool.minBodyArguments === 0) return null;
  const names = Object.entries(tool.args).filter(([, target]) => target.in === 'body').map(([name]) => name);
  return { min: tool.minBodyArguments, names };
}

function checkBodyRule(rule: BodyRule | null, args: Readonly<Record<string, unknown>>): ValidationIssue[] {
  if (rule === null) return [];
  const given = rule.names.filter((name) => Object.hasOwn(args, name) && args[name] !== undefined).length;
  if (given >= rule.min) return [];
  return [{ path: '', message: `must set at least ${rule.min} of: ${rule.names.join(', ')}` }];
}

type Args = Readonly<Record<string, unknown>>;

/**
 * The filters of the tool whose value has a shown form other than a plain value, and a function
 * that rewrites the other accepted forms into it (normalizeFilterValue); null when none.
 */
function createFilterNormalizer(tool: ToolDefinition): ((args: Args) => Args) | null {
  const name = Object.entries(tool.args).find(([, target]) => target.in === 'list' && target.name === 'filters')?.[0];
  if (name === undefined) return null;
  const forms = new Map([...readFilterForms(tool.argumentSchema, name)].filter(([, form]) => form.form !== 'value'));
  if (forms.size === 0) return null;
  return (args) => {
    const given = args[name];
    if (!isPlainObject(given)) return args;
    // Prototype-less, so a `__proto__` key given as a filter stays a plain (unknown) key.
    const normalized = Object.create(null) as Record<string, unknown>;
    for (const [field, value] of Object.entries(given)) {
      const form = forms.get(field);
      normalized[field] = form === undefined ? value : normalizeFilterValue(form, value);
    }
    return { ...args, [name]: normalized };
  };
}

function hasFiltersArgument(tool: ToolDefinition): boolean {
  return Object.values(tool.args).some((target) => target.in === 'list' && target.name === 'filters');
}

function createArgumentValidator(validate: ValidateFunction, schema: unknown, checkFilters: boolean, bodyRule: BodyRule | null): ArgumentValidator {
  return (args) => {
    const misplaced = [...(checkFilters ? findMisplacedListArguments(args) : []), ...checkBodyRule(bodyRule, args)];
    // Hundreds of thousands of unknown keys: answer from a cheap key scan, not one ajv error each.
    const excess = findExcessUnknownKeys(schema, args);
    if (excess) return boundedValidationError(mergeIssues(misplaced, excess), 'The tool arguments are not valid.');
    if (validate(args) && misplaced.length === 0) return null;
    // toIssues stops one past the cap and boundedValidationError cuts to it (details.truncated),
    // so a call with 200,000 unknown keys gets a short answer.
    const issues = mergeIssues(misplaced, toIssues(validate.errors));
    return boundedValidationError(issues, 'The tool arguments are not valid.');
  };
}

/** `limit`, `cursor`, `sort_by` or `fields` inside `filters` get a message that says where they go. */
function findMisplacedListArguments(args: Readonly<Record<string, unknown>>): ValidationIssue[] {
  const filters = args['filters'];
  if (!isPlainObject(filters)) return [];
  return NAMED_LIST_ARGUMENTS.filter((name) => Object.hasOwn(filters, name)).map((name) => ({
    path: `filters.${name}`,
    message: `${name} is a named argument of the tool; pass it next to filters, not inside it`,
  }));
}

/** The specific issue wins over ajv's generic one at the same path. */
function mergeIssues(first: readonly ValidationIssue[], rest: readonly ValidationIssue[]): ValidationIssue[] {
  const taken = new Set(first.map((issue) => issue.path));
  return [...first, ...rest.filter((issue) => !taken.has(issue.path))];
}
