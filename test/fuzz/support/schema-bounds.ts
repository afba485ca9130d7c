/**
 * Boundary values of a JSON Schema (the generated operation and tool schemas), for the boundary
 * fuzzer: read only from standard keywords (`minimum`/`maximum` and their exclusive forms,
 * `minLength`/`maxLength`, `pattern`, `format` date / date-time / uuid, `enum`, `minItems`/
 * `maxItems`/`uniqueItems`, `contentEncoding: base64`, nullable types) and the contract's own
 * `x-kobana-*` bounds (x-kobana-bounds.ts), so a bound added to the contract is fuzzed without
 * a change here. Each slot gets its typical value (so the rest of a call is valid and the
 * operation does real work), its smallest and largest valid values, values just outside, and
 * hostile text (NUL, lone surrogates) at the limits.
 */
import { randomUUID } from 'node:crypto';
import type { JsonSchema } from '../../../src/runtime/types.js';
import { fileVariants, largestFileSizes, UNBOUNDED_FILE_BASE64 } from './files.js';
import { Lazy } from './lazy.js';
import { patternExtremes } from './pattern-extremes.js';
import { extensionBounds } from './x-kobana-bounds.js';

export interface Bound {
  readonly label: string;
  readonly value: unknown;
  /** Within the schema (a valid input the server must handle); false: just outside. */
  readonly inside: boolean;
}

export interface SchemaContext {
  /** Real ids for a uuid field named `field`, given the values of its siblings (`parent_type` picks the resource of `parent_id`). */
  ids(field: string | undefined, siblings: Readonly<Record<string, unknown>>): readonly string[];
}

/** The calendar's edges and the dates just past them (docs: dates are compared as dates, never as strings). */
const DATE_BOUNDS: readonly Bound[] = [
  { label: 'first date 0001-01-01', value: '0001-01-01', inside: true },
  { label: 'last date 9999-12-31', value: '9999-12-31', inside: true },
  { label: 'leap day 2024-02-29', value: '2024-02-29', inside: true },
  { label: 'year 0000', value: '0000-12-31', inside: false },
  { label: 'year 10000', value: '10000-01-01', inside: false },
  { label: 'day 32', value: '9999-12-32', inside: false },
  { label: '2023-02-29', value: '2023-02-29', inside: false },
];

const DATE_TIME_BOUNDS: readonly Bound[] = [
  { label: 'first instant', value: '0001-01-01T00:00:00Z', inside: true },
  { label: 'last instant', value: '9999-12-31T23:59:59.999Z', inside: true },
  { label: 'before year 1 in UTC (+23:59)', value: '0001-01-01T00:00:00+23:59', inside: true },
  { label: 'after 9999 in UTC (-23:59)', value: '9999-12-31T23:59:59-23:59', inside: true },
  { label: 'nanoseconds', value: '2026-03-10T12:00:00.123456789Z', inside: true },
  { label: 'leap second', value: '2016-12-31T23:59:60Z', inside: true },
  { label: 'year 10000', value: '10000-01-01T00:00:00Z', inside: false },
  { label: 'month 13', value: '2026-13-01T00:00:00Z', inside: false },
];

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const MAX_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
/** Elements of an array without `maxItems` (the contract should bound every array; this shows one that does not). */
const UNBOUNDED_ITEMS = 1_000;
/** Characters of a string without `maxLength`. */
const UNBOUNDED_LENGTH = 10_000;


function typesOf(schema: JsonSchema): string[] {
  const type = schema['type'];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : typeof type === 'string' ? [type] : [];
}

function num(schema: JsonSchema, key: string): number | undefined {
  const value = schema[key];
  return typeof value === 'number' ? value : undefined;
}

function firstExample(schema: JsonSchema): unknown {
  const examples = schema['examples'];
  return Array.isArray(examples) && examples.length > 0 ? examples[0] : undefined;
}

function enumOf(schema: JsonSchema): readonly unknown[] | null {
  const values = schema['enum'];
  return Array.isArray(values) && values.length > 0 ? values : null;
}

function propertiesOf(schema: JsonSchema): [string, JsonSchema][] {
  const properties = schema['properties'];
  return properties !== null && typeof properties === 'object' ? Object.entries(properties as Record<string, JsonSchema>) : [];
}

function requiredOf(schema: JsonSchema): Set<string> {
  const required = schema['required'];
  return new Set(Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : []);
}

function itemsOf(schema: JsonSchema): JsonSchema {
  const items = schema['items'];
  return items !== null && typeof items === 'object' ? (items as JsonSchema) : {};
}

/** Text of exactly `length` code points, starting with `seed` (a unique part, so unique names stay unique). */
function textOfLength(seed: string, length: number, filler = 'x'): string {
  const chars = [...seed];
  if (chars.length >= length) return chars.slice(0, length).join('');
  return seed + filler.repeat(length - chars.length);
}

let uniqueCounter = 0;
/** A short text unique within the run (names with unique constraints stay creatable). */
function uniqueTag(): string {
  uniqueCounter += 1;
  return `fz${uniqueCounter.toString(36)}`;
}

/** The base64 field of a file (contentEncoding base64). */
function isBase64File(schema: JsonSchema): boolean {
  return schema['contentEncoding'] === 'base64';
}

function isFreeText(schema: JsonSchema): boolean {
  return typesOf(schema).includes('string') && schema['format'] === undefined && schema['pattern'] === undefined && enumOf(schema) === null && !isBase64File(schema);
}

/** A valid, ordinary value: examples, the first enum value, real ids; unique free text. */
export function typicalValue(schema: JsonSchema, context: SchemaContext, field: string | undefined, siblings: Readonly<Record<string, unknown>> = {}): unknown {
  const types = typesOf(schema);
  const choices = enumOf(schema);
  if (choices) return choices[0];
  if (schema['format'] === 'uuid') {
    // Each call takes the next real id, so calls whose rules want a particular record (a
    // customer, a credit category) find one among them.
    // Read when the call is sent: ids of records earlier calls created count too.
    let turn = 0;
    return Lazy.fresh(() => {
      const ids = context.ids(field, siblings);
      return ids.length === 0 ? randomUUID() : ids[turn++ % ids.length];
    });
  }
  if (/idempotency/i.test(field ?? '')) return Lazy.fresh(() => randomUUID());
  const example = firstExample(schema);
  if (types.includes('object') || propertiesOf(schema).length > 0) return typicalObject(schema, context);
  if (types.includes('array')) {
    const count = Math.max(1, num(schema, 'minItems') ?? 0);
    return arrayOf(itemsOf(schema), context, field, count, 'typical', schema['uniqueItems'] === true);
  }
  if (example !== undefined && example !== null) {
    // Names are unique per workspace (taxes): a suffix keeps every create creatable.
    if (field === 'name' && isFreeText(schema) && typeof example === 'string') {
      const max = num(schema, 'maxLength') ?? example.length + 16;
      return Lazy.fresh(() => textOfLength(`${example} ${uniqueTag()}`, Math.min(max, example.length + 8)));
    }
    return example;
  }
  if (schema['format'] === 'date') return '2026-03-10';
  if (schema['format'] === 'date-time') return '2026-03-10T12:00:00Z';
  if (types.includes('string')) {
    const pattern = typeof schema['pattern'] === 'string' ? patternExtremes(schema['pattern']) : null;
    if (pattern) return pattern.shortest;
    return Lazy.fresh(() => textOfLength(uniqueTag(), Math.max(num(schema, 'minLength') ?? 1, 1)));
  }
  if (types.includes('integer') || types.includes('number')) return num(schema, 'minimum') ?? num(schema, 'maximum') ?? 1;
  if (types.includes('boolean')) return true;
  return null;
}

/** The required properties, plus the optional ones the contract gives an example for. */
export function typicalObject(schema: JsonSchema, context: SchemaContext): Record<string, unknown> {
  const required = requiredOf(schema);
  const out: Record<string, unknown> = {};
  const properties = propertiesOf(schema);
  // Enums first, so an `x_type` is known before its `x_id` is picked.
  const ordered = [...properties].sort(([, a], [, b]) => Number(enumOf(b) !== null) - Number(enumOf(a) !== null));
  for (const [name, property] of ordered) {
    const example = firstExample(property);
    const scalarExample = example !== undefined && example !== null && typeof example !== 'object';
    if (required.has(name) || scalarExample) out[name] = typicalValue(property, context, name, out);
  }
  return Object.fromEntries(properties.filter(([name]) => Object.hasOwn(out, name)).map(([name]) => [name, out[name]]));
}

function arrayOf(items: JsonSchema, context: SchemaContext, field: string | undefined, count: number, mode: 'typical' | 'maximal', unique: boolean): unknown[] {
  const itemField = field?.replace(/_ids$/, '_id');
  if (unique && items['format'] === 'uuid') {
    const real = context.ids(itemField, {});
    return Array.from({ length: count }, (_, i) => real[i] ?? randomUUID());
  }
  const choices = enumOf(items);
  if (choices) return Array.from({ length: unique ? Math.min(count, choices.length) : count }, (_, i) => choices[i % choices.length]);
  if (items['format'] === 'uuid') {
    const real = context.ids(itemField, {});
    return Array.from({ length: count }, (_, i) => real[i % Math.max(1, real.length)] ?? randomUUID());
  }
  return Array.from({ length: count }, () => (mode === 'maximal' ? maximalValue(items, context, itemField) : typicalValue(items, context, itemField)));
}

/** The largest valid value: longest text, highest number, last date, fullest array and object. */
export function maximalValue(schema: JsonSchema, context: SchemaContext, field: string | undefined, siblings: Readonly<Record<string, unknown>> = {}): unknown {
  const types = typesOf(schema);
  const choices = enumOf(schema);
  if (choices) return [...choices].sort((a, b) => String(b).length - String(a).length)[0];
  if (isBase64File(schema)) return typicalValue(schema, context, field, siblings);
  if (schema['format'] === 'uuid' || /idempotency/i.test(field ?? '')) {
    const max = num(schema, 'maxLength');
    return schema['format'] === 'uuid' || max === undefined ? typicalValue(schema, context, field, siblings) : Lazy.fresh(() => textOfLength(randomUUID(), max, 'k'));
  }
  if (schema['format'] === 'date') return '9999-12-31';
  if (schema['format'] === 'date-time') return '9999-12-31T23:59:59.999Z';
  if (types.includes('object') || propertiesOf(schema).length > 0) {
    const out: Record<string, unknown> = {};
    for (const [name, property] of propertiesOf(schema)) out[name] = maximalValue(property, context, name, out);
    return out;
  }
  if (types.includes('array')) {
    return arrayOf(itemsOf(schema), context, field, num(schema, 'maxItems') ?? UNBOUNDED_ITEMS, 'maximal', schema['uniqueItems'] === true);
  }
  if (types.includes('string')) {
    const pattern = typeof schema['pattern'] === 'string' ? patternExtremes(schema['pattern']) : null;
    if (pattern) return pattern.longest;
    if (typeof schema['pattern'] === 'string') return typicalValue(schema, context, field, siblings);
    const max = num(schema, 'maxLength') ?? UNBOUNDED_LENGTH;
    return Lazy.fresh(() => textOfLength(`${uniqueTag()} `, max));
  }
  if (types.includes('integer')) return num(schema, 'maximum') ?? Number.MAX_SAFE_INTEGER;
  if (types.includes('number')) return num(schema, 'maximum') ?? 1e308;
  if (types.includes('boolean')) return true;
  return null;
}

function stringBounds(schema: JsonSchema, context: SchemaContext, field: string | undefined, siblings: Readonly<Record<string, unknown>>): Bound[] {
  const out: Bound[] = [];
  const format = schema['format'];
  if (format === 'date') out.push(...DATE_BOUNDS);
  else if (format === 'date-time') out.push(...DATE_TIME_BOUNDS);
  else if (format === 'uuid') {
    const own = context.ids(field, siblings);
    const any = context.ids(undefined, {});
    out.push(
      ...own.slice(0, 2).map((id, i) => ({ label: `real id #${i + 1}`, value: id, inside: true })),
      { label: 'id of another resource', value: any.find((id) => !own.includes(id)) ?? MAX_UUID, inside: true },
      { label: 'nil uuid', value: NIL_UUID, inside: true },
      { label: 'max uuid', value: MAX_UUID, inside: true },
      { label: 'not a uuid', value: 'not-a-uuid', inside: false },
      { label: 'uuid + NUL', value: `${own[0] ?? NIL_UUID}\u0000`, inside: false },
    );
  }
  const min = num(schema, 'minLength');
  const max = num(schema, 'maxLength');
  if (typeof schema['pattern'] === 'string') {
    const extremes = patternExtremes(schema['pattern']);
    if (extremes) {
      out.push({ label: `pattern shortest "${extremes.shortest}"`, value: extremes.shortest, inside: true });
      out.push({ label: `pattern longest "${extremes.longest}"`, value: extremes.longest, inside: true });
      if (extremes.overlong !== null) out.push({ label: `pattern overlong "${extremes.overlong}"`, value: extremes.overlong, inside: false });
    }
    const example = firstExample(schema);
    const seed = typeof example === 'string' ? example : extremes?.shortest ?? '0';
    out.push({ label: 'pattern + NUL', value: `${seed}\u0000`, inside: false }, { label: 'pattern + lone surrogate', value: `${seed}\ud800`, inside: false });
  }
  if (isBase64File(schema)) {
    const exampleText = firstExample(schema);
    const example = Buffer.from(typeof exampleText === 'string' ? exampleText : '', 'base64');
    const contentType = siblings['content_type'];
    const sizes = largestFileSizes(max ?? UNBOUNDED_FILE_BASE64);
    for (const variant of fileVariants(`${field ?? 'file'}:${max ?? ''}:${typeof exampleText === 'string' ? exampleText.slice(0, 32) : ''}`, example, typeof contentType === 'string' ? contentType : null, sizes)) {
      out.push({ label: variant.label, value: Lazy.once(() => (variant.bytes.get() as Buffer).toString('base64')), inside: variant.inside });
    }
    if (max !== undefined) out.push({ label: `base64 of maxLength + 4 (${max + 4})`, value: Lazy.once(() => 'A'.repeat(max + 4)), inside: false });
    out.push({ label: 'base64 with NUL', value: `${typeof exampleText === 'string' ? exampleText : 'AAAA'}\u0000`, inside: false });
    return out;
  }
  if (format === undefined && schema['pattern'] === undefined) {
    const seed = (): string => `${uniqueTag()} `;
    if (min !== undefined && min > 0) {
      out.push({ label: `minLength ${min}`, value: Lazy.fresh(() => textOfLength(uniqueTag(), min)), inside: true });
      out.push({ label: `minLength - 1 (${min - 1})`, value: 'x'.repeat(min - 1), inside: false });
    } else {
      out.push({ label: 'empty text', value: '', inside: true });
    }
    if (max !== undefined) {
      out.push({ label: `maxLength ${max}`, value: Lazy.fresh(() => textOfLength(seed(), max)), inside: true });
      out.push({ label: `maxLength ${max} of 4-byte characters`, value: Lazy.fresh(() => textOfLength(seed(), max, '\u{1F4B8}')), inside: true });
      out.push({ label: `maxLength ${max} of lone surrogates`, value: '\ud800'.repeat(max), inside: true });
      out.push({ label: `maxLength + 1 (${max + 1})`, value: Lazy.fresh(() => textOfLength(seed(), max + 1)), inside: false });
    } else {
      out.push({ label: `no maxLength: ${UNBOUNDED_LENGTH} characters`, value: Lazy.fresh(() => textOfLength(seed(), UNBOUNDED_LENGTH)), inside: true });
    }
    out.push(
      { label: 'NUL inside', value: Lazy.fresh(() => `a\u0000${uniqueTag()}`), inside: true },
      { label: 'lone surrogates', value: Lazy.fresh(() => `\ud800${uniqueTag()}\udfff`), inside: true },
    );
  }
  return out;
}

function numberBounds(schema: JsonSchema, integer: boolean): Bound[] {
  const out: Bound[] = [];
  const step = integer ? 1 : 0.01;
  const minimum = num(schema, 'minimum');
  const maximum = num(schema, 'maximum');
  const exclusiveMinimum = num(schema, 'exclusiveMinimum');
  const exclusiveMaximum = num(schema, 'exclusiveMaximum');
  if (minimum !== undefined) out.push({ label: `minimum ${minimum}`, value: minimum, inside: true }, { label: `minimum - ${step}`, value: minimum - step, inside: false });
  if (maximum !== undefined) out.push({ label: `maximum ${maximum}`, value: maximum, inside: true }, { label: `maximum + ${step}`, value: maximum + step, inside: false });
  if (exclusiveMinimum !== undefined) {
    out.push({ label: `exclusiveMinimum ${exclusiveMinimum}`, value: exclusiveMinimum, inside: false }, { label: `exclusiveMinimum + ${step}`, value: exclusiveMinimum + step, inside: true });
  }
  if (exclusiveMaximum !== undefined) {
    out.push({ label: `exclusiveMaximum ${exclusiveMaximum}`, value: exclusiveMaximum, inside: false }, { label: `exclusiveMaximum - ${step}`, value: exclusiveMaximum - step, inside: true });
  }
  if (maximum === undefined && exclusiveMaximum === undefined) {
    out.push(integer ? { label: 'largest safe integer', value: Number.MAX_SAFE_INTEGER, inside: true } : { label: '1e308', value: 1e308, inside: true });
  }
  if (minimum === undefined && exclusiveMinimum === undefined) {
    out.push(integer ? { label: 'smallest safe integer', value: Number.MIN_SAFE_INTEGER, inside: true } : { label: '-1e308', value: -1e308, inside: true });
  }
  if (integer) out.push({ label: 'not an integer (1.5)', value: (minimum ?? 0) + 1.5, inside: false });
  else out.push({ label: 'three decimals', value: (minimum ?? exclusiveMinimum ?? 0) + 1.005, inside: false });
  return out;
}

function arrayBounds(schema: JsonSchema, context: SchemaContext, field: string | undefined): Bound[] {
  const items = itemsOf(schema);
  const unique = schema['uniqueItems'] === true;
  const min = num(schema, 'minItems') ?? 0;
  const max = num(schema, 'maxItems');
  const out: Bound[] = [
    { label: 'empty array', value: [], inside: min === 0 },
    ...(min > 1 ? [{ label: `minItems ${min}`, value: arrayOf(items, context, field, min, 'typical', unique), inside: true }] : []),
  ];
  const largest = max ?? UNBOUNDED_ITEMS;
  const choices = enumOf(items);
  if (unique && choices && choices.length <= largest) {
    out.push({ label: `all ${choices.length} values`, value: [...choices], inside: true });
  } else {
    const tag = max === undefined ? `no maxItems: ${largest}` : `maxItems ${max}`;
    out.push({ label: `${tag} ordinary items`, value: arrayOf(items, context, field, largest, 'typical', unique), inside: true });
    if (!choices && items['format'] !== 'uuid') out.push({ label: `${tag} largest items`, value: arrayOf(items, context, field, largest, 'maximal', unique), inside: true });
  }
  if (max !== undefined && (!unique || !choices || choices.length > max)) {
    out.push({ label: `maxItems + 1 (${max + 1})`, value: arrayOf(items, context, field, max + 1, 'typical', unique), inside: false });
  }
  if (unique) {
    const one = arrayOf(items, context, field, 1, 'typical', true);
    out.push({ label: 'duplicate items', value: [...one, ...one], inside: false });
  }
  const itemField = field?.replace(/_ids$/, '_id');
  for (const bound of slotBounds(items, context, itemField, {})) out.push({ label: `[0] ${bound.label}`, value: [bound.value], inside: bound.inside && min <= 1 });
  return out;
}

/** Every boundary value of one slot (a property, parameter or filter operand) whose schema is `schema`. */
export function slotBounds(schema: JsonSchema, context: SchemaContext, field: string | undefined, siblings: Readonly<Record<string, unknown>>): Bound[] {
  const types = typesOf(schema);
  const out: Bound[] = [];
  const choices = enumOf(schema);
  if (choices) {
    out.push(...choices.map((value) => ({ label: `enum ${JSON.stringify(value)}`, value, inside: true })));
    out.push({ label: 'not in enum', value: `${String(choices[0]).toUpperCase()}_`, inside: false });
  } else if (types.includes('object') || propertiesOf(schema).length > 0) {
    out.push(...objectBounds(schema, context));
  } else if (types.includes('array')) {
    out.push(...arrayBounds(schema, context, field));
  } else {
    if (types.includes('string')) out.push(...stringBounds(schema, context, field, siblings));
    if (types.includes('integer')) out.push(...numberBounds(schema, true));
    else if (types.includes('number')) out.push(...numberBounds(schema, false));
    if (types.includes('boolean')) out.push({ label: 'true', value: true, inside: true }, { label: 'false', value: false, inside: true });
  }
  if (types.includes('null')) out.push({ label: 'null', value: null, inside: true });
  out.push(...extensionBounds(schema, context, field));
  return out;
}

/**
 * An object's boundaries: its typical form with one property at each of its boundaries (nested
 * objects and arrays included), every property at its largest, only the required ones, `{}`.
 */
function objectBounds(schema: JsonSchema, context: SchemaContext): Bound[] {
  const base = typicalObject(schema, context);
  const out: Bound[] = [
    { label: 'every property at its largest', value: maximalValue(schema, context, undefined), inside: true },
    { label: 'empty object', value: {}, inside: requiredOf(schema).size === 0 },
  ];
  for (const [name, property] of propertiesOf(schema)) {
    for (const bound of slotBounds(property, context, name, base)) {
      out.push({ label: `${name}: ${bound.label}`, value: { ...base, [name]: bound.value }, inside: bound.inside });
    }
    if (requiredOf(schema).has(name)) {
      const { [name]: _left, ...rest } = base;
      out.push({ label: `${name}: missing`, value: rest, inside: false });
    }
  }
  return out;
}
