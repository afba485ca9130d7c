/**
 * The opaque list cursor: base64url JSON of the sort key and the last row's (sort value, id).
 * Encodes and strictly decodes; a cursor from another sort, a tampered or foreign value →
 * VALIDATION_ERROR. What the values mean is list.ts's business.
 *
 *   encodeCursor({sort, value, id}): string
 *   decodeCursor(text: string, sort: string): {sort, value: string | number, id: string}
 */
import { validationError } from './errors.js';

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
