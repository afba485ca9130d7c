/**
 * Sample arguments for the schema-profile round trip (docs/protocol.md#client-schema-profiles):
 *
 *   validArguments(schema): fc.Arbitrary<unknown>        // values of a canonical JSON Schema (filter with its validator)
 *   encodeArguments(profiled, canonical): {encoded, expected}
 *     // canonical arguments written the way a client of the profile sends them: every optional
 *     // property present (null when absent) and `set_null` for OpenAI, unions tagged for Gemini;
 *     // `expected` is what decoding must give back — the canonical value itself, except a number
 *     // where Gemini takes the string form of a scalar union, which becomes its text.
 */
import fc from 'fast-check';
import { SET_NULL_PROPERTY, type Decoder, type ProfiledSchema } from '../../src/runtime/schema-profiles.js';

type Obj = { [key: string]: unknown };
const isObj = (value: unknown): value is Obj => value !== null && typeof value === 'object' && !Array.isArray(value);

const ISO_DAY = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true });

function resolve(root: Obj, schema: Obj): Obj {
  let node = schema;
  for (let hops = 0; typeof node.$ref === 'string' && hops < 20; hops++) {
    const { $ref, ...siblings } = node;
    let target: unknown = root;
    for (const segment of ($ref as string).slice(1).split('/').filter((s) => s !== '')) target = isObj(target) ? target[segment] : undefined;
    node = { ...(target as Obj), ...siblings };
  }
  if (Array.isArray(node.allOf)) {
    const { allOf, ...rest } = node;
    node = (allOf as Obj[]).reduce<Obj>((merged, member) => {
      const m = resolve(root, member);
      return { ...merged, ...m, properties: { ...(merged.properties as Obj), ...(m.properties as Obj) }, required: [...((merged.required as string[]) ?? []), ...((m.required as string[]) ?? [])] };
    }, rest);
  }
  return node;
}

/** Values of a JSON Schema (plausible, not exhaustive); callers keep the ones its validator accepts. */
export function validArguments(schema: Obj, root: Obj = schema, depth = 0): fc.Arbitrary<unknown> {
  const node = resolve(root, schema);
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]));
  if ('const' in node) return fc.constant(node.const);
  const members = (node.anyOf ?? node.oneOf) as Obj[] | undefined;
  if (Array.isArray(members)) {
    const { anyOf: _a, oneOf: _o, type: _t, description: _d, ...shared } = node;
    return fc.oneof(...members.map((member) => validArguments({ ...shared, ...member }, root, depth)));
  }
  const types = Array.isArray(node.type) ? (node.type as string[]) : typeof node.type === 'string' ? [node.type] : null;
  if (types === null) return depth > 2 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown) /* as on the wire: -0 is 0 */;
  if (types.length > 1) return fc.oneof(...types.map((type) => validArguments({ ...node, type }, root, depth)));
  switch (types[0]) {
    case 'null': return fc.constant(null);
    case 'boolean': return fc.boolean();
    case 'integer': return fc.integer({ min: typeof node.minimum === 'number' ? node.minimum : -1000, max: typeof node.maximum === 'number' ? node.maximum : 1000 });
    case 'number': {
      const min = typeof node.minimum === 'number' ? node.minimum : typeof node.exclusiveMinimum === 'number' ? node.exclusiveMinimum + 0.01 : -1000;
      const max = typeof node.maximum === 'number' ? node.maximum : 100_000;
      return fc.integer({ min: Math.ceil(min * 100), max: Math.floor(max * 100) }).map((cents) => cents / 100);
    }
    case 'string': return stringOf(node);
    case 'array': {
      const item = isObj(node.items) ? validArguments(node.items, root, depth + 1) : fc.string();
      const minLength = typeof node.minItems === 'number' ? node.minItems : 0;
      const maxLength = Math.max(minLength, Math.min(typeof node.maxItems === 'number' ? node.maxItems : 3, 3));
      return node.uniqueItems === true
        ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(item, { minLength, maxLength });
    }
    case 'object': {
      const properties: Obj = isObj(node.properties) ? { ...node.properties } : {};
      // Keys named by `propertyNames: {enum}`, values of `additionalProperties`.
      const names = isObj(node.propertyNames) && Array.isArray(node.propertyNames.enum) ? (node.propertyNames.enum as string[]) : [];
      if (isObj(node.additionalProperties)) for (const name of names) properties[name] ??= node.additionalProperties;
      if (Object.keys(properties).length === 0) return fc.dictionary(fc.constantFrom('a', 'b'), fc.integer(), { maxKeys: 2 });
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) if (isObj(property) && property.readOnly !== true) model[name] = validArguments(property, root, depth + 1);
      const required = ((node.required as string[] | undefined) ?? []).filter((name) => name in model);
      return fc.record(model, { requiredKeys: required });
    }
    default:
      return fc.constant(null);
  }
}

function stringOf(node: Obj): fc.Arbitrary<string> {
  const minLength = typeof node.minLength === 'number' ? node.minLength : 0;
  const maxLength = typeof node.maxLength === 'number' ? Math.min(node.maxLength, 40) : 40;
  const length = (s: string) => [...s].length >= minLength && [...s].length <= (typeof node.maxLength === 'number' ? node.maxLength : Infinity);
  switch (node.format) {
    case 'uuid': return fc.uuid();
    case 'date': return ISO_DAY.map((d) => d.toISOString().slice(0, 10));
    case 'date-time': return ISO_DAY.map((d) => d.toISOString());
    case 'email': return fc.emailAddress().filter(length);
    default:
      if (typeof node.pattern === 'string') return fc.stringMatching(new RegExp(node.pattern)).filter(length);
      return fc.string({ minLength, maxLength: Math.max(minLength, maxLength) });
  }
}

// ---------------------------------------------------------------------------------------------

interface Encoded {
  readonly encoded: unknown;
  readonly expected: unknown;
}

/** The profile schema node that holds values (through Gemini's `nullable` and OpenAI's null member). */
function nonNull(schema: Obj): Obj {
  if (Array.isArray(schema.anyOf)) {
    const members = (schema.anyOf as Obj[]).filter((m) => m.type !== 'null');
    if (members.length === 1) return members[0]!;
  }
  return schema;
}

export function encodeArguments(profiled: ProfiledSchema, canonical: Obj): { encoded: Obj; expected: Obj } {
  const { encoded, expected } = encode(profiled.decoder, profiled.schema as Obj, canonical, isOpenAi(profiled));
  return { encoded: encoded as Obj, expected: expected as Obj };
}

/** The OpenAI form is the one that requires every property. */
function isOpenAi(profiled: ProfiledSchema): boolean {
  return (profiled.schema as Obj).additionalProperties === false;
}

function encode(decoder: Decoder, schema: Obj, value: unknown, openai: boolean): Encoded {
  // A JSON text carries null as "null"; everywhere else null travels as itself.
  if (decoder.kind === 'json') return { encoded: JSON.stringify(value), expected: value };
  if (value === null) return { encoded: null, expected: null };
  const node = nonNull(schema);
  switch (decoder.kind) {
    case 'array': {
      const items = (value as unknown[]).map((item) => encode(decoder.items, node.items as Obj, item, openai));
      return { encoded: items.map((i) => i.encoded), expected: items.map((i) => i.expected) };
    }
    case 'object': {
      const properties = node.properties as Obj;
      const source = value as Obj;
      const encoded: Obj = {};
      const expected: Obj = {};
      const setNull: string[] = [];
      for (const [name, property] of Object.entries(decoder.properties)) {
        const present = Object.hasOwn(source, name);
        if (present && source[name] === null && decoder.setNull !== null && decoder.setNull.includes(name)) {
          setNull.push(name);
          encoded[name] = null;
          expected[name] = null;
        } else if (present) {
          const inner = encode(property.decoder, properties[name] as Obj, source[name], openai);
          encoded[name] = inner.encoded;
          expected[name] = inner.expected;
        } else if (openai) {
          encoded[name] = null;
        }
      }
      if (decoder.setNull !== null) encoded[SET_NULL_PROPERTY] = setNull.length > 0 ? setNull : null;
      return { encoded, expected };
    }
    case 'union': {
      const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? (Number.isInteger(value) ? 'integer' : 'number') : typeof value;
      const keys = isObj(value) ? Object.keys(value) : null;
      const index = decoder.members.findIndex((m) => m.types.includes(type) && (keys === null || m.keys === null || keys.every((k) => m.keys!.includes(k))));
      // A value no typed member takes is one a member carries as JSON text.
      const chosen = index === -1 ? decoder.members.findIndex((m) => m.decoder.kind === 'json') : index;
      return encode(decoder.members[chosen]!.decoder, (node.anyOf as Obj[])[chosen]!, value, openai);
    }
    case 'tagged': {
      const properties = node.properties as Obj;
      if (isObj(value) && decoder.object !== null) return encode(decoder.object, node, value, openai);
      const tags = Object.keys(decoder.tags);
      // A value no typed alternative takes is one an alternative carries as JSON text.
      const tag = tags.find((t) => decoder.tags[t]!.kind !== 'json' && fits(nonNull(properties[t] as Obj), value)) ?? tags.find((t) => decoder.tags[t]!.kind === 'json');
      if (tag === undefined) throw new Error(`no alternative takes ${JSON.stringify(value)}`);
      const inner = encode(decoder.tags[tag]!, properties[tag] as Obj, value, openai);
      return { encoded: { [tag]: inner.encoded }, expected: inner.expected };
    }
    case 'keep':
      return keep(node, value, openai);
  }
}

/** A value whose decoder keeps it: walked along the profile schema for the one value mapping (number → text). */
function keep(schema: Obj, value: unknown, openai: boolean): Encoded {
  const node = nonNull(schema);
  if (typeof value === 'number' && node.type === 'string') return { encoded: String(value), expected: String(value) };
  if (Array.isArray(value) && isObj(node.items)) {
    const items = value.map((item) => keep(node.items as Obj, item, openai));
    return { encoded: items.map((i) => i.encoded), expected: items.map((i) => i.expected) };
  }
  if (isObj(value) && isObj(node.properties)) {
    const encoded: Obj = {};
    const expected: Obj = {};
    for (const [name, item] of Object.entries(value)) {
      const inner = isObj(node.properties[name]) ? keep(node.properties[name] as Obj, item, openai) : { encoded: item, expected: item };
      encoded[name] = inner.encoded;
      expected[name] = inner.expected;
    }
    return { encoded, expected };
  }
  if (Array.isArray(node.anyOf) && value !== null) {
    const member = (node.anyOf as Obj[]).find((m) => acceptsType(m, value));
    if (member !== undefined) return keep(member, value, openai);
  }
  return { encoded: value, expected: value };
}

function acceptsType(schema: Obj, value: unknown): boolean {
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  return types.some((t) => t === type || (type === 'number' && (t === 'integer' ? Number.isInteger(value) : t === 'number')));
}

/** Whether a value fits a profile schema closely enough to choose between alternatives (type, keys, enums). */
function fits(schema: Obj, value: unknown): boolean {
  if (!acceptsType(schema, value)) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  if (!isObj(value) || !isObj(schema.properties)) return true;
  const properties = schema.properties;
  const required = (schema.required as string[] | undefined) ?? [];
  return Object.keys(value).every((k) => k in properties && fits(nonNull(properties[k] as Obj), value[k])) && required.every((k) => k in value);
}
