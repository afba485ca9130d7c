/**
 * The `openai` profile (src/runtime/schema-profiles.ts): OpenAI Structured Outputs / strict
 * function calling. Every object lists every property in `required` with
 * `additionalProperties: false`; an optional property is a union with null, and null means
 * absent — where the canonical schema itself takes null, `set_null` lists the names to set to
 * null. A union is an `anyOf` (never at the root).
 */
import { admitsNull, buildSingle, jsonCarrier } from './build.js';
import { appendSentence, setDescription, withNotes } from './describe.js';
import { typesOf } from './normalize.js';
import {
  fail, isObj, KEEP, SCALAR_TYPES, SET_NULL_PROPERTY,
  type Alternative, type Built, type Context, type Obj, type ProfileProperty, type ProfileRules, type UnionMember,
} from './types.js';

const OPENAI_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/** Keywords the profile keeps for a node of this type; the rest becomes description notes. */
function keeps(type: string, key: string, value: unknown): boolean {
  switch (type) {
    case 'string': return key === 'pattern' || (key === 'format' && OPENAI_FORMATS.has(String(value))) || key === 'enum';
    case 'number':
    case 'integer': return ['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'enum'].includes(key);
    case 'array': return key === 'minItems' || key === 'maxItems';
    case 'boolean': return key === 'enum';
    default: return false;
  }
}

/** Adds null to a built node: `[t, "null"]` or an `anyOf` member. */
function makeNullable(built: Built): Built {
  const { schema } = built;
  if (admitsNull(schema)) return built;
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

/** An optional property is required and nullable; null means not given, and `set_null` sets one to null. */
function property(built: Built, optional: boolean): ProfileProperty {
  const canonicalNull = admitsNull(built.schema);
  const schema = optional ? makeNullable(built).schema : built.schema;
  const setNull = optional && canonicalNull;
  if (setNull) {
    // The canonical text may say "`null` clears it"; in this form null leaves it out.
    setDescription(schema, appendSentence(schema.description, `Null here means not given; to set it to null, list it in \`${SET_NULL_PROPERTY}\`.`));
  }
  return { schema, nullMeansAbsent: optional, setNull };
}

/** Every property required, no other property allowed, and `set_null` when a property may be set to null. */
function finishObject(ctx: Context, out: Obj, properties: Obj, setNull: readonly string[], _required: ReadonlySet<string>, path: string): void {
  if (setNull.length > 0) {
    if (SET_NULL_PROPERTY in properties) fail(ctx, path, `a property named "${SET_NULL_PROPERTY}" next to nullable optional ones`);
    properties[SET_NULL_PROPERTY] = {
      description: 'Fields to set to null (e.g. to clear them); a field sent as null counts as not given.',
      anyOf: [{ type: 'array', items: { type: 'string', enum: setNull } }, { type: 'null' }],
    };
  }
  out.properties = properties;
  out.required = Object.keys(properties);
  out.additionalProperties = false;
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
  // A value carried as JSON text is a string too: next to another string branch the decoder could
  // not tell which one a string is, so the whole union travels as JSON text.
  if (members.some((m) => m.decoder.kind === 'json') && members.filter((m) => m.types.includes('string')).length > 1) {
    // Null stays reachable: a nullable union's carrier takes null (so an optional one gets `set_null`).
    const carrier = jsonCarrier(description, {});
    return nullable ? makeNullable(carrier) : carrier;
  }
  if (nullable) anyOf.push({ type: 'null' });
  const schema: Obj = {};
  const text = withNotes(description, []);
  if (text !== undefined) schema.description = text;
  schema.anyOf = anyOf;
  const trivial = members.every((m) => m.decoder.kind === 'keep');
  return { schema, decoder: trivial ? KEEP : { kind: 'union', members } };
}

export const OPENAI_RULES: ProfileRules = {
  profile: 'openai', keeps, nullable: makeNullable, property, finishObject,
  union: (ctx, alternatives, nullable, description, path) => buildOpenAiUnion(ctx, alternatives, nullable, description, path),
};
