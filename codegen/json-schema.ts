/**
 * Turns one dereferenced OpenAPI schema (3.0 or 3.1) into plain JSON Schema 2020-12 data: no `$ref`,
 * no OpenAPI-only keywords, `allOf` merged, every schema typed, every array with `items`, and
 * object cycles cut into a typed stub. Which schemas become tool arguments is src/runtime/tool-view.ts's job.
 */
import type { JsonSchema } from '../src/runtime/types.js';

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

/** Converts `schema` into JSON Schema 2020-12 data (see module comment). */
export function toJsonSchema(schema: unknown): JsonSchema {
  return convert(schema, new Set());
}

function convert(input: unknown, ancestors: Set<object>): Schema {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return { ...ANY_VALUE_SCHEMA };
  if (ancestors.has(input)) return { type: 'object', description: RECURSION_STUB_DESCRIPTION };
  ancestors.add(input);
  try {
    const source = input as Schema;
    let out = copyOwnKeywords(source, ancestors);
    if (Array.isArray(source.allOf)) {
      for (const member of source.allOf) out = mergeSchemas(out, convert(member, ancestors));
    }
    return completeTypes(out);
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
  if (source.nullable === true) out.type = addNull(out.type ?? inferType(out));
  if (source.properties && typeof source.properties === 'object') {
    const properties: Schema = {};
    for (const [name, value] of Object.entries(source.properties as Schema)) properties[name] = convert(value, ancestors);
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

function addNull(type: unknown): unknown {
  const list = Array.isArray(type) ? [...type] : type === undefined ? [] : [type];
  if (!list.includes('null')) list.push('null');
  return list.length === 1 ? list[0] : list;
}

/** Merges an `allOf` member into the schema built so far; the earlier value wins on conflict. */
function mergeSchemas(base: Schema, member: Schema): Schema {
  const out: Schema = { ...base };
  for (const [key, value] of Object.entries(member)) {
    if (key === 'properties') out.properties = { ...(value as Schema), ...((base.properties as Schema) ?? {}) };
    else if (key === 'required') out.required = [...new Set([...((base.required as string[]) ?? []), ...(value as string[])])];
    else if (key === 'type' && base.type !== undefined) out.type = intersectTypes(base.type, value);
    else if (out[key] === undefined) out[key] = value;
  }
  return out;
}

function intersectTypes(a: unknown, b: unknown): unknown {
  const left = Array.isArray(a) ? a : [a];
  const right = Array.isArray(b) ? b : [b];
  const both = left.filter((t) => right.includes(t) || (t === 'integer' && right.includes('number')));
  const result = both.length > 0 ? both : left;
  return result.length === 1 ? result[0] : result;
}

/** Ensures `type` everywhere and `items` on arrays (strict MCP clients reject either gap). */
function completeTypes(out: Schema): Schema {
  if (out.type === undefined) out.type = inferType(out);
  const types = Array.isArray(out.type) ? out.type : [out.type];
  if (types.includes('array') && out.items === undefined && out.prefixItems === undefined) {
    out.items = { type: [...ANY_SCALAR_OR_OBJECT] };
  }
  return out;
}

/** Infers `type` for an untyped schema from its other keywords. */
function inferType(schema: Schema): unknown {
  const union = [...(schema.anyOf as Schema[] | undefined ?? []), ...(schema.oneOf as Schema[] | undefined ?? [])];
  if (union.length > 0) return collapse(union.flatMap((member) => (Array.isArray(member.type) ? member.type : [member.type])));
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
