/**
 * The transform shared by the profiles (src/runtime/schema-profiles.ts): a canonical node built
 * into the profile's form with its decoder. What differs between the profiles — the keywords
 * kept, how null is admitted, unions, an object's properties — is asked of `ctx.rules`
 * (openai.ts, gemini.ts); free-form objects and values of no type travel as JSON text in both.
 */
import { appendSentence, setDescription, withNotes } from './describe.js';
import { alternativesOf, flatten } from './normalize.js';
import {
  fail, isObj, KEEP, SILENT_KEYWORDS, type Alternative, type Built, type Context, type Obj, type PropertyDecoder,
} from './types.js';

export interface NodeOptions {
  /** The node is the tool's parameters object: OpenAI refuses `anyOf` there, both want an object. */
  readonly root?: boolean;
}

export function buildNode(ctx: Context, schema: Obj, path: string, options: NodeOptions = {}): Built {
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
    return nullable ? ctx.rules.nullable(built) : built;
  }
  if (options.root) fail(ctx, path, 'a union at the root');
  return ctx.rules.union(flat.ctx, rest, nullable, description, path);
}

export function buildSingle(ctx: Context, alternative: Alternative, path: string, description: unknown, root = false): Built {
  const { type, schema } = alternative;
  if (type === null) return jsonCarrier(description, schema);
  const notes: { key: string; value: unknown }[] = [];
  const out: Obj = { type };
  const structural = type === 'object' ? ['properties', 'required', 'additionalProperties', 'propertyNames'] : type === 'array' ? ['items', 'prefixItems'] : [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'type' || key === 'description' || structural.includes(key) || SILENT_KEYWORDS.has(key) || key.startsWith('x-') || key === 'nullable') continue;
    if (ctx.rules.keeps(type, key, value)) out[key] = value;
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

/** A value the profile cannot type: a string holding its JSON. */
export function jsonCarrier(description: unknown, schema: Obj): Built {
  const shape = schema.type === 'object' ? 'a JSON object' : schema.type === 'array' ? 'a JSON array' : 'a JSON value';
  const text = withNotes(description, []);
  return {
    schema: { type: 'string', description: `${text === undefined ? '' : `${text}${/[.!?]$/.test(text) ? '' : '.'} `}Send ${shape}, encoded as a string.` },
    decoder: { kind: 'json' },
  };
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
export function admitsNull(schema: Obj): boolean {
  if (schema.nullable === true) return true;
  if (Array.isArray(schema.type) && schema.type.includes('null')) return true;
  return Array.isArray(schema.anyOf) && (schema.anyOf as Obj[]).some((m) => m.type === 'null');
}

/** The object's properties in the profile's form, with their decoders and the names `set_null` may list. */
function writeProperties(ctx: Context, properties: Obj, required: ReadonlySet<string>, path: string) {
  const written: Obj = {};
  const decoders: { [name: string]: PropertyDecoder } = {};
  const setNull: string[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    if (!isObj(raw)) fail(ctx, `${path}/properties/${name}`, 'not a schema');
    if (raw.readOnly === true) continue;
    const built = buildNode(ctx, raw, `${path}/properties/${name}`);
    const property = ctx.rules.property(built, !required.has(name));
    written[name] = property.schema;
    if (property.setNull) setNull.push(name);
    decoders[name] = { decoder: built.decoder, nullMeansAbsent: property.nullMeansAbsent };
  }
  return { written, decoders, setNull };
}

function buildObject(ctx: Context, schema: Obj, out: Obj, notes: { key: string; value: unknown }[], path: string, description: unknown, root: boolean): Built {
  const properties = namedProperties(schema);
  // A tool without arguments keeps its empty parameters object; elsewhere a free-form object is JSON text.
  if (Object.keys(properties).length === 0 && !root) return jsonCarrier(description, schema);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const { written, decoders, setNull } = writeProperties(ctx, properties, required, path);
  ctx.rules.finishObject(ctx, out, written, setNull, required, path);
  setDescription(out, withNotes(description, notes));
  const trivial = Object.values(decoders).every((d) => d.decoder.kind === 'keep' && !d.nullMeansAbsent) && setNull.length === 0;
  return { schema: out, decoder: trivial ? KEEP : { kind: 'object', properties: decoders, setNull: setNull.length > 0 ? setNull : null } };
}
