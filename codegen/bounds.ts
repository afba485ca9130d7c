/**
 * `x-kobana-bounds` (openapi/README.md#extensions) → `OperationDefinition.bounds`: the bounds a
 * single-field JSON Schema keyword cannot carry — a date range's span, the rows an operation
 * walks, the records a workspace may hold, the lines and markup tags of an uploaded file.
 * Written in snake_case in the document, checked here (a span must name two `format: date`
 * query parameters or JSON body properties of its operation), emitted in camelCase.
 */
import type { DateSpanBound, JsonSchema, OperationBounds } from '../src/runtime/types.js';
import { CodegenError } from './errors.js';

type Obj = Record<string, unknown>;

const COUNT_KEYS = { max_scanned: 'maxScanned', max_per_workspace: 'maxPerWorkspace', max_lines: 'maxLines', max_tags: 'maxTags' } as const;
const KNOWN = new Set(['spans', ...Object.keys(COUNT_KEYS)]);

/** What a span may name: the operation's query parameters and its JSON body's properties, each with its schema. */
export interface BoundFields {
  readonly query: ReadonlyMap<string, JsonSchema>;
  readonly body: ReadonlyMap<string, JsonSchema>;
}

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function isDateField(fields: BoundFields, name: unknown): boolean {
  if (typeof name !== 'string') return false;
  const schema = fields.query.get(name) ?? fields.body.get(name);
  return schema !== undefined && schema['format'] === 'date';
}

function readSpan(file: string, at: string, raw: unknown, fields: BoundFields): DateSpanBound {
  const span = (raw ?? {}) as Obj;
  if (typeof raw !== 'object' || raw === null || !isDateField(fields, span['from']) || !isDateField(fields, span['to']) || !isPositiveInteger(span['max_days'])) {
    throw new CodegenError('INVALID_EXTENSION', file, at,
      'a span must be {from, to, max_days}: two format: date query parameters or body properties of the operation and a positive integer');
  }
  return { from: span['from'] as string, to: span['to'] as string, maxDays: span['max_days'] as number };
}

/** The operation's bounds, or null when it declares none. */
export function extractBounds(file: string, pointer: string, raw: unknown, fields: BoundFields): OperationBounds | null {
  if (raw === undefined) return null;
  const at = `${pointer}/x-kobana-bounds`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CodegenError('INVALID_EXTENSION', file, at, 'x-kobana-bounds must be an object {spans?, max_scanned?, max_per_workspace?, max_lines?, max_tags?}');
  }
  const declared = raw as Obj;
  for (const key of Object.keys(declared)) {
    if (!KNOWN.has(key)) throw new CodegenError('INVALID_EXTENSION', file, `${at}/${key}`, `x-kobana-bounds has no key ${key}`);
  }
  const spans = declared['spans'] ?? [];
  if (!Array.isArray(spans)) throw new CodegenError('INVALID_EXTENSION', file, `${at}/spans`, 'x-kobana-bounds.spans must be a list');
  const counts: { -readonly [K in (typeof COUNT_KEYS)[keyof typeof COUNT_KEYS]]: number | null } = { maxScanned: null, maxPerWorkspace: null, maxLines: null, maxTags: null };
  for (const [key, name] of Object.entries(COUNT_KEYS) as [keyof typeof COUNT_KEYS, (typeof COUNT_KEYS)[keyof typeof COUNT_KEYS]][]) {
    const value = declared[key];
    if (value === undefined) continue;
    if (!isPositiveInteger(value)) throw new CodegenError('INVALID_EXTENSION', file, `${at}/${key}`, `x-kobana-bounds.${key} must be a positive integer`);
    counts[name] = value;
  }
  return { spans: spans.map((span, index) => readSpan(file, `${at}/spans/${index}`, span, fields)), ...counts };
}
