/**
 * The one ajv (JSON Schema 2020-12 + formats) of the Finance API and the mapping of its
 * errors to `VALIDATION_ERROR` issues. Schemas are compiled once (at service creation, or
 * cached per schema object); callers decide what to validate.
 *
 *   createAjv(): Ajv2020
 *   compileSchema(schema: JsonSchema): ValidateFunction          // cached per schema object
 *   toIssues(errors, prefix): ValidationIssue[]                   // ajv errors → {path, message}, no values echoed
 *   assertValid(validate, value, prefix): void                    // throws VALIDATION_ERROR with every issue
 *   compileRouteValidator(route): (input: OperationInput) => void // path/query/Idempotency-Key + JSON body, all issues
 *   PREPARSED_BODY: symbol  // set `[PREPARSED_BODY]: true` on a multipart body to skip JSON-schema checks
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import type { JsonSchema, RouteDefinition } from '../runtime/types.js';
import type { OperationInput } from './context.js';
import { validationError, type ValidationIssue } from './errors.js';

// ajv-formats ships CJS with `module.exports = formatsPlugin` + `.default`; under NodeNext the
// default import is the module object, so pick whichever is callable.
type AddFormats = (ajv: Ajv2020, options?: { mode?: 'fast' | 'full' }) => Ajv2020;
const addFormats: AddFormats =
  (addFormatsImport as unknown as { default?: AddFormats }).default ?? (addFormatsImport as unknown as AddFormats);

export function createAjv(): Ajv2020 {
  // allErrors: every failing field is reported (issue 4 §8); strict off: OpenAPI keywords
  // (example, x-kobana-*, discriminator) appear inside schemas.
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });
  // "full" mode checks real calendar dates (2026-02-30 fails) and full date-times.
  addFormats(ajv, { mode: 'full' });
  return ajv;
}

const shared = createAjv();
const cache = new WeakMap<object, ValidateFunction>();

export function compileSchema(schema: JsonSchema): ValidateFunction {
  let validate = cache.get(schema);
  if (!validate) {
    validate = shared.compile(schema as object);
    cache.set(schema, validate);
  }
  return validate;
}

function describeError(error: ErrorObject): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return 'is not a known field';
    case 'required':
      return 'is required';
    case 'type':
      return `must be ${String(p['type']).split(',').join(' or ')}`;
    case 'format':
      return `must be a valid ${String(p['format'])}`;
    case 'enum':
      return `must be one of: ${(p['allowedValues'] as unknown[]).map(String).join(', ')}`;
    case 'pattern':
      return 'has an invalid format';
    default:
      // ajv messages describe the schema (limits, lengths), never the offending value.
      return error.message ?? 'is invalid';
  }
}

function pathOf(error: ErrorObject, prefix: string): string {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const p = error.params as Record<string, unknown>;
  if (error.keyword === 'required') segments.push(String(p['missingProperty']));
  if (error.keyword === 'additionalProperties') segments.push(String(p['additionalProperty']));
  const joined = segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('');
  const path = `${prefix}${joined}`.replace(/^\./, '');
  return path === '' ? '(root)' : path;
}

export function toIssues(errors: readonly ErrorObject[] | null | undefined, prefix = ''): ValidationIssue[] {
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const error of errors ?? []) {
    // `type: [string, number]` + pattern produce noise for anyOf/oneOf; keep one line per path+message.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    const issue = { path: pathOf(error, prefix), message: describeError(error) };
    const key = `${issue.path}\u0000${issue.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      issues.push(issue);
    }
  }
  return issues;
}

export function assertValid(validate: ValidateFunction, value: unknown, prefix = ''): void {
  if (!validate(value)) throw validationError(toIssues(validate.errors, prefix));
}

// ---- route arguments ---------------------------------------------------------------------

/** Marks a body the transport already parsed and checked (multipart upload): not JSON-validated again. */
export const PREPARSED_BODY: unique symbol = Symbol.for('kobana.preparsedBody');

export function isPreparsedBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as Record<symbol, unknown>)[PREPARSED_BODY] === true;
}

export type ArgumentsValidator = (input: OperationInput) => void;

function schemaTypes(schema: JsonSchema): string[] {
  const type = schema['type'];
  return Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
}

/** REST query text → the JSON type the parameter schema declares (MCP passes typed values through). */
export function coerceParameter(value: unknown, schema: JsonSchema): unknown {
  if (typeof value !== 'string') return value;
  const types = schemaTypes(schema);
  if (types.includes('string')) return value;
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** Compiles every schema of a route once; the returned function throws VALIDATION_ERROR with all issues. */
export function compileRouteValidator(route: RouteDefinition): ArgumentsValidator {
  const params = route.parameters
    .filter((p) => p.in !== 'header' || p.name.toLowerCase() === 'idempotency-key')
    .map((p) => ({ spec: p, validate: shared.compile(p.schema as object) }));
  const jsonSchema = route.requestBody?.content['application/json'];
  const validateBody = jsonSchema ? shared.compile(jsonSchema as object) : null;
  const bodyRequired = route.requestBody?.required ?? false;

  return (input) => {
    const issues: ValidationIssue[] = [];
    for (const { spec, validate } of params) {
      const raw = spec.in === 'path' ? input.path[spec.name]
        : spec.in === 'query' ? input.query[spec.name]
          : input.idempotencyKey;
      if (raw === undefined || raw === '') {
        if (spec.required) issues.push({ path: spec.name, message: 'is required' });
        continue;
      }
      if (!validate(coerceParameter(raw, spec.schema))) issues.push(...toIssues(validate.errors, spec.name));
    }
    if (input.body === undefined || input.body === null) {
      if (bodyRequired) issues.push({ path: '(root)', message: 'a request body is required' });
    } else if (validateBody && !isPreparsedBody(input.body) && !validateBody(input.body)) {
      issues.push(...toIssues(validateBody.errors));
    }
    if (issues.length > 0) throw validationError(issues);
  };
}
