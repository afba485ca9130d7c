/**
 * Records the caller may not read (docs/security.md#resources-touched): `execute` puts the kinds of
 * the operation's `shows` the caller lacks a permission or scope for into `ctx.omitted`; code that
 * reads records of another kind asks `shows(ctx, kind)` and leaves them out; `execute` then names
 * the kinds in the answer's `meta.omitted`, whether or not a record of them was there to leave out
 * (so the answer never says whether such records exist).
 */
import type { OperationContext, OperationOutput } from './context.js';

/** Whether records of `kind` (`payables`) may appear in this call's result. */
export function shows(ctx: OperationContext, kind: string): boolean {
  return ctx.omitted?.has(kind) !== true;
}

/** The kind of a record type named in the singular (`payable` → `payables`), as items and suggestions name them. */
export function kindOfType(type: string): string {
  return `${type}s`;
}

/** The output with `meta.omitted` added to its object body when kinds were left out. */
export function markOmitted(output: OperationOutput, omitted: ReadonlySet<string>): OperationOutput {
  const body = output.body;
  if (omitted.size === 0 || body === null || typeof body !== 'object' || Array.isArray(body)) return output;
  const record = body as Record<string, unknown>;
  const meta = record['meta'] !== null && typeof record['meta'] === 'object' ? record['meta'] as Record<string, unknown> : {};
  return { ...output, body: { ...record, meta: { ...meta, omitted: [...omitted] } } };
}
