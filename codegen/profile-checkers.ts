/**
 * Checkers of the two client schema profiles, written from the providers' documented rules
 * (docs/protocol.md#client-schema-profiles) — validators of a finished schema, independent of the
 * transform in src/runtime/schema-profiles.ts (so a bug of the transform cannot hide in them).
 * Each returns the violations (empty = passes). `generate` runs them on every tool's profile form
 * (codegen/profile-check.ts); the tests run them too.
 *
 *   checkOpenAiStrict(name, parameters): string[]   // OpenAI Structured Outputs "Supported schemas"
 *   checkGeminiSafe(name, parameters): string[]     // Gemini FunctionDeclaration + Schema subset
 *   PROFILE_CHECKERS: {openai, gemini}              // the checker of each client profile
 */
import type { ClientSchemaProfile } from '../src/runtime/schema-profiles.js';
import { isPlainObject } from '../src/runtime/values.js';

type Obj = { [key: string]: unknown };

const isObj: (value: unknown) => value is Obj = isPlainObject;

// ---------------------------------------------------------------------------------------------
// OpenAI: Structured Outputs, "Supported schemas" (strict function calling uses the same subset).

const OPENAI_TYPES = ['string', 'number', 'boolean', 'integer', 'object', 'array', 'null'];
const OPENAI_FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'];
const OPENAI_KEYWORDS = new Set([
  'type', 'description', 'enum', 'const', 'anyOf', '$ref', '$defs',
  'properties', 'required', 'additionalProperties', 'items',
  'pattern', 'format',
  'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'minItems', 'maxItems',
]);
const OPENAI_TYPED_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  pattern: ['string'], format: ['string'],
  multipleOf: ['number', 'integer'], maximum: ['number', 'integer'], exclusiveMaximum: ['number', 'integer'],
  minimum: ['number', 'integer'], exclusiveMinimum: ['number', 'integer'],
  minItems: ['array'], maxItems: ['array'],
  properties: ['object'], required: ['object'], additionalProperties: ['object'], items: ['array'],
};
/** "A schema may have up to 5000 object properties total, with up to 5 levels of nesting." */
const OPENAI_MAX_DEPTH = 5;
const OPENAI_MAX_PROPERTIES = 5000;
const OPENAI_MAX_ENUM_VALUES = 1000;
const OPENAI_MAX_STRING_TOTAL = 120_000;

function valueMatchesType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null': return value === null;
    case 'integer': return typeof value === 'number' && Number.isInteger(value);
    case 'number': return typeof value === 'number';
    case 'array': return Array.isArray(value);
    case 'object': return isObj(value);
    default: return typeof value === type;
  }
}

interface OpenAiTotals { properties: number; enumValues: number; stringLength: number }

/** The node's types (none for a bare enum or const); null, with the problem, when it has none. */
function openAiTypes(node: Obj, path: string, problems: string[]): string[] | null {
  if (typeof node.type === 'string') return [node.type];
  if (Array.isArray(node.type)) {
    const types = node.type as string[];
    // Optional parameters are emulated by "a union type with null": [t, "null"].
    if (types.length !== 2 || !types.includes('null') || types[0] === types[1]) problems.push(`${path}: a type array must be [type, "null"]`);
    return types;
  }
  if (Array.isArray(node.enum) || 'const' in node) return [];
  problems.push(`${path}: no type`);
  return null;
}

function checkOpenAiEnum(values: unknown, types: readonly string[], path: string, totals: OpenAiTotals, problems: string[]): void {
  if (!Array.isArray(values) || values.length === 0) { problems.push(`${path}: enum must be a non-empty array`); return; }
  totals.enumValues += values.length;
  const length = values.filter((v): v is string => typeof v === 'string').reduce((sum, v) => sum + v.length, 0);
  totals.stringLength += length;
  if (values.length > 250 && length > 15_000) problems.push(`${path}: an enum of more than 250 values over 15,000 characters`);
  if (types.length > 0) for (const value of values) if (!types.some((t) => valueMatchesType(value, t))) problems.push(`${path}: enum value ${JSON.stringify(value)} is not of its type`);
}

/** "additionalProperties: false must always be set in objects"; "all fields must be required". The properties, or null. */
function checkOpenAiObject(node: Obj, path: string, problems: string[]): Obj | null {
  if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties must be false`);
  if (!isObj(node.properties)) { problems.push(`${path}: an object without properties`); return null; }
  const names = Object.keys(node.properties);
  const required = Array.isArray(node.required) ? (node.required as unknown[]) : [];
  const missing = names.filter((n) => !required.includes(n));
  if (missing.length > 0) problems.push(`${path}: not required: ${missing.join(', ')}`);
  if (required.some((n) => typeof n !== 'string' || !names.includes(n))) problems.push(`${path}: required names a property it does not have`);
  return node.properties;
}

export function checkOpenAiStrict(name: string, parameters: unknown): string[] {
  const problems: string[] = [];
  // Function names: a-z, A-Z, 0-9, underscores and dashes, at most 64.
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) problems.push(`name ${name}: not [a-zA-Z0-9_-]{1,64}`);
  if (!isObj(parameters)) return [...problems, '(root): not an object schema'];
  // "Root objects must not be anyOf and must be an object."
  if (parameters.type !== 'object') problems.push('(root): type must be "object"');
  if ('anyOf' in parameters) problems.push('(root): anyOf at the root');
  const totals: OpenAiTotals = { properties: 0, enumValues: 0, stringLength: 0 };
  const defs = isObj(parameters.$defs) ? parameters.$defs : {};
  for (const defName of Object.keys(defs)) totals.stringLength += defName.length;
  const walk = (node: unknown, path: string, depth: number): void => {
    if (!isObj(node)) { problems.push(`${path}: not a schema`); return; }
    for (const key of Object.keys(node)) if (!OPENAI_KEYWORDS.has(key)) problems.push(`${path}: unsupported keyword "${key}"`);
    if ('anyOf' in node) {
      // Each member must itself be a valid schema of the subset.
      if (!Array.isArray(node.anyOf) || node.anyOf.length === 0) problems.push(`${path}: anyOf must be a non-empty array`);
      else node.anyOf.forEach((member, i) => walk(member, `${path}/anyOf/${i}`, depth));
      for (const key of Object.keys(node)) if (key !== 'anyOf' && key !== 'description') problems.push(`${path}: "${key}" next to anyOf`);
      return;
    }
    if ('$ref' in node) {
      const ref = node.$ref;
      const target = typeof ref === 'string' && ref.startsWith('#/$defs/') ? defs[ref.slice('#/$defs/'.length)] : ref === '#' ? parameters : undefined;
      if (target === undefined) problems.push(`${path}: $ref ${String(ref)} does not name a definition`);
      return;
    }
    const types = openAiTypes(node, path, problems);
    if (types === null) return;
    for (const type of types) if (!OPENAI_TYPES.includes(type)) problems.push(`${path}: unsupported type ${type}`);
    for (const [key, owners] of Object.entries(OPENAI_TYPED_KEYWORDS)) {
      if (key in node && !owners.some((t) => types.includes(t))) problems.push(`${path}: "${key}" on a ${types.join('|') || 'untyped'} schema`);
    }
    if ('format' in node && !OPENAI_FORMATS.includes(String(node.format))) problems.push(`${path}: unsupported format ${String(node.format)}`);
    if ('description' in node && typeof node.description !== 'string') problems.push(`${path}: description must be a string`);
    if ('enum' in node) checkOpenAiEnum(node.enum, types, path, totals, problems);
    if ('const' in node && typeof node.const === 'string') totals.stringLength += node.const.length;
    if (types.includes('object')) {
      if (depth + 1 > OPENAI_MAX_DEPTH) problems.push(`${path}: more than ${OPENAI_MAX_DEPTH} levels of nesting`);
      const properties = checkOpenAiObject(node, path, problems);
      if (properties === null) return;
      totals.properties += Object.keys(properties).length;
      for (const [propertyName, property] of Object.entries(properties)) {
        totals.stringLength += propertyName.length;
        walk(property, `${path}/properties/${propertyName}`, depth + 1);
      }
    }
    if (types.includes('array')) {
      if (!('items' in node)) problems.push(`${path}: an array without items`);
      else walk(node.items, `${path}/items`, depth);
    }
  };
  walk(parameters, '', 0);
  for (const [defName, def] of Object.entries(defs)) walk(def, `/$defs/${defName}`, 1);
  if (totals.properties > OPENAI_MAX_PROPERTIES) problems.push(`more than ${OPENAI_MAX_PROPERTIES} properties`);
  if (totals.enumValues > OPENAI_MAX_ENUM_VALUES) problems.push(`more than ${OPENAI_MAX_ENUM_VALUES} enum values`);
  if (totals.stringLength > OPENAI_MAX_STRING_TOTAL) problems.push(`more than ${OPENAI_MAX_STRING_TOTAL} characters of names and enum values`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Gemini: FunctionDeclaration `parameters`, a Schema ("a select subset of an OpenAPI 3.0 schema
// object") — the fields every version of the API documents.

const GEMINI_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'];
const GEMINI_KEYWORDS = new Set(['type', 'format', 'description', 'nullable', 'enum', 'items', 'properties', 'required', 'minItems', 'maxItems']);
/** "Supported formats: for NUMBER type: float, double; for INTEGER type: int32, int64; for STRING type: enum, date-time." */
const GEMINI_FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ['enum', 'date-time'], number: ['float', 'double'], integer: ['int32', 'int64'],
};

export function checkGeminiSafe(name: string, parameters: unknown): string[] {
  const problems: string[] = [];
  // "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots and dashes, with a maximum length of 64."
  if (!/^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/.test(name)) problems.push(`name ${name}: not a valid function name`);
  if (!isObj(parameters)) return [...problems, '(root): not an object schema'];
  if (parameters.type !== 'object') problems.push('(root): type must be "object"');
  // "Parameter names must start with a letter or an underscore and must only contain chars a-z, A-Z, 0-9, or underscores with a maximum length of 64."
  for (const parameter of Object.keys(isObj(parameters.properties) ? parameters.properties : {})) {
    if (!/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/.test(parameter)) problems.push(`parameter ${parameter}: not a valid parameter name`);
  }
  const walk = (node: unknown, path: string, root: boolean): void => {
    if (!isObj(node)) { problems.push(`${path}: not a schema`); return; }
    for (const key of Object.keys(node)) if (!GEMINI_KEYWORDS.has(key)) problems.push(`${path}: unsupported keyword "${key}"`);
    // One type, never an array ("Proto field is not repeating, cannot start list").
    if (typeof node.type !== 'string' || !GEMINI_TYPES.includes(node.type)) { problems.push(`${path}: type must be one of ${GEMINI_TYPES.join(', ')}`); return; }
    const type = node.type;
    if ('format' in node && !(GEMINI_FORMATS[type] ?? []).includes(String(node.format))) problems.push(`${path}: format ${String(node.format)} on ${type}`);
    if ('nullable' in node && typeof node.nullable !== 'boolean') problems.push(`${path}: nullable must be a boolean`);
    if ('description' in node && typeof node.description !== 'string') problems.push(`${path}: description must be a string`);
    if ('enum' in node) {
      // enum[] is a list of strings, for Type.STRING.
      if (type !== 'string') problems.push(`${path}: enum on a ${type}`);
      if (!Array.isArray(node.enum) || node.enum.length === 0 || node.enum.some((v) => typeof v !== 'string')) problems.push(`${path}: enum must be a non-empty list of strings`);
    }
    if (('minItems' in node || 'maxItems' in node || 'items' in node) && type !== 'array') problems.push(`${path}: array keywords on a ${type}`);
    if (('properties' in node || 'required' in node) && type !== 'object') problems.push(`${path}: object keywords on a ${type}`);
    if (type === 'object') {
      const properties = isObj(node.properties) ? node.properties : null;
      // An OBJECT needs non-empty properties; only a function's parameters may have none.
      if (properties === null || (Object.keys(properties).length === 0 && !root)) { problems.push(`${path}: an object without properties`); return; }
      if ('required' in node && (!Array.isArray(node.required) || node.required.some((n) => typeof n !== 'string' || !(n in properties)))) problems.push(`${path}: required names a property it does not have`);
      for (const [propertyName, property] of Object.entries(properties)) walk(property, `${path}/properties/${propertyName}`, false);
    }
    if (type === 'array') {
      if (!('items' in node)) problems.push(`${path}: an array without items`);
      else walk(node.items, `${path}/items`, false);
    }
  };
  walk(parameters, '', true);
  return problems;
}

export const PROFILE_CHECKERS: Readonly<Record<ClientSchemaProfile, (name: string, parameters: unknown) => string[]>> = {
  openai: checkOpenAiStrict,
  gemini: checkGeminiSafe,
};
