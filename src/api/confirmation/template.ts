/**
 * Renders an `x-kobana-confirm` template (grammar: src/runtime/confirm-template.ts) over the
 * target record: text fields go through `quoteName`, so a record value can never forge or
 * reorder the sentence; `{field:brl}` shows a money string in reais; numbers and booleans are
 * printed as they are; a field the record lacks reads `(none)`.
 */
import type { TemplateSegment } from '../../runtime/confirm-template.js';
import { formatBrl } from './brl.js';
import { quoteName } from './target.js';
import { isPlainObject } from '../../runtime/values.js';

const MONEY = /^(-?)(\d{1,12})(?:\.(\d{1,2}))?$/;
const ABSENT = '(none)';

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

export function renderConfirmTemplate(segments: readonly TemplateSegment[], record: unknown): string {
  return segments.map((segment) => {
    if ('text' in segment) return segment.text;
    const value = segment.fields.map((path) => readPath(record, path)).find((candidate) => candidate !== undefined && candidate !== null);
    return value === undefined ? ABSENT : formatValue(value, segment.format);
  }).join('');
}
