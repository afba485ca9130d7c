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
 *
 * The modules (src/runtime/schema-profiles/): `openai.ts` and `gemini.ts` hold what each profile
 * does differently (the keywords kept, null, unions, objects: their `ProfileRules`); the shared
 * core normalizes a node (`normalize.ts`), describes what a profile cannot say (`describe.ts`),
 * builds the form (`build.ts`) and decodes arguments (`decode.ts`), over the vocabulary of
 * `types.ts`. This module is their one face.
 */
import type { JsonSchema } from './types.js';
import { buildNode } from './schema-profiles/build.js';
import { GEMINI_RULES } from './schema-profiles/gemini.js';
import { flatten } from './schema-profiles/normalize.js';
import { OPENAI_RULES } from './schema-profiles/openai.js';
import { fail, type ClientSchemaProfile, type Context, type Obj, type ProfiledSchema, type ProfileRules } from './schema-profiles/types.js';

export { decodeArguments } from './schema-profiles/decode.js';
export { SchemaProfileError, SET_NULL_PROPERTY } from './schema-profiles/types.js';
export type { ClientSchemaProfile, Decoder, ProfiledSchema } from './schema-profiles/types.js';

export type SchemaProfile = 'canonical' | ClientSchemaProfile;

/**
 * Per client profile, the tools the generator found it cannot represent (codegen/profile-check.ts):
 * the transform refuses them or their form breaks the provider's rules. They are not served in
 * that profile.
 */
export type ProfileExclusions = { readonly [profile in ClientSchemaProfile]: readonly string[] };
export const NO_PROFILE_EXCLUSIONS: ProfileExclusions = { openai: [], gemini: [] };
export const SCHEMA_PROFILES: readonly SchemaProfile[] = ['canonical', 'openai', 'gemini'];

const RULES: Readonly<Record<ClientSchemaProfile, ProfileRules>> = { openai: OPENAI_RULES, gemini: GEMINI_RULES };

/** The canonical tool `inputSchema` in the profile's form, with its decoder. Throws SchemaProfileError. */
export function toSchemaProfile(profile: ClientSchemaProfile, inputSchema: JsonSchema): ProfiledSchema {
  const ctx: Context = { profile, rules: RULES[profile], root: inputSchema as Obj, expanding: new Set() };
  const { node } = flatten(ctx, inputSchema as Obj, '');
  const built = buildNode(ctx, node, '', { root: true });
  if (built.schema.type !== 'object') fail(ctx, '', 'the root must be an object with properties');
  return { schema: built.schema, decoder: built.decoder };
}
