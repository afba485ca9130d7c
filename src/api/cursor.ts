/**
 * The opaque list cursor: base64url JSON of the sort key and the last row's (sort value, id).
 * Encodes and strictly decodes; a cursor from another sort, a tampered or foreign value →
 * VALIDATION_ERROR. What the values mean is list.ts's business.
 *
 *   encodeCursor({sort, value, id}): string
 *   decodeCursor(text: string, sort: string): {sort, value: string | number, id: string}
 *   assertCursorFits(position, kind): void   // the value matches the sort column's kind, the id is a uuid
 */
import { validationError } from './errors.js';
import type { ColumnKind } from './list-values.js';
import { isUuid } from '../runtime/values.js';

export interface CursorPosition {
  readonly sort: string;
  readonly value: string | number;
  readonly id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ s: position.sort, v: position.value, i: position.id }), 'utf8').toString('base64url');
}

function rejectCursor(): never {
  throw validationError([{ path: 'cursor', message: 'is not a valid cursor for this list and sort' }]);
}

export function decodeCursor(text: string, sort: string): CursorPosition {
  if (text.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(text)) rejectCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    rejectCursor();
  }
  if (typeof parsed !== 'object' || parsed === null) rejectCursor();
  const { s, v, i } = parsed as Record<string, unknown>;
  if (s !== sort || typeof i !== 'string' || i.length === 0 || i.length > 64) rejectCursor();
  if (typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v))) rejectCursor();
  return { sort, value: v, id: i };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/;

function isRealDate(text: string): boolean {
  if (!DATE.test(text)) return false;
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
}

function isTimestamp(text: string): boolean {
  return TIMESTAMP.test(text) && isRealDate(text.slice(0, 10)) && !Number.isNaN(new Date(text).getTime());
}

/**
 * Whether a decoded cursor value can be a sort key of a column of this kind. Sort keys are
 * `coalesce(column, -1)` for numeric kinds and `coalesce(column, '')` for text kinds (list.ts),
 * so -1 and '' are the null sentinels. A tampered value that passed `decodeCursor` would
 * otherwise give a wrong page (SQLite compares across types) or a database type error
 * (PostgreSQL: `invalid input syntax for type bigint`).
 */
function fitsKind(value: string | number, kind: ColumnKind): boolean {
  switch (kind) {
    case 'money':
    case 'integer':
    case 'boolean':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'date':
      return typeof value === 'string' && (value === '' || isRealDate(value));
    case 'timestamp':
      return typeof value === 'string' && (value === '' || isTimestamp(value));
    case 'uuid':
      return typeof value === 'string' && (value === '' || isUuid(value));
    default:
      return typeof value === 'string';
  }
}

/** VALIDATION_ERROR unless the cursor's value fits the sort column's kind and its id is a uuid. */
export function assertCursorFits(position: CursorPosition, kind: ColumnKind): void {
  if (!fitsKind(position.value, kind) || !isUuid(position.id)) rejectCursor();
}
