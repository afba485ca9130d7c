/**
 * Normalizing a canonical node (src/runtime/schema-profiles.ts): `$ref` and `allOf` resolved,
 * then split into single-typed alternatives. Profile-neutral.
 */
import { fail, isObj, JSON_TYPES, jsonTypeOf, SILENT_KEYWORDS, type Alternative, type Context, type Obj } from './types.js';

const TYPE_KEYWORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(['minLength', 'maxLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType']),
  number: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format']),
  integer: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format']),
  array: new Set(['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'unevaluatedItems']),
  object: new Set(['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'patternProperties', 'propertyNames', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties']),
  boolean: new Set(),
  null: new Set(),
};

function resolveRef(ctx: Context, ref: string, path: string): Obj {
  if (!ref.startsWith('#')) fail(ctx, path, `external $ref ${ref}`);
  let node: unknown = ctx.root;
  for (const raw of ref.slice(1).split('/').filter((s) => s !== '')) {
    const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObj(node) ? node[segment] : undefined;
  }
  if (!isObj(node)) fail(ctx, path, `unresolvable $ref ${ref}`);
  return node;
}

/** `$ref` inlined (siblings win) and `allOf` merged; recursion is refused. */
export function flatten(ctx: Context, schema: Obj, path: string): { node: Obj; ctx: Context } {
  let node = schema;
  let current = ctx;
  while (typeof node.$ref === 'string') {
    const ref = node.$ref;
    if (current.expanding.has(ref)) fail(ctx, path, `recursive $ref ${ref}`);
    const { $ref: _ref, ...siblings } = node;
    node = { ...resolveRef(current, ref, path), ...siblings };
    current = { ...current, expanding: new Set([...current.expanding, ref]) };
  }
  if (Array.isArray(node.allOf)) {
    const { allOf, ...rest } = node;
    let merged: Obj = rest;
    for (const [index, member] of (allOf as unknown[]).entries()) {
      if (!isObj(member)) fail(ctx, `${path}/allOf/${index}`, 'not a schema');
      merged = mergeSchemas(ctx, merged, flatten(current, member, `${path}/allOf/${index}`).node, path);
    }
    node = merged;
  }
  return { node, ctx: current };
}

/**
 * Keywords holding one subschema that every value (item, property, name) must match: two of them
 * hold together as their allOf, flattened when that node is built. (`not` and `contains` do not
 * combine so.)
 */
const SUBSCHEMA_KEYWORDS = new Set(['items', 'additionalProperties', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties']);
const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties', 'minContains']);
const UPPER_BOUNDS = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'maxContains']);

/**
 * The conjunction of two schemas (allOf members, or a union's shared keywords and one branch): the
 * tighter bound, the common enum values, both subschemas; a keyword that cannot be combined (two
 * patterns, two formats) fails, and the generator reports the tool.
 */
function mergeSchemas(ctx: Context, a: Obj, b: Obj, path: string): Obj {
  const out: Obj = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out) || SILENT_KEYWORDS.has(key)) { out[key] ??= value; continue; }
    const existing = out[key];
    if (JSON.stringify(existing) === JSON.stringify(value)) continue;
    if (key === 'properties' && isObj(existing) && isObj(value)) out[key] = mergeProperties(existing, value);
    else if (key === 'required' && Array.isArray(existing) && Array.isArray(value)) out[key] = [...new Set([...existing, ...value])];
    else if (key === 'description') out[key] = `${String(existing)} ${String(value)}`;
    else if (key === 'type') out[key] = intersectTypes(typesOf(existing), typesOf(value));
    else if (key === 'enum' && Array.isArray(existing) && Array.isArray(value)) out[key] = existing.filter((v) => value.some((w) => JSON.stringify(v) === JSON.stringify(w)));
    else if (typeof existing === 'number' && typeof value === 'number' && LOWER_BOUNDS.has(key)) out[key] = Math.max(existing, value);
    else if (typeof existing === 'number' && typeof value === 'number' && UPPER_BOUNDS.has(key)) out[key] = Math.min(existing, value);
    else if (key === 'uniqueItems' || key === 'deprecated') out[key] = existing === true || value === true;
    else if (SUBSCHEMA_KEYWORDS.has(key)) out[key] = conjunction(existing, value);
    else fail(ctx, path, `allOf members disagree on "${key}"`);
  }
  return out;
}

/** Both schemas (`false` wins, `true` yields): the allOf a later flatten merges. */
function conjunction(a: unknown, b: unknown): unknown {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  return { allOf: [a, b] };
}

/** A property both sides name must match both. */
function mergeProperties(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [name, schema] of Object.entries(b)) out[name] = name in out ? conjunction(out[name], schema) : schema;
  return out;
}

export function typesOf(type: unknown): string[] {
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return [...JSON_TYPES];
}

function intersectTypes(a: readonly string[], b: readonly string[]): string[] {
  // 'integer' is a subset of 'number'.
  return JSON_TYPES.filter((t) => (a.includes(t) || (t === 'integer' && a.includes('number'))) && (b.includes(t) || (t === 'integer' && b.includes('number'))));
}

/**
 * A node as a list of single-typed alternatives (null among them), from `anyOf`/`oneOf`
 * members, a `type` array or an `enum` of mixed types. The node's own keywords apply to each.
 */
export function alternativesOf(ctx: Context, node: Obj, path: string): { alternatives: Alternative[]; ctx: Context } {
  const members = (node.anyOf ?? node.oneOf) as unknown;
  if (Array.isArray(members)) {
    const shared: Obj = {};
    for (const [key, value] of Object.entries(node)) if (key !== 'anyOf' && key !== 'oneOf' && key !== 'description') shared[key] = value;
    const alternatives: Alternative[] = [];
    for (const [index, member] of members.entries()) {
      if (!isObj(member)) fail(ctx, `${path}/anyOf/${index}`, 'not a schema');
      const flat = flatten(ctx, member, `${path}/anyOf/${index}`);
      const merged = mergeSchemas(ctx, flat.node, shared, path);
      alternatives.push(...alternativesOf(flat.ctx, merged, `${path}/anyOf/${index}`).alternatives);
    }
    return { alternatives, ctx };
  }
  let types = node.type === undefined ? null : typesOf(node.type);
  const values = Array.isArray(node.enum) ? (node.enum as unknown[]) : 'const' in node ? [node.const] : null;
  if (types === null && values !== null) types = [...new Set(values.map(jsonTypeOf).map((t) => (t === 'integer' ? 'number' : t)))];
  if (types === null) return { alternatives: [{ type: null, schema: node }], ctx };
  if (node.nullable === true && !types.includes('null')) types = [...types, 'null'];
  if (types.includes('number')) types = types.filter((t) => t !== 'integer');
  const alternatives = types.map((type): Alternative => {
    const schema: Obj = { type };
    for (const [key, value] of Object.entries(node)) {
      if (key === 'type' || key === 'enum' || key === 'const' || key === 'nullable') continue;
      const owner = Object.entries(TYPE_KEYWORDS).find(([, keys]) => keys.has(key));
      if (owner === undefined || owner[0] === type || (owner[0] === 'number' && type === 'integer') || (owner[0] === 'integer' && type === 'number')) schema[key] = value;
    }
    if (values !== null) schema.enum = values.filter((v) => jsonTypeOf(v) === type || (type === 'number' && typeof v === 'number'));
    return { type, schema };
  });
  return { alternatives: alternatives.filter((a) => a.schema.enum === undefined || (a.schema.enum as unknown[]).length > 0), ctx };
}
