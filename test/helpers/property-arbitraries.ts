/**
 * fast-check arbitraries shared by the property tests of the HTTP surfaces
 * (test/http/property.test.ts, test/mcp/property.test.ts): hostile strings (NUL, lone
 * surrogates, huge numbers, `__proto__`), JSON text JSON.stringify never writes (raw numbers,
 * deep nesting, duplicate and prototype keys), and plausible-but-hostile objects for a JSON
 * Schema, with ids of real records so calls get past validation into the rules and the database.
 */
import fc from 'fast-check';
import type { JsonSchema } from '../../src/runtime/types.js';
import { DEMO } from './index.js';

/** Ids that are not found, not valid, or name another workspace's records. */
export const ODD_IDS = ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', DEMO.workspaces.matriz, DEMO.persons.ana];
/** String values that break naive code: NUL, lone surrogates, bidi, BOM, huge and odd numbers. */
export const NASTY_STRINGS = ['', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udfffy', '\udc00\ud800', '\u202eabc', '\ufeff', '💸', '%00', '%ZZ',
  '__proto__', 'constructor', 'null', 'true', '0', '-0', '1e400', '-1e400', '99999999999999999999.99', '9999999999999999999999999999999999.99',
  '0.001', '2026-02-30', '2026-13-01', '0000-00-00', '9999-12-31T23:59:59Z', 'A'.repeat(5_000), "'; DROP TABLE payables; --", '${x}', '{{x}}'];
/** Raw JSON number texts JSON.stringify never writes (overflow to ±Infinity, below precision, past 2^53). */
export const RAW_NUMBERS = ['1e400', '-1e400', '1e-400', '123456789012345678901234567890', '9007199254740993', '-0', '0.1', '1.005', '-1', '1E2', '0.000000001'];
export const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'x', '', '\u0000'];
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 3 }),
);

/** JSON text for any value: nasty strings (lone surrogates survive as `\ud800` escapes), raw numbers, nesting. */
export const jsonText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: nastyString.map((s) => JSON.stringify(s)), weight: 4 },
  { arbitrary: fc.constantFrom(...RAW_NUMBERS), weight: 2 },
  { arbitrary: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map((n) => JSON.stringify(n)), weight: 1 },
  { arbitrary: fc.constantFrom('true', 'false', 'null', '[]', '{}', '[null]', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'), weight: 1 },
  { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), weight: 1 },
);

/** Deeply nested JSON (arrays or objects) around a scalar. */
export const deepJson: fc.Arbitrary<string> = fc.tuple(fc.constantFrom(64, 1_000, 10_000, 50_000), fc.boolean()).map(([depth, arrays]) =>
  arrays ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);

export function objectText(entries: readonly (readonly [string, string])[]): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`;
}

/** Which resource an id field refers to, so plausible bodies reach the rules and the database. */
export const ID_FIELDS: Readonly<Record<string, string>> = {
  person_id: 'people', company_id: 'companies', category_id: 'categories', cost_center_id: 'cost_centers', tax_id: 'taxes',
  financial_account_id: 'accounts', from_account_id: 'accounts', to_account_id: 'accounts', workspace_id: 'workspaces',
};

export interface Vocabulary {
  /** Ids of real records of every resource plus the odd ones. */
  readonly ids: readonly string[];
  /** resource (path segment after /v1/) → ids of its real records. */
  readonly byResource: ReadonlyMap<string, readonly string[]>;
}

export function idsFor(vocabulary: Vocabulary, resource: string | undefined): readonly string[] {
  const own = resource === undefined ? undefined : vocabulary.byResource.get(resource);
  return own !== undefined && own.length > 0 ? own : vocabulary.ids;
}

/** Hostile values of the schema's own type, so they pass the type check and reach the rules and the database. */
function hostileOfType(schema: JsonSchema, examples: unknown): fc.Arbitrary<string>[] {
  const types = ([] as unknown[]).concat(schema['type'] ?? []);
  const hostile: fc.Arbitrary<string>[] = [];
  if (types.includes('string')) {
    const seeds = (Array.isArray(examples) ? examples : []).filter((e): e is string => typeof e === 'string');
    hostile.push(nastyString.map((s) => JSON.stringify(s)));
    if (seeds.length > 0) {
      hostile.push(fc.tuple(fc.constantFrom(...seeds), fc.constantFrom('\u0000', '\ud800', '\udfff', '\u202e', '0'.repeat(30)), fc.boolean())
        .map(([seed, bad, before]) => JSON.stringify(before ? `${bad}${seed}` : `${seed}${bad}`)));
    }
  }
  if (types.includes('number') || types.includes('integer')) hostile.push(fc.constantFrom(...RAW_NUMBERS));
  return hostile;
}

/** A hostile value for a field of `schema`: usually of its own type, sometimes anything. */
function hostileValue(schema: JsonSchema): fc.Arbitrary<string> {
  const ofType = hostileOfType(schema, schema['examples']);
  return ofType.length === 0 ? jsonText : fc.oneof({ arbitrary: fc.oneof(...ofType), weight: 3 }, { arbitrary: jsonText, weight: 1 });
}

/**
 * JSON text of a value for `schema`: mostly plausible (examples, enum, formats), sometimes nasty.
 * `idResource` is the resource an `id` field names (a tool's own resource).
 */
export function schemaValue(schema: JsonSchema, vocabulary: Vocabulary, depth: number, field?: string, idResource?: string): fc.Arbitrary<string> {
  // A fixed example key would replay the first stored answer instead of running the call.
  if (field === 'idempotency_key') return fc.oneof({ arbitrary: fc.uuid().map((id) => JSON.stringify(id)), weight: 12 }, { arbitrary: hostileValue(schema), weight: 1 });
  const plausible: fc.Arbitrary<string>[] = [];
  const examples = schema['examples'];
  if (Array.isArray(examples) && examples.length > 0) plausible.push(fc.constantFrom(...examples.map((e) => JSON.stringify(e))));
  const choices = schema['enum'];
  if (Array.isArray(choices) && choices.length > 0) plausible.push(fc.constantFrom(...choices.map((e) => JSON.stringify(e))));
  if (schema['format'] === 'uuid') {
    plausible.push(fc.constantFrom(...idsFor(vocabulary, field === 'id' ? idResource : ID_FIELDS[field ?? ''])).map((id) => JSON.stringify(id)));
  }
  if (schema['format'] === 'date') plausible.push(fc.constantFrom('"2026-03-09"', '"2024-02-29"', '"2026-02-30"', '"1900-01-01"', '"9999-12-31"'));
  const properties = schema['properties'];
  if (depth < 3 && properties !== null && typeof properties === 'object') plausible.push(bodyObject(schema, vocabulary, depth + 1, idResource));
  const items = schema['items'];
  if (depth < 3 && items !== null && typeof items === 'object') {
    plausible.push(fc.array(schemaValue(items as JsonSchema, vocabulary, depth + 1, undefined, idResource), { maxLength: 4 }).map((values) => `[${values.join(',')}]`));
  }
  if (plausible.length === 0) return hostileValue(schema);
  return fc.oneof({ arbitrary: fc.oneof(...plausible), weight: 12 }, { arbitrary: hostileValue(schema), weight: 1 });
}

/**
 * An object for an object schema: plausible properties (required ones usually present), in two
 * cases of three one property replaced by a hostile value, and now and then an odd extra key —
 * so most bodies fail on at most one field and the rest reach the rules and the database.
 */
export function bodyObject(schema: JsonSchema, vocabulary: Vocabulary, depth: number, idResource?: string): fc.Arbitrary<string> {
  const properties = Object.entries((schema['properties'] ?? {}) as Record<string, JsonSchema>);
  const required = new Set((schema['required'] ?? []) as string[]);
  const fields = properties.map(([name, property]) => fc.option(schemaValue(property, vocabulary, depth, name, idResource).map((value) => [name, value] as const),
    { freq: required.has(name) ? 10 : 2, nil: null }));
  const mutation = properties.length === 0 ? fc.constant(null) : fc.oneof(
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: fc.nat({ max: properties.length - 1 }).chain((i) => hostileValue(properties[i]?.[1] ?? {}).map((value) => [i, value] as const)), weight: 2 },
  );
  const oddField = fc.oneof(
    { arbitrary: fc.constant(null), weight: 6 },
    { arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...ODD_KEYS), nastyString), jsonText), weight: 1 },
  );
  return fc.tuple(fc.tuple(...fields), mutation, oddField).map(([known, mutated, odd]) => {
    const entries: (readonly [string, string])[] = known.flatMap((entry, i) => {
      if (mutated !== null && mutated[0] === i) return [[properties[i]?.[0] ?? '', mutated[1]] as const];
      return entry === null ? [] : [entry];
    });
    return objectText(odd === null ? entries : [...entries, odd]);
  });
}

/** Real record ids of the demo workspace Matriz, from the first page of each /v1 list (any token with read scopes, audience /v1). */
export async function collectVocabulary(baseUrl: string, token: string, listPaths: readonly string[]): Promise<Vocabulary> {
  const ids = new Set<string>(ODD_IDS);
  const byResource = new Map<string, string[]>([['workspaces', [DEMO.workspaces.matriz, DEMO.workspaces.filial]]]);
  for (const path of listPaths) {
    const response = await fetch(`${baseUrl}${path}?limit=5`, { headers: { authorization: `Bearer ${token}`, 'x-workspace-id': DEMO.workspaces.matriz } });
    const body = (await response.json()) as { data?: { id?: unknown }[] };
    const found = (body.data ?? []).flatMap((row) => (typeof row.id === 'string' ? [row.id] : []));
    byResource.set(path.split('/')[2] ?? '', found);
    for (const id of found) ids.add(id);
  }
  return { ids: [...ids], byResource };
}
