/**
 * Turns one list filter value (REST text or typed MCP argument) into the value stored in the
 * column, by column kind: dates strict `YYYY-MM-DD`, money → cents, booleans → 0/1. Checks
 * the filter's declared schema first. Which filters exist is list.ts's business.
 */
import type { JsonSchema } from '../runtime/types.js';
import { validationError } from './errors.js';
import { parseMoneyInputAllowZero } from './money.js';
import { boundedValidationError, compileSchema, toIssues } from './validation.js';

export type ColumnKind = 'string' | 'date' | 'money' | 'boolean' | 'integer' | 'timestamp' | 'uuid';

export function isNumericKind(kind: ColumnKind): boolean {
  return kind === 'money' || kind === 'integer' || kind === 'boolean';
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function reject(path: string, message: string): never {
  throw validationError([{ path, message }]);
}

function isRealDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

/** REST sends text; turn it into the JSON type the filter schema expects before checking it. */
function preCoerce(raw: unknown, kind: ColumnKind): unknown {
  if (typeof raw !== 'string') return raw;
  if (kind === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : raw;
  if (kind === 'integer' && /^-?\d{1,15}$/.test(raw)) return Number(raw);
  return raw;
}

function checkSchema(value: unknown, schema: JsonSchema, path: string): void {
  // The filter schema is the field's scalar schema; money schemas use exclusiveMinimum 0, which
  // is fine for filters too (amount filters are positive).
  const validate = compileSchema(schema);
  if (!validate(value)) throw boundedValidationError(toIssues(validate.errors, path));
}

export function coerceFilterValue(raw: unknown, kind: ColumnKind, schema: JsonSchema, path: string): string | number {
  const value = preCoerce(raw, kind);
  if (value === null || value === undefined || typeof value === 'object') reject(path, 'must be a single value');
  checkSchema(value, schema, path);
  switch (kind) {
    case 'money':
      return parseMoneyInputAllowZero(value, path);
    case 'boolean':
      if (typeof value !== 'boolean') reject(path, 'must be true or false');
      return value ? 1 : 0;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) reject(path, 'must be an integer');
      return value;
    case 'date':
      if (typeof value !== 'string' || !isRealDate(value)) reject(path, 'must be a date (YYYY-MM-DD)');
      return value;
    case 'timestamp': {
      // Stored as ISO-8601 UTC text, so a plain date compares correctly as a prefix bound.
      if (typeof value !== 'string') reject(path, 'must be a date or timestamp');
      if (isRealDate(value)) return value;
      const t = new Date(value);
      if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(t.getTime())) reject(path, 'must be a date or timestamp');
      return t.toISOString();
    }
    default:
      if (typeof value !== 'string') reject(path, 'must be a string');
      return value;
  }
}
