/**
 * Descriptions of what a profile cannot say (src/runtime/schema-profiles.ts): a keyword left out
 * becomes a sentence of the description, unless the description already states its value.
 */
import { SILENT_KEYWORDS, type Obj } from './types.js';

function formatValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The sentence for a keyword left out of the profile; null when nothing is worth saying. */
export function describeKeyword(key: string, value: unknown): string | null {
  const v = formatValue(value);
  switch (key) {
    case 'format': return `Format: ${v}.`;
    case 'pattern': return `Pattern: ${v}.`;
    case 'minLength': return value === 1 ? 'Not empty.' : `At least ${v} characters.`;
    case 'maxLength': return `At most ${v} characters.`;
    case 'minimum': return `Minimum ${v}.`;
    case 'maximum': return `Maximum ${v}.`;
    case 'exclusiveMinimum': return `Greater than ${v}.`;
    case 'exclusiveMaximum': return `Less than ${v}.`;
    case 'multipleOf': return `A multiple of ${v}.`;
    case 'minItems': return value === 1 ? 'At least one item.' : `At least ${v} items.`;
    case 'maxItems': return `At most ${v} items.`;
    case 'uniqueItems': return value === true ? 'Items are unique.' : null;
    case 'minProperties': return `Set at least ${v} of these fields.`;
    case 'maxProperties': return `Set at most ${v} of these fields.`;
    case 'default': return `Default: ${v}.`;
    case 'enum': return `One of: ${(value as unknown[]).map(formatValue).join(', ')}.`;
    case 'contentEncoding': return `Encoding: ${v}.`;
    case 'contentMediaType': return `Media type: ${v}.`;
    case 'deprecated': return value === true ? 'Deprecated.' : null;
    default:
      if (key.startsWith('x-') || SILENT_KEYWORDS.has(key)) return null;
      return `Also: ${key} ${JSON.stringify(value)}.`;
  }
}

/** Limits and defaults a description usually states in words ("Page size, 1–100 (default 25)"). */
const STATED_BY_VALUE = new Set(['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'default']);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Joins sentences onto a description, leaving out a sentence whose value the text already states. */
export function withNotes(description: unknown, notes: readonly { key: string; value: unknown }[]): string | undefined {
  let text = typeof description === 'string' ? description.trim() : '';
  for (const { key, value } of notes) {
    const sentence = describeKeyword(key, value);
    if (sentence === null) continue;
    if (STATED_BY_VALUE.has(key) && (typeof value === 'number' || typeof value === 'string') && new RegExp(`(^|[^\\w.])${escapeRegExp(String(value))}($|[^\\w])`).test(text)) continue;
    if (text.includes(sentence)) continue;
    text = text === '' ? sentence : `${text}${/[.!?:]$/.test(text) ? '' : '.'} ${sentence}`;
  }
  return text === '' ? undefined : text;
}

/** Sets the description right after `type`, as a person reads a schema. */
export function setDescription(schema: Obj, description: string | undefined): void {
  const { type, description: _old, ...rest } = schema;
  for (const key of Object.keys(schema)) delete schema[key];
  Object.assign(schema, type === undefined ? {} : { type }, description === undefined ? {} : { description }, rest);
}

export function appendSentence(description: unknown, sentence: string): string {
  const text = typeof description === 'string' ? description.trim() : '';
  return text === '' ? sentence : `${text}${/[.!?]$/.test(text) ? '' : '.'} ${sentence}`;
}
