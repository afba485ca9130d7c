/**
 * The `gemini` profile (src/runtime/schema-profiles.ts): the Gemini function-declaration
 * `parameters` Schema. One `type` per node; a canonical `[t, "null"]` is `t` + `nullable: true`
 * (null stays null there; elsewhere null on an optional property means absent); a union of
 * scalars travels as its string form, any other union as an object with one property per
 * alternative.
 */
import { admitsNull, buildSingle, jsonCarrier } from './build.js';
import { describeKeyword, withNotes } from './describe.js';
import {
  isObj, KEEP, SCALAR_TYPES, type Alternative, type Built, type Context, type Decoder, type Obj, type ProfileProperty, type ProfileRules,
} from './types.js';

const GEMINI_FORMATS: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(['enum', 'date-time']),
  number: new Set(['float', 'double']),
  integer: new Set(['int32', 'int64']),
};

/** Keywords the profile keeps for a node of this type; the rest becomes description notes. */
function keeps(type: string, key: string, value: unknown): boolean {
  switch (type) {
    case 'string': return (key === 'format' && GEMINI_FORMATS['string']!.has(String(value))) || (key === 'enum' && (value as unknown[]).every((v) => typeof v === 'string'));
    case 'number':
    case 'integer': return key === 'format' && GEMINI_FORMATS[type]!.has(String(value));
    case 'array': return key === 'minItems' || key === 'maxItems';
    default: return false;
  }
}

/** Adds null to a built node: `nullable`. */
function makeGeminiNullable(built: Built): Built {
  if (admitsNull(built.schema)) return built;
  return { schema: { ...built.schema, nullable: true }, decoder: built.decoder };
}

/** Optional stays optional: null stays null where the canonical schema takes it; elsewhere it cannot mean anything but "absent". */
function property(built: Built, optional: boolean): ProfileProperty {
  return { schema: built.schema, nullMeansAbsent: optional && !admitsNull(built.schema), setNull: false };
}

/** The canonical required properties, when there are any. */
function finishObject(_ctx: Context, out: Obj, properties: Obj, _setNull: readonly string[], required: ReadonlySet<string>): void {
  out.properties = properties;
  const kept = Object.keys(properties).filter((n) => required.has(n));
  if (kept.length > 0) out.required = kept;
}

function buildGeminiUnion(ctx: Context, alternatives: Alternative[], nullable: boolean, description: unknown, path: string): Built {
  const result = alternatives.every((a) => a.type !== null && SCALAR_TYPES.has(a.type))
    ? scalarCarrier(ctx, alternatives, description, path)
    : taggedUnion(ctx, alternatives, description, path);
  return nullable ? makeGeminiNullable(result) : result;
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

export const GEMINI_RULES: ProfileRules = {
  profile: 'gemini', keeps, nullable: makeGeminiNullable, property, finishObject,
  union: (ctx, alternatives, nullable, description, path) => buildGeminiUnion(ctx, alternatives, nullable, description, path),
};
