/**
 * Renders an `x-kobana-confirm` template (grammar: src/runtime/confirm-template.ts) over the
 * target record and the call: text fields go through `quoteName`, so a record value can never
 * forge or reorder the sentence; `{field:brl}` shows a money string in reais; numbers and
 * booleans are printed as they are; a field the record lacks reads `(none)`. `{arg.x}` is the
 * call's free text, never bare: `x given: "…"` (quoteArgument: flattened, capped at 120
 * characters), `no x given` when absent. `{calc.c.v}` is the server's computation the
 * describer passes in (money in reais, a date as is).
 */
import type { TemplateSegment } from '../../runtime/confirm-template.js';
import { sanitizeDisplayText } from '../display-text.js';
import { formatBrl } from './brl.js';
import { quoteName } from './target.js';
import { isPlainObject } from '../../runtime/values.js';

const MONEY = /^(-?)(\d{1,12})(?:\.(\d{1,2}))?$/;
const ABSENT = '(none)';
/** The most of an argument's text a sentence shows. */
export const MAX_ARGUMENT_LENGTH = 120;

/** What a template reads of the call besides the target record. */
export interface TemplateCall {
  /** The call's arguments by name (path, query and body). */
  readonly arguments?: Readonly<Record<string, unknown>>;
  /** `{calc.<name>.<value>}`: each computation's values, money as "1234.56", dates as "2026-03-09". */
  readonly calculations?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

function readPath(record: unknown, path: readonly string[]): unknown {
  let current = record;
  for (const key of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function formatMoney(value: unknown): string {
  const match = MONEY.exec(typeof value === 'number' ? value.toFixed(2) : String(value));
  if (!match) return ABSENT;
  const cents = Number(match[2]) * 100 + Number((match[3] ?? '').padEnd(2, '0'));
  return formatBrl(match[1] === '-' ? -cents : cents);
}

function formatValue(value: unknown, format: 'text' | 'brl'): string {
  if (format === 'brl') return formatMoney(value);
  if (typeof value === 'string') return quoteName(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return ABSENT;
}

/**
 * `"text"` of a free-text argument, quoted as a record name is (quoteName: control and bidi
 * characters and line breaks flattened, double quotes made single) but cut at 120 characters —
 * the caller's words cannot close the quote, add a clause or pass for the server's own.
 */
export function quoteArgument(value: string): string {
  return quoteName(value, MAX_ARGUMENT_LENGTH);
}

/** `reason given: "…"`, labelled by the argument's name; `no reason given` when absent or blank. */
function formatArgument(name: string, value: unknown): string {
  const label = name.replace(/_/g, ' ');
  if (typeof value !== 'string' || sanitizeDisplayText(value).trim() === '') return `no ${label} given`;
  return `${label} given: ${quoteArgument(value)}`;
}

function renderSegment(segment: TemplateSegment, record: unknown, call: TemplateCall): string {
  if ('text' in segment) return segment.text;
  if ('argument' in segment) return formatArgument(segment.argument, call.arguments?.[segment.argument]);
  if ('calculation' in segment) {
    const value = call.calculations?.[segment.calculation]?.[segment.value];
    if (value === undefined) return ABSENT;
    return segment.kind === 'money' ? formatMoney(value) : sanitizeDisplayText(value);
  }
  const value = segment.fields.map((path) => readPath(record, path)).find((candidate) => candidate !== undefined && candidate !== null);
  return value === undefined ? ABSENT : formatValue(value, segment.format);
}

export function renderConfirmTemplate(segments: readonly TemplateSegment[], record: unknown, call: TemplateCall = {}): string {
  return segments.map((segment) => renderSegment(segment, record, call)).join('');
}
