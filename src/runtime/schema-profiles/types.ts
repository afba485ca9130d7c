/**
 * The shared vocabulary of the schema profiles (src/runtime/schema-profiles.ts): the decoder
 * data, the profile error, what a built node is, and the rules a profile module supplies.
 */
import type { JsonSchema } from '../types.js';
import { isPlainObject } from '../values.js';

export type ClientSchemaProfile = 'openai' | 'gemini';

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


export type Obj = { [key: string]: unknown };

export const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean']);
export const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];
/** Keywords that annotate rather than constrain: never carried into a profile, never described. */
export const SILENT_KEYWORDS = new Set(['examples', 'example', 'title', '$comment', '$schema', '$id', '$anchor', 'readOnly', 'writeOnly', '$defs', 'definitions']);

/** A JSON object (src/runtime/values.ts `isPlainObject`, under the name the profiles read it by). */
export const isObj: (value: unknown) => value is Obj = isPlainObject;

export function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** A node in the profile's form, with the decoder of arguments written in it. */
export interface Built {
  readonly schema: Obj;
  readonly decoder: Decoder;
}

export const KEEP: Decoder = { kind: 'keep' };

/** One alternative of a node: a schema with at most one type. */
export interface Alternative {
  readonly type: string | null;
  readonly schema: Obj;
}

/** One property of an object, as the profile writes it. */
export interface ProfileProperty {
  readonly schema: Obj;
  /** null in the profile's form means "absent". */
  readonly nullMeansAbsent: boolean;
  /** openai: the property is listed in `set_null` (the canonical schema takes null for it). */
  readonly setNull: boolean;
}

/** What differs between the profiles: one module each (openai.ts, gemini.ts) supplies these. */
export interface ProfileRules {
  readonly profile: ClientSchemaProfile;
  /** Whether a node of `type` keeps the keyword; the others become description notes. */
  keeps(type: string, key: string, value: unknown): boolean;
  /** The built node, admitting null too. */
  nullable(built: Built): Built;
  /** A node of two or more non-null alternatives (`nullable`: null is one more). */
  union(ctx: Context, alternatives: Alternative[], nullable: boolean, description: unknown, path: string): Built;
  /** One property of an object (`optional`: not required in the canonical schema). */
  property(built: Built, optional: boolean): ProfileProperty;
  /** Sets the object's `properties` and `required` (and what else the profile asks of an object). */
  finishObject(ctx: Context, out: Obj, properties: Obj, setNull: readonly string[], required: ReadonlySet<string>, path: string): void;
}

export interface Context {
  readonly profile: ClientSchemaProfile;
  readonly rules: ProfileRules;
  readonly root: Obj;
  /** $ref targets being expanded (a recursive schema cannot be inlined). */
  readonly expanding: ReadonlySet<string>;
}

export function fail(ctx: Context, path: string, reason: string): never {
  throw new SchemaProfileError(ctx.profile, path, reason);
}
