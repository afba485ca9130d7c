/**
 * Checking and quoting `prompts/get` arguments. Every value is a string checked against its
 * kind (month, week, period, days, workspace, free text); the workspace is resolved among the
 * caller's own workspaces. Values enter prompt text only through `quoteValue()`, as JSON string
 * literals without control or bidi characters (sanitizeDisplayText), so a value can never open
 * a new message, line or instruction of its own, nor reorder the text around it.
 */
import type { Kysely } from 'kysely';
import type { Caller } from '../../../api/index.js';
import { sanitizeDisplayText } from '../../../api/index.js';
import { findReachableWorkspace, listReachableWorkspaces } from '../../../api/index.js';
import { INVALID_PARAMS, JsonRpcError } from '../../json-rpc.js';
import type { Database } from '../../../store/schema.js';
import { DATE_PATTERN, readMonthRange, readWeekRange } from './calendar.js';

export type ArgumentKind = 'workspace' | 'account' | 'month' | 'week' | 'period' | 'days';

export interface PromptArgumentSpec {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
  readonly kind: ArgumentKind;
}

export interface ResolvedWorkspace {
  readonly id: string;
  readonly name: string;
}

export interface ResolvedArguments {
  readonly workspace: ResolvedWorkspace;
  /** The other arguments as given (already checked), by name. */
  readonly values: Readonly<Record<string, string>>;
}

/** Longest value accepted; prompt arguments are ids, names and dates, never documents. */
const MAX_VALUE_LENGTH = 200;

/** A value as data inside prompt text: a JSON string literal (quotes, escapes, no raw newlines). */
export function quoteValue(value: string): string {
  return JSON.stringify(sanitizeDisplayText(value));
}

function createInvalidParams(message: string): JsonRpcError {
  return new JsonRpcError(INVALID_PARAMS, message);
}

/** `YYYY-MM` or `YYYY-MM-DD..YYYY-MM-DD` (start not after end). */
export function readPeriod(value: string): { from: string; to: string } | null {
  const month = readMonthRange(value);
  if (month) return { from: month.first, to: month.last };
  const [from, to, extra] = value.split('..');
  if (extra !== undefined || from === undefined || to === undefined) return null;
  if (!DATE_PATTERN.test(from) || !DATE_PATTERN.test(to) || !isRealDate(from) || !isRealDate(to) || from > to) return null;
  return { from, to };
}

function isRealDate(value: string): boolean {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

const KIND_CHECKS: Readonly<Record<Exclude<ArgumentKind, 'workspace'>, (value: string) => boolean>> = {
  account: () => true,
  month: (value) => readMonthRange(value) !== null,
  week: (value) => readWeekRange(value) !== null,
  period: (value) => readPeriod(value) !== null,
  days: (value) => /^[1-9]\d{0,2}$/.test(value) && Number(value) <= 365,
};

const KIND_FORMATS: Readonly<Record<Exclude<ArgumentKind, 'workspace'>, string>> = {
  account: 'an account name or id',
  month: 'YYYY-MM',
  week: 'YYYY-Www (ISO week)',
  period: 'YYYY-MM or YYYY-MM-DD..YYYY-MM-DD',
  days: 'a whole number of days from 1 to 365',
};

/** Finds the caller's workspace by id or by name (case-insensitive); never another person's. */
async function resolveWorkspaceArgument(db: Kysely<Database>, caller: Caller, value: string): Promise<ResolvedWorkspace> {
  const reachable = await listReachableWorkspaces(db, caller);
  const found = findReachableWorkspace(reachable, value);
  // Same answer for "does not exist" and "not yours" (docs/security.md#check-order-and-error-catalogue: never tell which).
  if (found === undefined) throw createInvalidParams('Argument workspace does not name a workspace this person reaches; complete it or call finance_workspaces_list.');
  return found;
}

/** Checks names, presence, types and formats; resolves the workspace. Throws -32602. */
export async function resolvePromptArguments(
  db: Kysely<Database>,
  caller: Caller,
  specs: readonly PromptArgumentSpec[],
  given: Readonly<Record<string, unknown>>,
): Promise<ResolvedArguments> {
  const known = new Set(specs.map((spec) => spec.name));
  for (const name of Object.keys(given)) {
    if (!known.has(name)) throw createInvalidParams('Unknown prompt argument.');
  }
  const values: Record<string, string> = {};
  let workspace: ResolvedWorkspace | undefined;
  for (const spec of specs) {
    const value = Object.hasOwn(given, spec.name) ? given[spec.name] : undefined;
    if (value === undefined || value === '') {
      if (spec.required) throw createInvalidParams(`Missing required argument: ${spec.name}.`);
      continue;
    }
    if (typeof value !== 'string') throw createInvalidParams(`Argument ${spec.name} must be a string.`);
    if (value.length > MAX_VALUE_LENGTH) throw createInvalidParams(`Argument ${spec.name} is too long.`);
    if (spec.kind === 'workspace') {
      workspace = await resolveWorkspaceArgument(db, caller, value);
      continue;
    }
    if (!KIND_CHECKS[spec.kind](value)) throw createInvalidParams(`Argument ${spec.name} must be ${KIND_FORMATS[spec.kind]}.`);
    values[spec.name] = value;
  }
  if (workspace === undefined) throw createInvalidParams('Missing required argument: workspace.');
  return { workspace, values };
}
