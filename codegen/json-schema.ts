/**
 * Turns one dereferenced OpenAPI schema (3.0 or 3.1) into plain JSON Schema 2020-12 data: no `$ref`,
 * no OpenAPI-only keywords, `allOf` merged, every schema typed (a union by its branches), every
 * array with `items`, and object cycles cut into a typed stub. An empty `enum` (legal in 2020-12,
 * refused by ajv) becomes `not: {}`, the schema of no value, which codegen/unsatisfiable.ts reports.
 * Which schemas become tool arguments is src/runtime/tool-view.ts's job.
 */
import type { JsonSchema } from '../src/runtime/types.js';
import { setOwn } from '../src/runtime/values.js';

type Schema = Record<string, unknown>;

/** Keywords copied verbatim (the rest — x-*, xml, discriminator, externalDocs, $id… — is dropped). */
const PLAIN_KEYWORDS = [
  'title', 'description', 'type', 'format', 'enum', 'const', 'pattern', 'minLength', 'maxLength',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems',
  'uniqueItems', 'minProperties', 'maxProperties', 'required', 'default', 'examples', 'deprecated',
  'readOnly', 'writeOnly', 'contentEncoding', 'contentMediaType', 'dependentRequired',
] as const;

const ANY_SCALAR_OR_OBJECT = ['string', 'number', 'boolean', 'object', 'null'];
/** What an untyped schema (`{}`) becomes: strict clients reject schemas without `type`. */
const ANY_VALUE_SCHEMA: JsonSchema = Object.freeze({
  type: [...ANY_SCALAR_OR_OBJECT.slice(0, 4), 'array', 'null'],
  items: { type: ANY_SCALAR_OR_OBJECT },
});
const RECURSION_STUB_DESCRIPTION = 'Recursive reference to an enclosing schema; deeper levels are not described.';
/** The value of `not` that makes a schema admit no value (an empty enum, or allOf enums with nothing in common). */
export const NO_VALUE: Readonly<Schema> = Object.freeze({});

/** Converts `schema` into JSON Schema 2020-12 data (see module comment). */
export function toJsonSchema(schema: unknown): JsonSchema {
  return convert(schema, new Set());
}

/**
 * `complete: false` leaves the node's own `type`/`items` to be inferred by whoever merges it: an
 * allOf member that only adds a description must not become "any value" beside the others' union.
 */
function convert(input: unknown, ancestors: Set<object>, complete = true): Schema {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return complete ? { ...ANY_VALUE_SCHEMA } : {};
  if (ancestors.has(input)) return { type: 'object', description: RECURSION_STUB_DESCRIPTION };
  ancestors.add(input);
  try {
    const source = input as Schema;
    let out = copyOwnKeywords(source, ancestors);
    if (Array.isArray(source.allOf)) {
      for (const member of source.allOf) out = mergeSchemas(out, convert(member, ancestors, false));
    }
    // After the merge: 3.0 `nullable` is the whole schema's, allOf members included.
    if (source.nullable === true) admitNull(out);
    if (Array.isArray(out.enum) && out.enum.length === 0) refuseEveryValue(out);
    return complete ? completeTypes(out) : out;
  } finally {
    ancestors.delete(input);
  }
}

function copyOwnKeywords(source: Schema, ancestors: Set<object>): Schema {
  const out: Schema = {};
  for (const key of PLAIN_KEYWORDS) if (source[key] !== undefined) out[key] = structuredClone(source[key]);
  if (source.example !== undefined && out.examples === undefined) out.examples = [structuredClone(source.example)];
  if (typeof source.exclusiveMinimum === 'boolean') rewriteBooleanExclusive(out, 'minimum', 'exclusiveMinimum');
  if (typeof source.exclusiveMaximum === 'boolean') rewriteBooleanExclusive(out, 'maximum', 'exclusiveMaximum');
  if (source.properties && typeof source.properties === 'object') {
    const properties: Schema = {};
    for (const [name, value] of Object.entries(source.properties as Schema)) setOwn(properties, name, convert(value, ancestors));
    out.properties = properties;
  }
  if (source.patternProperties && typeof source.patternProperties === 'object') {
    const patterns: Schema = {};
    for (const [pattern, value] of Object.entries(source.patternProperties as Schema)) patterns[pattern] = convert(value, ancestors);
    out.patternProperties = patterns;
  }
  if (typeof source.additionalProperties === 'boolean') out.additionalProperties = source.additionalProperties;
  else if (source.additionalProperties && typeof source.additionalProperties === 'object') {
    out.additionalProperties = convert(source.additionalProperties, ancestors);
  }
  if (Array.isArray(source.items)) out.prefixItems = source.items.map((item) => convert(item, ancestors)); // 3.0-era tuple form
  else if (source.items !== undefined) out.items = convert(source.items, ancestors);
  if (Array.isArray(source.prefixItems)) out.prefixItems = source.prefixItems.map((item) => convert(item, ancestors));
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(source[key])) out[key] = (source[key] as unknown[]).map((member) => convert(member, ancestors));
  }
  if (source.not && typeof source.not === 'object') out.not = convert(source.not, ancestors);
  return out;
}

/** OpenAPI 3.0 `exclusiveMinimum: true` + `minimum: n` → 2020-12 `exclusiveMinimum: n`. */
function rewriteBooleanExclusive(out: Schema, bound: 'minimum' | 'maximum', exclusive: 'exclusiveMinimum' | 'exclusiveMaximum'): void {
  if (out[exclusive] === true && typeof out[bound] === 'number') {
    out[exclusive] = out[bound];
    delete out[bound];
  } else {
    delete out[exclusive];
  }
}

/** 3.0 `nullable: true`: null joins the type, and a union gets a null branch (its branches alone decide). */
function admitNull(out: Schema): void {
  const branches = unionKey(out);
  if (branches !== undefined) {
    const members = out[branches] as Schema[];
    if (!members.some((member) => typesOf(member).includes('null'))) out[branches] = [...members, { type: 'null' }];
    if (out.type !== undefined) out.type = addNull(out.type);
    return;
  }
  out.type = addNull(out.type ?? inferType(out));
}

/** `enum: []` admits no value; ajv refuses to compile it, so it is said as `not: {}`. */
function refuseEveryValue(out: Schema): void {
  delete out.enum;
  out.not = { ...NO_VALUE };
}

/** The key of the schema's own union (`anyOf` or `oneOf`), if it has one. */
function unionKey(schema: Schema): 'anyOf' | 'oneOf' | undefined {
  if (Array.isArray(schema.anyOf)) return 'anyOf';
  return Array.isArray(schema.oneOf) ? 'oneOf' : undefined;
}

function typesOf(schema: Schema): unknown[] {
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function addNull(type: unknown): unknown {
  const list = Array.isArray(type) ? [...type] : type === undefined ? [] : [type];
  if (!list.includes('null')) list.push('null');
  return list.length === 1 ? list[0] : list;
}

/**
 * Merges an `allOf` member into the schema built so far: `required` and `properties` joined, `type`
 * and `enum` intersected (an empty intersection admits no value); otherwise the earlier value wins.
 */
function mergeSchemas(base: Schema, member: Schema): Schema {
  const out: Schema = { ...base };
  for (const [key, value] of Object.entries(member)) {
    if (key === 'properties') out.properties = { ...(value as Schema), ...((base.properties as Schema) ?? {}) };
    else if (key === 'required') out.required = [...new Set([...((base.required as string[]) ?? []), ...(value as string[])])];
    else if (key === 'type' && base.type !== undefined) out.type = intersectTypes(base.type, value);
    else if (key === 'enum' && Array.isArray(base.enum) && Array.isArray(value)) out.enum = intersectValues(base.enum, value);
    else if (key === 'not' && isNoValue(value)) out.not = value;
    else if (out[key] === undefined) out[key] = value;
  }
  return out;
}

function intersectValues(a: readonly unknown[], b: readonly unknown[]): unknown[] {
  const right = new Set(b.map((value) => JSON.stringify(value)));
  return a.filter((value) => right.has(JSON.stringify(value)));
}

/** Whether `not` holds the schema every value matches, so that its schema admits none. */
export function isNoValue(not: unknown): boolean {
  return typeof not === 'object' && not !== null && !Array.isArray(not) && Object.keys(not).length === 0;
}

function intersectTypes(a: unknown, b: unknown): unknown {
  const left = Array.isArray(a) ? a : [a];
  const right = Array.isArray(b) ? b : [b];
  const both = left.filter((t) => right.includes(t) || (t === 'integer' && right.includes('number')));
  const result = both.length > 0 ? both : left;
  return result.length === 1 ? result[0] : result;
}

/**
 * Ensures `type` everywhere and `items` on arrays (strict MCP clients reject either gap). A union's
 * branches are typed and describe it: nothing is added beside them, as a sibling `type` or
 * `items` would be one more schema every branch must also match (the profiles merge it into each).
 */
function completeTypes(out: Schema): Schema {
  if (unionKey(out) !== undefined) return out;
  if (out.type === undefined) out.type = inferType(out);
  const types = Array.isArray(out.type) ? out.type : [out.type];
  if (types.includes('array') && out.items === undefined && out.prefixItems === undefined) {
    out.items = { type: [...ANY_SCALAR_OR_OBJECT] };
  }
  return out;
}

/** Infers `type` for an untyped schema (not a union) from its other keywords. */
function inferType(schema: Schema): unknown {
  if (schema.properties || schema.additionalProperties !== undefined || schema.required || schema.patternProperties) return 'object';
  if (schema.items || schema.prefixItems || schema.minItems !== undefined) return 'array';
  if (Array.isArray(schema.enum)) return collapse(schema.enum.map(typeOfValue));
  if (schema.const !== undefined) return typeOfValue(schema.const);
  if (schema.format || schema.pattern || schema.minLength !== undefined || schema.maxLength !== undefined) return 'string';
  if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].some((k) => schema[k] !== undefined)) return 'number';
  return ANY_VALUE_SCHEMA.type;
}

function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value === 'bigint' ? 'integer' : typeof value;
}

function collapse(types: readonly unknown[]): unknown {
  let unique = [...new Set(types.filter((t): t is string => typeof t === 'string'))];
  if (unique.includes('number')) unique = unique.filter((t) => t !== 'integer'); // number already admits integers
  if (unique.length === 0) return ANY_VALUE_SCHEMA.type;
  return unique.length === 1 ? unique[0] : unique;
}
