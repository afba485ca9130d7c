/**
 * The vocabulary of describing what a destructive call will touch: the target's version (bound
 * into the sealed state) and one sentence for the person who must decide. Record values are
 * data, never markup: `quoteName` flattens them so a crafted name cannot forge or reorder the sentence.
 */
import type { Kysely } from 'kysely';
import type { Caller, OperationInput } from '../context.js';
import { sanitizeDisplayText } from '../display-text.js';
import { mayRead } from '../authorize.js';
import type { Database } from '../../store/schema.js';

export interface ConfirmationTarget {
  /** The target record's version now; null when the call has no target record (transfers). */
  readonly version: number | null;
  readonly message: string;
}

export interface DescribeRequest {
  /** The person asking; a template describer reads the target with the API's own handler as them. */
  readonly caller: Caller;
  readonly db: Kysely<Database>;
  readonly workspaceId: string;
  readonly input: OperationInput;
  /** The services' clock (src/runtime/clock.ts), the `ctx.now` of a handler the describer runs. */
  readonly now: () => Date;
}

/** Reads the target in the caller's workspace; throws the operation's own NOT_FOUND when it is not there. */
export type DescribeTarget = (request: DescribeRequest) => Promise<ConfirmationTarget>;

const MAX_NAME_LENGTH = 80;

/**
 * `"name"` with control and bidi characters and line breaks turned into spaces
 * (sanitizeDisplayText) and double quotes into single ones, cut at 80 characters — a record
 * name cannot close the quote, add a clause or reorder the sentence around it.
 */
export function quoteName(value: string, maxLength = MAX_NAME_LENGTH): string {
  const flat = sanitizeDisplayText(value).replace(/"/g, "'").replace(/\s+/g, ' ').trim();
  const cut = flat.length > maxLength ? `${flat.slice(0, maxLength - 1)}…` : flat;
  return `"${cut}"`;
}

/**
 * `quoteName(value)` when the caller may read records of `kind`, else null: a sentence names the
 * record it acts on, never a record of another kind the caller may not read (its counterparty,
 * account, parent or the items it links; docs/security.md#resources-touched).
 */
export function nameIfReadable(request: DescribeRequest, kind: string, value: string | null | undefined): string | null {
  if (value === null || value === undefined || !mayRead(request.caller, kind)) return null;
  return quoteName(value);
}

export function readPathId(input: OperationInput, name = 'id'): string {
  return input.path[name] ?? '';
}
