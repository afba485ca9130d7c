/**
 * Arguments say what they are (issue 27, rule 3; docs/adding-an-endpoint.md#1-the-contract, "Argument texts"): an
 * argument's description is what a model reads to fill it in, so one that only restates the name
 * ("Id.", "Name.", "Workspace id.", "Filter on `status`.") — or none at all — tells it nothing. After
 * lower-casing and dropping punctuation, a description breaks the rule when every word of it is a
 * word of the argument's name (`_` read as a space) or a filler word. Checked on every argument a
 * tool shows, at every depth: the properties of object arguments and of array items, and each
 * filter of `filters` (whose operator keys, `eq`/`in`/`gte`…, are the list grammar and no argument).
 * Pure: plan-spec.ts reports each break as an ARGUMENT_TEXT warning (an error under `--strict`).
 */
import type { ArgumentTarget, JsonSchema } from '../src/runtime/types.js';
import { isPlainObject } from '../src/runtime/values.js';

type Obj = { [key: string]: unknown };

/** Words that add no meaning to a name: "The id.", "Id of the record." still only say "id". */
const FILLER_WORDS: ReadonlySet<string> = new Set(['a', 'an', 'the', 'of', 'its', 'this', 'is', 'for', 'to', 'on', 'by', 'in', 'filter', 'field', 'value', 'record', 'parameter', 'argument']);

/** Lower-cased words without accents or punctuation: `Workspace-Id.` → `workspace`, `id`. */
function words(text: string): string[] {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().split(/[^a-z0-9]+/).filter((word) => word !== '');
}

/** True when `description` is missing, empty, or only the words of `name` (and filler words). */
export function restatesName(name: string, description: unknown): boolean {
  if (typeof description !== 'string') return true;
  const named = new Set(words(name));
  return words(description).every((word) => named.has(word) || FILLER_WORDS.has(word));
}

/** One argument a tool shows: its path (`cost_center_allocations[].amount`, `filters.status`), name and description. */
export interface ShownArgument {
  readonly path: string;
  readonly name: string;
  readonly description: unknown;
}


/**
 * Every argument of a tool's shown `inputSchema`, nested ones included: each property of the
 * schema, then the properties of those that are objects, of array items and of `anyOf`/`oneOf`/
 * `allOf` members, at any depth. The `filters` argument (its target `list`) names one filter per
 * property; a filter's own properties are operators and are not walked.
 */
export function shownArguments(inputSchema: JsonSchema, args: { readonly [argument: string]: ArgumentTarget }): ShownArgument[] {
  const found: ShownArgument[] = [];
  const visitProperties = (schema: Obj, at: string, walkChildren: boolean): void => {
    const properties = isPlainObject(schema.properties) ? schema.properties : {};
    for (const [name, child] of Object.entries(properties)) {
      const path = at === '' ? name : `${at}.${name}`;
      found.push({ path, name, description: isPlainObject(child) ? child.description : undefined });
      if (walkChildren && isPlainObject(child)) visitNested(child, path);
    }
  };
  const visitNested = (schema: Obj, at: string): void => {
    visitProperties(schema, at, true);
    if (isPlainObject(schema.items)) visitNested(schema.items, `${at}[]`);
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      const members = schema[key];
      if (Array.isArray(members)) for (const member of members) if (isPlainObject(member)) visitNested(member, at);
    }
  };
  const properties = isPlainObject(inputSchema.properties) ? inputSchema.properties : {};
  for (const [name, child] of Object.entries(properties)) {
    found.push({ path: name, name, description: isPlainObject(child) ? child.description : undefined });
    if (!isPlainObject(child)) continue;
    const target = args[name];
    if (target?.in === 'list' && target.name === 'filters') visitProperties(child, name, false);
    else visitNested(child, name);
  }
  return found;
}

/** The arguments of a tool whose description breaks the rule (restatesName). */
export function undescribedArguments(inputSchema: JsonSchema, args: { readonly [argument: string]: ArgumentTarget }): ShownArgument[] {
  return shownArguments(inputSchema, args).filter((argument) => restatesName(argument.name, argument.description));
}
