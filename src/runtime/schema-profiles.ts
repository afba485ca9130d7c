/**
 * Client schema profiles (docs/protocol.md#client-schema-profiles): the canonical tool
 * `inputSchema` (JSON Schema 2020-12) rewritten for clients whose function calling accepts only
 * a subset, plus the decoder that turns arguments written in that form back into canonical
 * arguments. Pure and generic over any JSON Schema; the generator runs it for the review copies
 * and the tool catalog at start-up. Decoded arguments are validated against the canonical schema
 * afterwards, so every constraint a profile cannot state (moved into a description) still holds.
 *
 * `openai` — OpenAI Structured Outputs / strict function calling ("Supported schemas"):
 *   types string, number, boolean, integer, object, array, enum, anyOf (never at the root; each
 *   member itself in the subset); string keywords `pattern`, `format` (date-time, time, date,
 *   duration, email, hostname, ipv4, ipv6, uuid); number keywords `multipleOf`, `maximum`,
 *   `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; array keywords `minItems`, `maxItems`;
 *   every object has `additionalProperties: false` and lists every property in `required`; an
 *   optional parameter is emulated by a union with null (`"type": ["string", "null"]`). Not
 *   supported: `allOf`, `not`, `dependentRequired`, `dependentSchemas`, `if`/`then`/`else`.
 *   At most 5 levels of nesting, 5,000 properties, 1,000 enum values, 120,000 characters of
 *   names and enum values.
 * `gemini` — the Gemini function-declaration `parameters` Schema ("a select subset of an OpenAPI
 *   3.0 schema object"): one `type` (never an array: "Proto field is not repeating"), `format`
 *   (number: float, double; integer: int32, int64; string: enum, date-time), `description`,
 *   `nullable`, `enum` (strings), `items`, `properties` (non-empty for an object), `required`,
 *   `minItems`, `maxItems`. No `$ref`, `anyOf`/`oneOf`/`allOf`, `additionalProperties`,
 *   `exclusiveMinimum`, `const`, `default`, `examples` (rejected with "Unknown name …").
 *
 * How the forms map back (decode):
 * - openai: a property the canonical schema makes optional is required and nullable, and null
 *   means absent. Where the canonical schema itself accepts null for an optional property (an
 *   update's "`null` clears it"), the object gets one more property, `set_null`: the names to
 *   set to null. A union is an `anyOf`; a type array becomes an `anyOf` of single types.
 * - gemini: optional stays optional; a canonical `[t, "null"]` is `t` + `nullable: true`, and
 *   null stays null there (elsewhere null on an optional property means absent). A union of
 *   scalar types travels as its string form (a number as its decimal text, which the canonical
 *   string branch accepts) — the one mapping that changes a value's JSON type; any other union
 *   becomes an object with one property per alternative, set exactly one (an object alternative
 *   lends its own properties, the others get a tag such as `value`).
 * - both: an object without named properties (free-form, maps) or a value of no type is a
 *   string holding JSON; a keyword a profile lacks is written into the description
 *   (`Format: uuid.`, `At most 255 characters.`, `Default: 25.`) unless the description
 *   already states its value; `examples`, `title`, `$comment` and `x-` keywords are left out.
 */
import type { JsonSchema } from './types.js';

export type SchemaProfile = 'canonical' | 'openai' | 'gemini';
export type ClientSchemaProfile = Exclude<SchemaProfile, 'canonical'>;
export const SCHEMA_PROFILES: readonly SchemaProfile[] = ['canonical', 'openai', 'gemini'];

/** The extra property of an OpenAI-form object listing the optional properties to set to null. */
export const SET_NULL_PROPERTY = 'set_null';

/** The canonical schema cannot be written in the profile (the generator reports it). */
export class SchemaProfileError extends Error {
  constructor(readonly profile: ClientSchemaProfile, readonly path: string, reason: string) {
    super(`${profile} schema profile: ${path || '(root)'}: ${reason}`);
  }
}

/** How arguments in a profile's form map back to canonical arguments. Data only (tests walk it). */
export type Decoder =
  | { readonly kind: 'keep' }
  /** A string holding JSON: parsed (an unparsable string is passed on for the canonical check to refuse). */
  | { readonly kind: 'json' }
  | { readonly kind: 'array'; readonly items: Decoder }
  | {
      readonly kind: 'object';
      readonly properties: { readonly [name: string]: PropertyDecoder };
      /** openai: the names `set_null` may list. */
      readonly setNull: readonly string[] | null;
    }
  /** openai `anyOf`: the member the value's JSON type (and, for objects, its keys) selects. */
  | { readonly kind: 'union'; readonly members: readonly UnionMember[] }
  /**
   * gemini: an object with one property per alternative (`tags`) and, when one alternative is
   * an object, that object's own properties (`object`): a lone tag is unwrapped.
   */
  | { readonly kind: 'tagged'; readonly tags: { readonly [tag: string]: Decoder }; readonly object: Decoder | null };

export interface PropertyDecoder {
  readonly decoder: Decoder;
  /** null in the profile's form means "absent" (the property is optional in the canonical schema). */
  readonly nullMeansAbsent: boolean;
}

export interface UnionMember {
  /** JSON types the member takes: 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null'. */
  readonly types: readonly string[];
  /** For object members: the property names (they are all required in the OpenAI form). */
  readonly keys: readonly string[] | null;
  readonly decoder: Decoder;
}

export interface ProfiledSchema {
  readonly schema: JsonSchema;
  readonly decoder: Decoder;
}

type Obj = { [key: string]: unknown };

const OPENAI_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);
const GEMINI_FORMATS: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};
const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean']);
const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];
/** Keywords that annotate rather than constrain: never carried into a profile, never described. */
const SILENT_KEYWORDS = new Set(['examples', 'example', 'title', '$comment', '$schema', '$id', '$anchor', 'readOnly', 'writeOnly', '$defs', 'definitions']);
const TYPE_KEYWORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(['minLength', 'maxLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType']),
  number: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format']),
  integer: new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'format']),
  array: new Set(['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'unevaluatedItems']),
  object: new Set(['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'patternProperties', 'propertyNames', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties']),
  boolean: new Set(),
  null: new Set(),
};

function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

// ---------------------------------------------------------------------------------------------
// Normalizing a canonical node: $ref and allOf resolved, then split into alternatives.

interface Context {
  readonly profile: ClientSchemaProfile;
  readonly root: Obj;
  /** $ref targets being expanded (a recursive schema cannot be inlined). */
  readonly expanding: ReadonlySet<string>;
}

function fail(ctx: Context, path: string, reason: string): never {
  throw new SchemaProfileError(ctx.profile, path, reason);
}

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
function flatten(ctx: Context, schema: Obj, path: string): { node: Obj; ctx: Context } {
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

/** The conjunction of two schemas, for the keywords where it is a plain merge. */
function mergeSchemas(ctx: Context, a: Obj, b: Obj, path: string): Obj {
  const out: Obj = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out) || SILENT_KEYWORDS.has(key)) { out[key] ??= value; continue; }
    const existing = out[key];
    if (key === 'properties' && isObj(existing) && isObj(value)) out[key] = { ...existing, ...value };
    else if (key === 'required' && Array.isArray(existing) && Array.isArray(value)) out[key] = [...new Set([...existing, ...value])];
    else if (key === 'description') out[key] = `${String(existing)} ${String(value)}`;
    else if (key === 'type') out[key] = intersectTypes(typesOf(existing), typesOf(value));
    else if (JSON.stringify(existing) !== JSON.stringify(value)) fail(ctx, path, `allOf members disagree on "${key}"`);
  }
  return out;
}

function typesOf(type: unknown): string[] {
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  return [...JSON_TYPES];
}

function intersectTypes(a: readonly string[], b: readonly string[]): string[] {
  // 'integer' is a subset of 'number'.
  return JSON_TYPES.filter((t) => (a.includes(t) || (t === 'integer' && a.includes('number'))) && (b.includes(t) || (t === 'integer' && b.includes('number'))));
}

/** One alternative of a node: a schema with at most one type. */
interface Alternative {
  readonly type: string | null;
  readonly schema: Obj;
}

/**
 * A node as a list of single-typed alternatives (null among them), from `anyOf`/`oneOf`
 * members, a `type` array or an `enum` of mixed types. The node's own keywords apply to each.
 */
function alternativesOf(ctx: Context, node: Obj, path: string): { alternatives: Alternative[]; ctx: Context } {
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

// ---------------------------------------------------------------------------------------------
// Descriptions of what a profile cannot say.

function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The sentence for a keyword left out of the profile; null when nothing is worth saying. */
function describeKeyword(key: string, value: unknown): string | null {
  const v = formatValue(value);
  switch (key) {
    case 'format': return `Format: ${v}.`;
    case 'pattern': return `Pattern: ${v}.`;
    case 'minLength': return value === 1 ? 'Not empty.' : `At least ${v} characters.`;
    case 'maxLength': return `At most ${v} characters.`;
    case 'minimum': return `Minimum ${v}.`;
    case 'maximum': return `Maximum ${v}.`;
    case 'exclusiveMinimum': return `Greater than ${v}.`;
    case 'exclusiveMaximum': return `Less than ${v}.`;
    case 'multipleOf': return `A multiple of ${v}.`;
    case 'minItems': return value === 1 ? 'At least one item.' : `At least ${v} items.`;
    case 'maxItems': return `At most ${v} items.`;
    case 'uniqueItems': return value === true ? 'Items are unique.' : null;
    case 'minProperties': return `Set at least ${v} of these fields.`;
    case 'maxProperties': return `Set at most ${v} of these fields.`;
    case 'default': return `Default: ${v}.`;
    case 'enum': return `One of: ${(value as unknown[]).map(formatValue).join(', ')}.`;
    case 'contentEncoding': return `Encoding: ${v}.`;
    case 'contentMediaType': return `Media type: ${v}.`;
    case 'deprecated': return value === true ? 'Deprecated.' : null;
    default:
      if (key.startsWith('x-') || SILENT_KEYWORDS.has(key)) return null;
      return `Also: ${key} ${JSON.stringify(value)}.`;
  }
}

/** Limits and defaults a description usually states in words ("Page size, 1–100 (default 25)"). */
const STATED_BY_VALUE = new Set(['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'default']);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Joins sentences onto a description, leaving out a sentence whose value the text already states. */
function withNotes(description: unknown, notes: readonly { key: string; value: unknown }[]): string | undefined {
  let text = typeof description === 'string' ? description.trim() : '';
  for (const { key, value } of notes) {
    const sentence = describeKeyword(key, value);
    if (sentence === null) continue;
    if (STATED_BY_VALUE.has(key) && (typeof value === 'number' || typeof value === 'string') && new RegExp(`(^|[^\\w.])${escapeRegExp(String(value))}($|[^\\w])`).test(text)) continue;
    if (text.includes(sentence)) continue;
    text = text === '' ? sentence : `${text}${/[.!?:]$/.test(text) ? '' : '.'} ${sentence}`;
  }
  return text === '' ? undefined : text;
}

// ---------------------------------------------------------------------------------------------
// The transform.

interface Built {
  readonly schema: Obj;
  readonly decoder: Decoder;
}

const KEEP: Decoder = { kind: 'keep' };

/** The canonical tool `inputSchema` in the profile's form, with its decoder. Throws SchemaProfileError. */
export function toSchemaProfile(profile: ClientSchemaProfile, inputSchema: JsonSchema): ProfiledSchema {
  const ctx: Context = { profile, root: inputSchema as Obj, expanding: new Set() };
  const { node } = flatten(ctx, inputSchema as Obj, '');
  const built = buildNode(ctx, node, '', { root: true });
  if (built.schema.type !== 'object') fail(ctx, '', 'the root must be an object with properties');
  return { schema: built.schema, decoder: built.decoder };
}

interface NodeOptions {
  /** The node is the tool's parameters object: OpenAI refuses `anyOf` there, both want an object. */
  readonly root?: boolean;
}

function buildNode(ctx: Context, schema: Obj, path: string, options: NodeOptions = {}): Built {
  const flat = flatten(ctx, schema, path);
  const { alternatives } = alternativesOf(flat.ctx, flat.node, path);
  const nullable = alternatives.some((a) => a.type === 'null');
  const rest = alternatives.filter((a) => a.type !== 'null');
  const description = flat.node.description;
  // Legal in 3.1 (`type: 'null'`) but typeable in neither profile: carried as JSON text, which
  // can only be `null` (the canonical validator refuses anything else after decoding).
  if (rest.length === 0) {
    if (options.root) fail(ctx, path, 'a schema that only admits null at the root');
    return jsonCarrier(appendSentence(description, 'Always null.'), {});
  }
  if (rest.length === 1) {
    const built = buildSingle(flat.ctx, rest[0]!, path, description, options.root === true);
    return nullable ? makeNullable(ctx.profile, built) : built;
  }
  if (options.root) fail(ctx, path, 'a union at the root');
  return ctx.profile === 'openai'
    ? buildOpenAiUnion(flat.ctx, rest, nullable, description, path)
    : buildGeminiUnion(flat.ctx, rest, nullable, description, path);
}

/** Adds null to a built node: `[t, "null"]` or an `anyOf` member (OpenAI), `nullable` (Gemini). */
function makeNullable(profile: ClientSchemaProfile, built: Built): Built {
  const { schema } = built;
  if (admitsNull(schema)) return built;
  if (profile === 'gemini') return { schema: { ...schema, nullable: true }, decoder: built.decoder };
  if (Array.isArray(schema.anyOf)) {
    if ((schema.anyOf as Obj[]).some((m) => m.type === 'null')) return built;
    return { schema: { ...schema, anyOf: [...(schema.anyOf as Obj[]), { type: 'null' }] }, decoder: built.decoder };
  }
  // `["string", "null"]` is the documented form; an enum (which would refuse null), an object or
  // an array gets null as an anyOf member of its own.
  if (typeof schema.type === 'string' && SCALAR_TYPES.has(schema.type) && !('enum' in schema)) {
    return { schema: { ...schema, type: [schema.type, 'null'] }, decoder: built.decoder };
  }
  const { description, ...member } = schema;
  return { schema: { ...(description === undefined ? {} : { description }), anyOf: [member, { type: 'null' }] }, decoder: built.decoder };
}

/** Keywords a profile keeps for a node of this type; the rest becomes description notes. */
function keeps(profile: ClientSchemaProfile, type: string, key: string, value: unknown): boolean {
  if (profile === 'openai') {
    switch (type) {
      case 'string': return key === 'pattern' || (key === 'format' && OPENAI_FORMATS.has(String(value))) || key === 'enum';
      case 'number':
      case 'integer': return ['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'enum'].includes(key);
      case 'array': return key === 'minItems' || key === 'maxItems';
      case 'boolean': return key === 'enum';
      default: return false;
    }
  }
  switch (type) {
    case 'string': return (key === 'format' && GEMINI_FORMATS['string']!.has(String(value))) || (key === 'enum' && (value as unknown[]).every((v) => typeof v === 'string'));
    case 'number':
    case 'integer': return key === 'format' && GEMINI_FORMATS[type]!.has(String(value));
    case 'array': return key === 'minItems' || key === 'maxItems';
    default: return false;
  }
}

function buildSingle(ctx: Context, alternative: Alternative, path: string, description: unknown, root = false): Built {
  const { type, schema } = alternative;
  if (type === null) return jsonCarrier(description, schema);
  const notes: { key: string; value: unknown }[] = [];
  const out: Obj = { type };
  const structural = type === 'object' ? ['properties', 'required', 'additionalProperties', 'propertyNames'] : type === 'array' ? ['items', 'prefixItems'] : [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' || key === 'description' || structural.includes(key) || SILENT_KEYWORDS.has(key) || key.startsWith('x-') || key === 'nullable') continue;
    if (keeps(ctx.profile, type, key, value)) out[key] = value;
    else notes.push({ key, value });
  }
  if (type === 'object') return buildObject(ctx, schema, out, notes, path, description, root);
  if (type === 'array') {
    if (Array.isArray(schema.prefixItems) || !isObj(schema.items)) return jsonCarrier(description, schema);
    const items = buildNode(ctx, schema.items, `${path}/items`);
    out.items = items.schema;
    setDescription(out, withNotes(description, notes));
    return { schema: out, decoder: items.decoder.kind === 'keep' ? KEEP : { kind: 'array', items: items.decoder } };
  }
  setDescription(out, withNotes(description, notes));
  return { schema: out, decoder: KEEP };
}

/** Sets the description right after `type`, as a person reads a schema. */
function setDescription(schema: Obj, description: string | undefined): void {
  const { type, description: _old, ...rest } = schema;
  for (const key of Object.keys(schema)) delete schema[key];
  Object.assign(schema, type === undefined ? {} : { type }, description === undefined ? {} : { description }, rest);
}

function appendSentence(description: unknown, sentence: string): string {
  const text = typeof description === 'string' ? description.trim() : '';
  return text === '' ? sentence : `${text}${/[.!?]$/.test(text) ? '' : '.'} ${sentence}`;
}

/** A value the profile cannot type: a string holding its JSON. */
function jsonCarrier(description: unknown, schema: Obj): Built {
  const shape = schema.type === 'object' ? 'a JSON object' : schema.type === 'array' ? 'a JSON array' : 'a JSON value';
  const text = withNotes(description, []);
  return {
    schema: { type: 'string', description: `${text === undefined ? '' : `${text}${/[.!?]$/.test(text) ? '' : '.'} `}Send ${shape}, encoded as a string.` },
    decoder: { kind: 'json' },
  };
}

function buildObject(ctx: Context, schema: Obj, out: Obj, notes: { key: string; value: unknown }[], path: string, description: unknown, root: boolean): Built {
  const properties = namedProperties(schema);
  // A tool without arguments keeps its empty parameters object; elsewhere a free-form object is JSON text.
  if (Object.keys(properties).length === 0 && !root) return jsonCarrier(description, schema);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const outProperties: Obj = {};
  const decoders: { [name: string]: PropertyDecoder } = {};
  const setNull: string[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    if (!isObj(raw)) fail(ctx, `${path}/properties/${name}`, 'not a schema');
    if (raw.readOnly === true) continue;
    const built = buildNode(ctx, raw, `${path}/properties/${name}`);
    const optional = !required.has(name);
    const canonicalNull = admitsNull(built.schema);
    if (ctx.profile === 'openai') {
      outProperties[name] = optional ? makeNullable('openai', built).schema : built.schema;
      if (optional && canonicalNull) {
        setNull.push(name);
        // The canonical text may say "`null` clears it"; in this form null leaves it out.
        setDescription(outProperties[name] as Obj, appendSentence((outProperties[name] as Obj).description, `Null here means not given; to set it to null, list it in \`${SET_NULL_PROPERTY}\`.`));
      }
    } else {
      outProperties[name] = built.schema;
    }
    // gemini: null stays null where the canonical schema takes it; elsewhere it cannot mean anything but "absent".
    decoders[name] = { decoder: built.decoder, nullMeansAbsent: optional && (ctx.profile === 'openai' || !canonicalNull) };
  }
  if (setNull.length > 0) {
    if (SET_NULL_PROPERTY in outProperties) fail(ctx, path, `a property named "${SET_NULL_PROPERTY}" next to nullable optional ones`);
    outProperties[SET_NULL_PROPERTY] = {
      description: 'Fields to set to null (e.g. to clear them); a field sent as null counts as not given.',
      anyOf: [{ type: 'array', items: { type: 'string', enum: setNull } }, { type: 'null' }],
    };
  }
  out.properties = outProperties;
  const names = Object.keys(outProperties);
  if (ctx.profile === 'openai') {
    out.required = names;
    out.additionalProperties = false;
  } else {
    const kept = names.filter((n) => required.has(n));
    if (kept.length > 0) out.required = kept;
  }
  setDescription(out, withNotes(description, notes));
  const trivial = Object.values(decoders).every((d) => d.decoder.kind === 'keep' && !d.nullMeansAbsent) && setNull.length === 0;
  return { schema: out, decoder: trivial ? KEEP : { kind: 'object', properties: decoders, setNull: setNull.length > 0 ? setNull : null } };
}

/**
 * The named properties of an object schema. Keys limited by `propertyNames: {enum}` whose values
 * follow `additionalProperties` are the same object as one property per name.
 */
function namedProperties(schema: Obj): Obj {
  const properties: Obj = isObj(schema.properties) ? { ...schema.properties } : {};
  const names = isObj(schema.propertyNames) && Array.isArray(schema.propertyNames.enum) ? (schema.propertyNames.enum as unknown[]) : null;
  if (names !== null && isObj(schema.additionalProperties) && names.every((name) => typeof name === 'string')) {
    for (const name of names as string[]) properties[name] ??= schema.additionalProperties;
  }
  return properties;
}

/** Whether a built node admits null (a canonical `[t, "null"]`, an `anyOf` with null, `nullable`). */
function admitsNull(schema: Obj): boolean {
  if (schema.nullable === true) return true;
  if (Array.isArray(schema.type) && schema.type.includes('null')) return true;
  return Array.isArray(schema.anyOf) && (schema.anyOf as Obj[]).some((m) => m.type === 'null');
}

function buildOpenAiUnion(ctx: Context, alternatives: Alternative[], nullable: boolean, description: unknown, path: string): Built {
  const members: UnionMember[] = [];
  const anyOf: Obj[] = [];
  for (const [index, alternative] of alternatives.entries()) {
    const built = buildSingle(ctx, alternative, `${path}/anyOf/${index}`, undefined);
    anyOf.push(built.schema);
    const types = typesOf(built.schema.type);
    members.push({ types: types.includes('number') ? [...types, 'integer'] : types, keys: types.includes('object') && isObj(built.schema.properties) ? Object.keys(built.schema.properties) : null, decoder: built.decoder });
  }
  if (nullable) anyOf.push({ type: 'null' });
  const schema: Obj = {};
  const text = withNotes(description, []);
  if (text !== undefined) schema.description = text;
  schema.anyOf = anyOf;
  const trivial = members.every((m) => m.decoder.kind === 'keep');
  return { schema, decoder: trivial ? KEEP : { kind: 'union', members } };
}

function buildGeminiUnion(ctx: Context, alternatives: Alternative[], nullable: boolean, description: unknown, path: string): Built {
  const result = alternatives.every((a) => a.type !== null && SCALAR_TYPES.has(a.type))
    ? scalarCarrier(ctx, alternatives, description, path)
    : taggedUnion(ctx, alternatives, description, path);
  return nullable ? makeNullable('gemini', result) : result;
}

/** Scalars only: the string form when one alternative is a string, else number for number ∪ integer. */
function scalarCarrier(ctx: Context, alternatives: Alternative[], description: unknown, path: string): Built {
  const types = alternatives.map((a) => a.type!);
  const carrier = types.includes('string') ? 'string' : types.every((t) => t === 'number' || t === 'integer') ? 'number' : null;
  if (carrier === null) return taggedUnion(ctx, alternatives, description, path);
  // Each alternative's constraints, said per type ("As a string: … As a number: …").
  const parts: string[] = [];
  for (const alternative of alternatives) {
    const built = buildSingle(ctx, { type: alternative.type, schema: { ...alternative.schema, type: alternative.type } }, path, undefined);
    const said = [...Object.entries(built.schema).filter(([k]) => k !== 'type' && k !== 'description').map(([k, v]) => describeKeyword(k, v)), built.schema.description]
      .filter((s): s is string => typeof s === 'string');
    if (said.length > 0) parts.push(`As ${alternative.type === 'integer' ? 'an integer' : `a ${String(alternative.type)}`}: ${said.join(' ')}`);
  }
  const lead = withNotes(description, []);
  const extra = carrier === 'string' ? `Send a ${types.filter((t) => t !== 'string').join(' or ')} as text.` : '';
  const text = [lead === undefined ? '' : `${lead}${/[.!?]$/.test(lead) ? '' : '.'}`, extra, ...parts].filter((s) => s !== '').join(' ');
  return { schema: { type: carrier, description: text }, decoder: KEEP };
}

/** Any other union: one property per alternative (an object alternative lends its own properties). */
function taggedUnion(ctx: Context, alternatives: Alternative[], description: unknown, path: string): Built {
  const objects = alternatives.filter((a) => a.type === 'object' && isObj(a.schema.properties) && Object.keys(a.schema.properties).length > 0);
  const host = objects.length === 1 && !(Array.isArray(objects[0]!.schema.required) && (objects[0]!.schema.required as unknown[]).length > 0) ? objects[0]! : null;
  const others = alternatives.filter((a) => a !== host);
  const properties: Obj = {};
  let hostDecoder: Decoder | null = null;
  let hostBuilt: Built | null = null;
  if (host !== null) {
    hostBuilt = buildSingle(ctx, host, `${path}/anyOf/object`, undefined);
    Object.assign(properties, hostBuilt.schema.properties as Obj);
    hostDecoder = hostBuilt.decoder;
  }
  const tags: { [tag: string]: Decoder } = {};
  const names = tagNames(others, host !== null, Object.keys(properties));
  for (const [index, alternative] of others.entries()) {
    const tag = names[index]!;
    const built = alternative.type === null ? jsonCarrier(undefined, alternative.schema) : buildSingle(ctx, alternative, `${path}/anyOf/${tag}`, undefined);
    properties[tag] = built.schema;
    tags[tag] = built.decoder;
  }
  const tagList = Object.keys(tags).map((t) => `"${t}"`).join(', ');
  const how = host !== null
    ? `Either set only ${tagList} (the value itself) or the other fields.`
    : `Set exactly one of ${tagList}.`;
  const notes = hostBuilt?.schema.description;
  const lead = withNotes(description, []);
  const text = [lead === undefined ? '' : `${lead}${/[.!?]$/.test(lead) ? '' : '.'}`, how, typeof notes === 'string' ? notes : ''].filter((s) => s !== '').join(' ');
  return {
    schema: { type: 'object', description: text, properties },
    decoder: { kind: 'tagged', tags, object: hostDecoder },
  };
}

/** `value` for a lone alternative next to an object, else the type name (`string`, `array_2`, …). */
function tagNames(alternatives: readonly Alternative[], hosted: boolean, taken: readonly string[]): string[] {
  const used = new Set(taken);
  return alternatives.map((alternative) => {
    const base = hosted && alternatives.length === 1 ? 'value' : (alternative.type ?? 'json');
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}_${n}`;
    used.add(name);
    return name;
  });
}

// ---------------------------------------------------------------------------------------------
// Decoding arguments.

/**
 * Arguments written in a profile's form → canonical arguments. Never throws: a shape the
 * decoder does not recognise is passed on as it is, for the canonical validation to refuse.
 */
export function decodeArguments(decoder: Decoder, args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const decoded = decodeValue(decoder, args);
  return isObj(decoded) ? decoded : { ...args };
}

function decodeValue(decoder: Decoder, value: unknown): unknown {
  switch (decoder.kind) {
    case 'keep':
      return value;
    case 'json':
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    case 'array':
      return Array.isArray(value) ? value.map((item) => decodeValue(decoder.items, item)) : value;
    case 'object':
      return isObj(value) ? decodeObject(decoder, value) : value;
    case 'union': {
      const type = jsonTypeOf(value);
      const keys = isObj(value) ? Object.keys(value) : null;
      const member = decoder.members.find((m) => m.types.includes(type) && (keys === null || m.keys === null || keys.every((k) => m.keys!.includes(k))));
      return member === undefined ? value : decodeValue(member.decoder, value);
    }
    case 'tagged': {
      if (!isObj(value)) return value;
      const present = Object.keys(value).filter((k) => value[k] !== null && value[k] !== undefined);
      const tag = present.length === 1 && Object.hasOwn(decoder.tags, present[0]!) ? present[0]! : null;
      if (tag !== null) return decodeValue(decoder.tags[tag]!, value[tag]);
      if (decoder.object === null || present.some((k) => Object.hasOwn(decoder.tags, k))) return value;
      return decodeValue(decoder.object, value);
    }
  }
}

function decodeObject(decoder: Extract<Decoder, { kind: 'object' }>, value: Obj): Obj {
  const out: Obj = {};
  for (const [key, item] of Object.entries(value)) {
    if (decoder.setNull !== null && key === SET_NULL_PROPERTY) continue;
    const property = Object.hasOwn(decoder.properties, key) ? decoder.properties[key] : undefined;
    if (property === undefined) { out[key] = item; continue; }
    if (item === null && property.nullMeansAbsent) continue;
    out[key] = item === null ? null : decodeValue(property.decoder, item);
  }
  if (decoder.setNull !== null && Object.hasOwn(value, SET_NULL_PROPERTY)) {
    const names = value[SET_NULL_PROPERTY];
    // A name outside the list, or one also given a value, keeps `set_null` as an unknown argument
    // for the canonical check to refuse.
    const valid = Array.isArray(names) && names.every((name) => typeof name === 'string' && decoder.setNull!.includes(name) && (out[name] === undefined || out[name] === null));
    if (valid) {
      for (const name of names as string[]) out[name] = null;
    } else if (names !== null) {
      out[SET_NULL_PROPERTY] = names;
    }
  }
  return out;
}
