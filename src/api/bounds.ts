/**
 * The generic half of `x-kobana-bounds` (openapi/README.md#extensions): a declared date span is
 * checked on the call's arguments before the operation runs, for every operation that declares
 * one — `to` not before `from`, and at most `maxDays` days apart — compared as day numbers
 * (src/api/dates.ts). A refusal is VALIDATION_ERROR whose issue names the field and the bound.
 * A span with one end missing is the operation's to complete (its defaults) and check again
 * with `checkSpan`.
 */
import type { DateSpanBound, OperationBounds } from '../runtime/types.js';
import type { OperationInput } from './context.js';
import { dayNumber } from './dates.js';
import { validationError, type ValidationIssue } from './errors.js';

function readField(input: OperationInput, name: string): unknown {
  if (Object.hasOwn(input.query, name)) return input.query[name];
  const body = input.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
}

/** The issue of one span over two present dates, or null; a value that is not a date is the schema's to refuse. */
function spanIssue(span: DateSpanBound, from: string, to: string): ValidationIssue | null {
  const first = dayNumber(from);
  const last = dayNumber(to);
  if (Number.isNaN(first) || Number.isNaN(last)) return null;
  if (last < first) return { path: span.to, message: `must not be before ${span.from}` };
  if (last - first > span.maxDays) return { path: span.to, message: `must be at most ${span.maxDays} days after ${span.from}` };
  return null;
}

/** Throws VALIDATION_ERROR when a span of the pair breaks its bound. */
export function checkSpan(span: DateSpanBound, from: string, to: string): void {
  const issue = spanIssue(span, from, to);
  if (issue) throw validationError([issue]);
}

/** Every declared span whose two ends the call gives; all issues at once. */
export function assertDeclaredBounds(bounds: OperationBounds | null, input: OperationInput): void {
  if (!bounds) return;
  const issues: ValidationIssue[] = [];
  for (const span of bounds.spans) {
    const from = readField(input, span.from);
    const to = readField(input, span.to);
    if (typeof from !== 'string' || typeof to !== 'string' || from === '' || to === '') continue;
    const issue = spanIssue(span, from, to);
    if (issue) issues.push(issue);
  }
  if (issues.length > 0) throw validationError(issues);
}
