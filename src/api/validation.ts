/**
 * The one ajv (JSON Schema 2020-12 + formats) of the Finance API and the mapping of its
 * errors to `VALIDATION_ERROR` issues. Every schema is compiled once, on its first use (see
 * `compileOnFirstUse`), and cached per schema object; callers decide what to validate.
 *
 *   createAjv(): Ajv2020
 *   compileSchema(schema: JsonSchema): ValidateFunction          // cached per schema object
 *   toIssues(errors, prefix): ValidationIssue[]                   // ajv errors → {path, message}, no values echoed, ≤ MAX_ISSUES + 1
 *   boundedValidationError(issues, message?): ApiError            // VALIDATION_ERROR with ≤ MAX_ISSUES issues (+ details.truncated)
 *   assertValid(validate, value, prefix): void                    // throws VALIDATION_ERROR with the issues
 *   findUnsafeText(value, prefix): string | null                  // issue path of the first NUL / unpaired-surrogate string or key
 *   assertSafeInput(input): void                                  // VALIDATION_ERROR at the first unsafe string of an OperationInput
 *   compileRouteValidator(route): (input: OperationInput) => void // unsafe text anywhere, then path/query/Idempotency-Key + JSON body, all issues (bounded)
 *   PREPARSED_BODY: symbol  // set `[PREPARSED_BODY]: true` on a multipart body to skip JSON-schema checks
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonSchema, RouteDefinition } from '../runtime/types.js';
import { createAjv } from '../runtime/ajv.js';
import type { OperationInput } from './context.js';
import { ApiError, type ValidationIssue } from './errors.js';
import { isUnsafeText, UNSAFE_TEXT_MESSAGE } from './unsafe-text.js';
import { isPlainObject } from '../runtime/values.js';

/** The configuration lives in src/runtime/ajv.ts, shared with the generator's check phase. */
export { createAjv };

const shared = createAjv();
const cache = new WeakMap<object, ValidateFunction>();

/**
 * A validator that compiles its schema on the first call. ajv's code generation for the ~170
 * route and tool schemas was a third of the server's start-up CPU and ~15 MB at rest, for
 * schemas an idle server may never use (bench/README.md, Start-up). A schema is static build
 * output (generated/), so whether it compiles is a property of the build:
 * test/api/schemas-compile.test.ts compiles every one of them with `createAjv()` in CI, and a
 * broken schema cannot reach a running server.
 */
function compileOnFirstUse(schema: object): ValidateFunction {
  let compiled: ValidateFunction | undefined;
  const validate = ((data: unknown) => {
    compiled ??= shared.compile(schema);
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  }) as ValidateFunction;
  return validate;
}

export function compileSchema(schema: JsonSchema): ValidateFunction {
  let validate = cache.get(schema);
  if (!validate) {
    validate = compileOnFirstUse(schema as object);
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

/**
 * At most this many issues go back in one VALIDATION_ERROR. With allErrors, ajv reports every
 * unknown key of an object, so 200,000 unknown arguments once became a 12 MB error response.
 */
export const MAX_ISSUES = 20;
/** Longer property names (input, never the schema's) are cut to this many characters in paths. */
export const MAX_PATH_SEGMENT = 64;

/** A property name from the request, as it may appear in an issue path. */
function boundSegment(segment: string): string {
  return segment.length > MAX_PATH_SEGMENT ? `${segment.slice(0, MAX_PATH_SEGMENT - 1)}\u2026` : segment;
}

function pathOf(error: ErrorObject, prefix: string): string {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const p = error.params as Record<string, unknown>;
  if (error.keyword === 'required') segments.push(String(p['missingProperty']));
  if (error.keyword === 'additionalProperties') segments.push(String(p['additionalProperty']));
  const joined = segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${boundSegment(s)}`)).join('');
  const path = `${prefix}${joined}`.replace(/^\./, '');
  return path === '' ? '(root)' : path;
}

/**
 * ajv errors → issues, one per path + message. Stops after MAX_ISSUES + 1 distinct issues: one
 * more than is ever sent, so the caller can still tell that the list was cut.
 */
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
      if (issues.length > MAX_ISSUES) break;
    }
  }
  return issues;
}

/**
 * VALIDATION_ERROR with the first MAX_ISSUES issues; `details.truncated: true` says more were
 * found. Every validation failure of REST and MCP arguments is built here.
 */
export function boundedValidationError(issues: readonly ValidationIssue[], message = 'The request is not valid.'): ApiError {
  if (issues.length <= MAX_ISSUES) return new ApiError('VALIDATION_ERROR', message, { issues: [...issues] });
  return new ApiError('VALIDATION_ERROR', message, { issues: issues.slice(0, MAX_ISSUES), truncated: true });
}

/** `properties` of a closed object schema (`additionalProperties: false`, no patternProperties), else null. */
function closedProperties(schema: unknown): Record<string, unknown> | null {
  if (!isPlainObject(schema) || schema['additionalProperties'] !== false || schema['patternProperties'] !== undefined) return null;
  return isPlainObject(schema['properties']) ? schema['properties'] : {};
}

/**
 * A cheap pass ahead of ajv for the amplification case: when a closed object (or a closed
 * object property of it, e.g. `filters`) carries more than MAX_ISSUES unknown keys, returns the
 * first MAX_ISSUES + 1 of them as issues, so the caller can answer (truncated) without letting
 * ajv build one error object per key. Returns null otherwise: ajv then reports normally.
 */
export function findExcessUnknownKeys(schema: unknown, value: unknown, prefix = ''): ValidationIssue[] | null {
  const issues: ValidationIssue[] = [];
  let unknown = 0;
  const scan = (properties: Record<string, unknown>, object: Record<string, unknown>, at: string): void => {
    for (const key of Object.keys(object)) {
      if (Object.hasOwn(properties, key)) continue;
      unknown += 1;
      if (issues.length <= MAX_ISSUES) issues.push({ path: `${at}.${boundSegment(key)}`.replace(/^\./, ''), message: 'is not a known field' });
    }
  };
  const properties = closedProperties(schema);
  if (!properties || !isPlainObject(value)) return null;
  scan(properties, value, prefix);
  for (const [name, child] of Object.entries(properties)) {
    const childProperties = closedProperties(child);
    const childValue = Object.hasOwn(value, name) ? value[name] : undefined;
    if (childProperties && isPlainObject(childValue)) scan(childProperties, childValue, prefix === '' ? name : `${prefix}.${name}`);
  }
  return unknown > MAX_ISSUES ? issues : null;
}

function joinPath(prefix: string, segment: string | number): string {
  if (typeof segment === 'number') return `${prefix}[${segment}]`;
  return prefix === '' ? boundSegment(segment) : `${prefix}.${boundSegment(segment)}`;
}

/**
 * The issue path of the first string (or object key) of `value` that isUnsafeText, else null.
 * Walks strings, arrays and objects without recursion, so a deeply nested JSON body cannot
 * overflow the stack; bytes (an upload) are skipped. An unsafe key is reported as `(key)`
 * under its parent: a path never carries the offending text.
 */
function findUnsafeText(value: unknown, prefix = ''): string | null {
  const pending: { value: unknown; path: string }[] = [{ value, path: prefix }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { value: current, path } = item;
    if (typeof current === 'string') {
      if (isUnsafeText(current)) return path === '' ? '(root)' : path;
    } else if (Array.isArray(current)) {
      current.forEach((element, index) => pending.push({ value: element, path: joinPath(path, index) }));
    } else if (current !== null && typeof current === 'object' && !ArrayBuffer.isView(current)) {
      for (const [key, child] of Object.entries(current)) {
        if (isUnsafeText(key)) return joinPath(path, '(key)');
        pending.push({ value: child, path: joinPath(path, key) });
      }
    }
  }
  return null;
}

/** Every string of an operation's input, REST or MCP, wherever it would land (path, query, list, body, key). */
function findUnsafeInput(input: OperationInput): string | null {
  const list = input.list;
  return findUnsafeText(input.path)
    ?? findUnsafeText(input.query)
    ?? (list ? findUnsafeText(list) : null)
    ?? findUnsafeText(input.body)
    ?? (input.idempotencyKey !== undefined && isUnsafeText(input.idempotencyKey) ? 'Idempotency-Key' : null);
}

/** VALIDATION_ERROR naming the first NUL / unpaired-surrogate string of the input (PostgreSQL fails a query on NUL). */
export function assertSafeInput(input: OperationInput): void {
  const unsafe = findUnsafeInput(input);
  if (unsafe !== null) throw boundedValidationError([{ path: unsafe, message: UNSAFE_TEXT_MESSAGE }]);
}

export function assertValid(validate: ValidateFunction, value: unknown, prefix = ''): void {
  if (!validate(value)) throw boundedValidationError(toIssues(validate.errors, prefix));
}

// ---- route arguments ---------------------------------------------------------------------

/** Marks a body the transport already parsed and checked (multipart upload): not JSON-validated again. */
export const PREPARSED_BODY: unique symbol = Symbol.for('kobana.preparsedBody');

function isPreparsedBody(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as Record<symbol, unknown>)[PREPARSED_BODY] === true;
}

export type ArgumentsValidator = (input: OperationInput) => void;

function schemaTypes(schema: JsonSchema): string[] {
  const type = schema['type'];
  return Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
}

/** REST query text → the JSON type the parameter schema declares (MCP passes typed values through). */
function coerceParameter(value: unknown, schema: JsonSchema): unknown {
  if (typeof value !== 'string') return value;
  const types = schemaTypes(schema);
  if (types.includes('string')) return value;
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** Every schema of a route, compiled on first use; the returned function throws VALIDATION_ERROR with all issues. */
export function compileRouteValidator(route: RouteDefinition): ArgumentsValidator {
  const params = route.parameters
    .filter((p) => p.in !== 'header' || p.name.toLowerCase() === 'idempotency-key')
    .map((p) => ({ spec: p, validate: compileOnFirstUse(p.schema as object) }));
  const jsonSchema = route.requestBody?.content['application/json'];
  const validateBody = jsonSchema ? compileOnFirstUse(jsonSchema as object) : null;
  const bodyRequired = route.requestBody?.required ?? false;

  return (input) => {
    // Before any schema: PostgreSQL fails a query on NUL, so no such text may reach an operation.
    assertSafeInput(input);
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
      if (issues.length > MAX_ISSUES) break;
    }
    if (input.body === undefined || input.body === null) {
      if (bodyRequired) issues.push({ path: '(root)', message: 'a request body is required' });
    } else if (issues.length <= MAX_ISSUES && validateBody && !isPreparsedBody(input.body)) {
      const excess = findExcessUnknownKeys(jsonSchema, input.body);
      if (excess) issues.push(...excess);
      else if (!validateBody(input.body)) issues.push(...toIssues(validateBody.errors));
    }
    if (issues.length > 0) throw boundedValidationError(issues);
  };
}
