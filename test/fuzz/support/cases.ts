/**
 * The boundary fuzzer's cases, derived from each generated operation (generated/registry.gen.ts):
 * a typical call with real ids, then that call with one slot — a path, query or header
 * parameter, `limit`, `cursor`, `sort`, `fields`, each filter × operator (`in` lists up to the
 * tool schema's `maxItems`), each body property — at each of its boundary values
 * (schema-bounds.ts), plus whole-call variants (every body property at its largest, `{}`, every
 * filter × operator at once, date ranges at the calendar's edges, multipart files at the size
 * limit), then random combinations of slot boundaries until the operation has its share of
 * cases. Each case is sent over REST (its route) or MCP (its tool): encode.ts.
 */
import type { ListDefinition, OperationDefinition, ToolDefinition, JsonSchema } from '../../../src/runtime/types.js';
import type { Vocabulary } from '../../helpers/property-arbitraries.js';
import { fileVariants, largestFileSizes, looksLikeOfx, ofxWithLines, ofxWithTags, UNBOUNDED_FILE_BASE64 } from './files.js';
import { Lazy } from './lazy.js';
import { maximalValue, slotBounds, typicalObject, typicalValue, type Bound, type SchemaContext } from './schema-bounds.js';
import { ownResource, resourceOfField, resourceOfPathParameter, resourceOfType } from './vocabulary.js';

export type Surface = 'rest' | 'mcp';

/** A property or parameter left out. */
export const OMIT: unique symbol = Symbol('omit');

export interface MultipartInput {
  readonly file: Lazy;
  readonly fileName: string;
  readonly contentType: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** One call, independent of the surface: what goes in the path, query, headers, list query and body. */
export interface CanonicalInput {
  readonly path: Record<string, unknown>;
  readonly query: Record<string, unknown>;
  readonly header: Record<string, unknown>;
  /** filter name → operator → value. */
  readonly list: { values: Record<string, unknown>; filters: Record<string, Record<string, unknown>> } | null;
  body: Record<string, unknown> | typeof OMIT;
  multipart: MultipartInput | null;
}

export interface FuzzCase {
  readonly operationId: string;
  readonly surface: Surface;
  /** What is at a boundary, e.g. `body.amount = pattern longest "999999999999.99"`. */
  readonly label: string;
  /** Every value within the contract (false: at least one just outside). */
  readonly inside: boolean;
  readonly input: CanonicalInput;
}

/** One slot of a call and its boundary values. */
interface Slot {
  /** `path:id`, `query:from`, `header:Idempotency-Key`, `list:limit`, `filter:due_date:gte`, `body:amount`. */
  readonly key: string;
  readonly schema: JsonSchema;
  readonly bounds: readonly Bound[];
}

interface Variant {
  readonly label: string;
  readonly inside: boolean;
  readonly assignments: readonly (readonly [string, unknown])[];
  readonly multipart?: MultipartInput;
  /** Only over REST (a multipart upload). */
  readonly restOnly?: boolean;
}

export interface CaseOptions {
  /** Cases per operation, REST and MCP together (more when its boundaries need more). */
  readonly casesPerOperation: number;
  /** Every deterministic case on both surfaces (soak); otherwise they alternate (CI). */
  readonly bothSurfaces: boolean;
  /** Seeded random source in [0, 1). */
  readonly random: () => number;
}

/** Real ids tried in a path parameter (beyond the two every uuid slot gets). */
const PATH_IDS = 10;

function slotLabel(key: string): string {
  const [container, name, operator] = key.split(':');
  if (container === 'filter') return `filters.${name}[${operator}]`;
  return `${container}.${name}`;
}

/** Ids for a field: by its sibling `x_type`, by its name, else the operation's own resource. */
function createContext(vocabulary: Vocabulary, ownResource: string | undefined): SchemaContext {
  const of = (resource: string | undefined): readonly string[] => (resource === undefined ? [] : vocabulary.byResource.get(resource) ?? []);
  return {
    ids(field, siblings) {
      if (field === undefined) return vocabulary.ids;
      const prefix = /^(.*?)_?id$/.exec(field)?.[1];
      if (prefix !== undefined) {
        const type = siblings[prefix === '' ? 'type' : `${prefix}_type`];
        if (typeof type === 'string' && of(resourceOfType(type)).length > 0) return of(resourceOfType(type));
      }
      const named = of(resourceOfField(field));
      if (named.length > 0) return named;
      const own = of(ownResource);
      return own.length > 0 ? own : vocabulary.ids;
    },
  };
}

/** The schema of one `in` operand list: the tool's (it carries `maxItems`), else an array of the operand. */
function inListSchema(tool: ToolDefinition | null, name: string, operand: JsonSchema): JsonSchema {
  const filters = ((tool?.argumentSchema['properties'] as Record<string, JsonSchema> | undefined)?.['filters']?.['properties'] ?? {}) as Record<string, JsonSchema>;
  const shape = filters[name];
  if (shape?.['type'] === 'array') return shape;
  const nested = (shape?.['properties'] as Record<string, JsonSchema> | undefined)?.['in'];
  return nested ?? { type: 'array', items: operand, minItems: 1 };
}

function listSlots(list: ListDefinition, tool: ToolDefinition | null, context: SchemaContext): Slot[] {
  const slots: Slot[] = [{ key: 'list:limit', schema: list.limit, bounds: [] }];
  if (list.cursor) slots.push({ key: 'list:cursor', schema: list.cursor, bounds: [] });
  if (list.sort) slots.push({ key: 'list:sort', schema: list.sort.schema, bounds: [] });
  if (list.fields) slots.push({ key: 'list:fields', schema: list.fields, bounds: [] });
  for (const filter of list.filters) {
    for (const operator of filter.operators) {
      const schema = operator === 'in' ? inListSchema(tool, filter.name, filter.schema) : filter.schema;
      slots.push({ key: `filter:${filter.name}:${operator}`, schema, bounds: [] });
    }
  }
  return slots.map((slot) => {
    const field = slot.key.startsWith('filter:') ? slot.key.split(':')[1] : undefined;
    return { ...slot, bounds: slotBounds(slot.schema, context, field, {}) };
  });
}

function jsonBodySchema(operation: OperationDefinition): JsonSchema | null {
  return operation.requestBody?.content['application/json'] ?? null;
}

function propertiesOf(schema: JsonSchema | null): [string, JsonSchema][] {
  const properties = schema?.['properties'];
  return properties !== null && typeof properties === 'object' ? Object.entries(properties as Record<string, JsonSchema>) : [];
}

function typicalInput(operation: OperationDefinition, vocabulary: Vocabulary): CanonicalInput {
  const own = ownResource(operation.operation.path);
  const input: CanonicalInput = { path: {}, query: {}, header: {}, list: operation.list ? { values: {}, filters: {} } : null, body: OMIT, multipart: null };
  for (const parameter of operation.parameters) {
    const context = createContext(vocabulary, parameter.in === 'path' ? resourceOfPathParameter(operation.operation.path, parameter.name) ?? own : own);
    const container = input[parameter.in === 'path' ? 'path' : parameter.in === 'query' ? 'query' : 'header'];
    const example = (parameter.schema['examples'] as unknown[] | undefined)?.[0];
    // Optional id parameters narrow the result to little or nothing: left out of the typical call.
    const wanted = parameter.required || (example !== undefined && parameter.schema['format'] !== 'uuid') || /idempotency/i.test(parameter.name);
    if (wanted) container[parameter.name] = typicalValue(parameter.schema, context, parameter.name, container);
  }
  const body = jsonBodySchema(operation);
  if (body) input.body = typicalObject(body, createContext(vocabulary, own));
  return input;
}

/** Copies a typical input (containers only; values are shared, they are never mutated). */
function cloneInput(input: CanonicalInput): CanonicalInput {
  return {
    path: { ...input.path },
    query: { ...input.query },
    header: { ...input.header },
    list: input.list ? { values: { ...input.list.values }, filters: Object.fromEntries(Object.entries(input.list.filters).map(([k, v]) => [k, { ...v }])) } : null,
    body: input.body === OMIT ? OMIT : { ...input.body },
    multipart: input.multipart,
  };
}

function assign(input: CanonicalInput, key: string, value: unknown): void {
  const [container, name = '', operator = ''] = key.split(':');
  const set = (target: Record<string, unknown>, field: string) => {
    if (value === OMIT) delete target[field];
    else target[field] = value;
  };
  if (container === 'path' || container === 'query' || container === 'header') set(input[container], name);
  else if (container === 'list' && input.list) set(input.list.values, name);
  else if (container === 'filter' && input.list) set((input.list.filters[name] ??= {}), operator);
  else if (container === 'body') {
    if (input.body === OMIT) input.body = {};
    set(input.body, name);
  } else if (container === 'wholebody') input.body = value as Record<string, unknown>;
}

/** The date slots of a call (query parameters, body properties, filter operands), by container. */
function dateSlots(slots: readonly Slot[]): Map<string, Slot[]> {
  const out = new Map<string, Slot[]>();
  for (const slot of slots) {
    if (slot.schema['format'] !== 'date') continue;
    const container = slot.key.split(':')[0] ?? '';
    const list = out.get(container) ?? [];
    list.push(slot);
    out.set(container, list);
  }
  return out;
}

/** Date ranges at the calendar's edges: every date first, every date last, the widest range, the reversed one. */
function dateVariants(slots: readonly Slot[]): Variant[] {
  const out: Variant[] = [];
  for (const [container, dates] of dateSlots(slots)) {
    if (dates.length < 2) continue;
    const lower = (slot: Slot) => /:(gte|gt)$/.test(slot.key) || /from/.test(slot.key.split(':')[1] ?? '');
    out.push(
      { label: `${container} dates: all 0001-01-01`, inside: true, assignments: dates.map((s) => [s.key, '0001-01-01']) },
      { label: `${container} dates: all 9999-12-31`, inside: true, assignments: dates.map((s) => [s.key, '9999-12-31']) },
      { label: `${container} dates: widest range`, inside: true, assignments: dates.map((s) => [s.key, lower(s) ? '0001-01-01' : '9999-12-31']) },
      { label: `${container} dates: reversed range`, inside: true, assignments: dates.map((s) => [s.key, lower(s) ? '9999-12-31' : '0001-01-01']) },
    );
  }
  return out;
}

/** The file an operation takes: its base64 body field, the field's example, and how a multipart upload of it looks. */
interface FileSlot {
  readonly field: string | null;
  readonly maxLength: number | null;
  readonly example: Buffer;
  readonly contentType: string;
  readonly fileName: string;
  /** Multipart form fields besides the file; null when the operation takes no multipart body. */
  readonly multipartFields: Record<string, unknown> | null;
}

function fileSlot(operation: OperationDefinition, context: SchemaContext): FileSlot | null {
  const multipart = operation.requestBody?.content['multipart/form-data'];
  const jsonProperties = propertiesOf(jsonBodySchema(operation));
  const [field, schema] = jsonProperties.find(([, property]) => property['contentEncoding'] === 'base64') ?? [];
  if (!multipart && field === undefined) return null;
  const exampleText = (schema?.['examples'] as unknown[] | undefined)?.[0];
  const exampleOf = (name: string): string | undefined => {
    const value = (jsonProperties.find(([n]) => n === name)?.[1]['examples'] as unknown[] | undefined)?.[0];
    return typeof value === 'string' ? value : undefined;
  };
  let multipartFields: Record<string, unknown> | null = null;
  if (multipart) {
    multipartFields = {};
    for (const [name, property] of propertiesOf(multipart)) if (property['format'] !== 'binary') multipartFields[name] = typicalValue(property, context, name);
  }
  return {
    field: field ?? null,
    maxLength: typeof schema?.['maxLength'] === 'number' ? schema['maxLength'] : null,
    example: Buffer.from(typeof exampleText === 'string' ? exampleText : 'AAAA', 'base64'),
    contentType: exampleOf('content_type') ?? 'application/octet-stream',
    fileName: exampleOf('file_name') ?? 'file.bin',
    multipartFields,
  };
}

/** The same file as a multipart upload (REST only) and, when the body has a base64 field, as JSON. */
function fileCases(slot: FileSlot, label: string, bytes: Lazy, inside: boolean): Variant[] {
  const out: Variant[] = [];
  if (slot.multipartFields !== null) {
    out.push({ label: `multipart ${label}`, inside, assignments: [], restOnly: true, multipart: { file: bytes, fileName: slot.fileName, contentType: slot.contentType, fields: slot.multipartFields } });
  }
  if (slot.field !== null) out.push({ label: `body.${slot.field} = ${label}`, inside, assignments: [[`body:${slot.field}`, Lazy.once(() => (bytes.get() as Buffer).toString('base64'))]] });
  return out;
}

function multipartVariants(operation: OperationDefinition, context: SchemaContext): Variant[] {
  const slot = fileSlot(operation, context);
  if (slot === null || slot.multipartFields === null) return [];
  const variants = fileVariants(`${operation.operation.operationId}:${slot.field ?? 'file'}`, slot.example, slot.contentType, largestFileSizes(slot.maxLength ?? UNBOUNDED_FILE_BASE64));
  variants.push({ label: 'empty file', bytes: Lazy.once(() => Buffer.alloc(0)), inside: true });
  return variants.flatMap((variant) => fileCases({ ...slot, field: null }, variant.label, variant.bytes, variant.inside));
}


/** The keys of an operation's own bounds (`x-kobana-bounds`, generated as `bounds`) the fuzzer turns into cases. */
const OPERATION_BOUND_KEYS: ReadonlySet<string> = new Set(['spans', 'maxScanned', 'maxPerWorkspace', 'maxLines', 'maxTags']);

/** The operation's own bounds, read by key (a definition without them has none). */
function operationBounds(operation: OperationDefinition): Record<string, unknown> {
  const bounds = (operation as { readonly bounds?: unknown }).bounds;
  return bounds !== null && typeof bounds === 'object' ? (bounds as Record<string, unknown>) : {};
}

/** Keys of `bounds` the fuzzer has no cases for (the test fails naming them). */
export function unknownOperationBounds(operation: OperationDefinition): string[] {
  return Object.keys(operationBounds(operation)).filter((key) => !OPERATION_BOUND_KEYS.has(key));
}

function addDays(date: string, days: number): string {
  const [year = 1, month = 1, day = 1] = date.split('-').map(Number);
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCDate(at.getUTCDate() + days);
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return `${pad(at.getUTCFullYear(), 4)}-${pad(at.getUTCMonth() + 1, 2)}-${pad(at.getUTCDate(), 2)}`;
}

/**
 * Cases of the operation's own bounds: date spans of exactly `maxDays` and one day more at both
 * ends of the calendar, a reversed span; files of exactly `maxLines` lines and `maxTags` tags, and
 * one more. `maxScanned` and `maxPerWorkspace` bound the data, not an input: the run's own records
 * and imports approach them, no case sets them.
 */
function operationBoundVariants(operation: OperationDefinition, slots: readonly Slot[], context: SchemaContext): Variant[] {
  const bounds = operationBounds(operation);
  const out: Variant[] = [];
  const keyOf = (name: string): string | undefined => slots.find((slot) => slot.key === `query:${name}` || slot.key === `body:${name}`)?.key;
  for (const span of Array.isArray(bounds['spans']) ? (bounds['spans'] as { from?: unknown; to?: unknown; maxDays?: unknown }[]) : []) {
    const from = typeof span.from === 'string' ? keyOf(span.from) : undefined;
    const to = typeof span.to === 'string' ? keyOf(span.to) : undefined;
    const days = typeof span.maxDays === 'number' ? span.maxDays : undefined;
    if (from === undefined || to === undefined || days === undefined) continue;
    const label = `${span.from}..${span.to}`;
    out.push(
      { label: `${label}: ${days} days from 0001-01-01`, inside: true, assignments: [[from, '0001-01-01'], [to, addDays('0001-01-01', days)]] },
      { label: `${label}: ${days} days to 9999-12-31`, inside: true, assignments: [[from, addDays('9999-12-31', -days)], [to, '9999-12-31']] },
      { label: `${label}: ${days + 1} days from 0001-01-01`, inside: false, assignments: [[from, '0001-01-01'], [to, addDays('0001-01-01', days + 1)]] },
      { label: `${label}: ${days + 1} days to 9999-12-31`, inside: false, assignments: [[from, addDays('9999-12-31', -days - 1)], [to, '9999-12-31']] },
      { label: `${label}: reversed by one day at 9999-12-31`, inside: false, assignments: [[from, '9999-12-31'], [to, '9999-12-30']] },
    );
  }
  const file = fileSlot(operation, context);
  if (file !== null && looksLikeOfx(file.example, file.contentType)) {
    const lines = bounds['maxLines'];
    if (typeof lines === 'number') {
      out.push(...fileCases(file, `OFX of maxLines ${lines} lines`, Lazy.once(() => ofxWithLines(file.example, lines, 'FL')), true));
      out.push(...fileCases(file, `OFX of maxLines + 1 (${lines + 1}) lines`, Lazy.once(() => ofxWithLines(file.example, lines + 1, 'FM')), false));
    }
    const tags = bounds['maxTags'];
    if (typeof tags === 'number') {
      out.push(...fileCases(file, `OFX of maxTags ${tags} tags`, Lazy.once(() => ofxWithTags(file.example, tags)), true));
      out.push(...fileCases(file, `OFX of maxTags + 1 (${tags + 1}) tags`, Lazy.once(() => ofxWithTags(file.example, tags + 1)), false));
    }
  }
  return out;
}

/** Every filter × operator at its largest (or smallest) value, `in` lists at their longest. */
function filterVariants(slots: readonly Slot[], context: SchemaContext): Variant[] {
  const filters = slots.filter((slot) => slot.key.startsWith('filter:'));
  if (filters.length === 0) return [];
  const field = (slot: Slot) => slot.key.split(':')[1];
  const smallest = (slot: Slot): unknown => {
    const inside = slot.bounds.filter((bound) => bound.inside);
    return (inside.find((bound) => /minimum|first|shortest|minLength|empty|^\[0\] /.test(bound.label)) ?? inside[0])?.value ?? typicalValue(slot.schema, context, field(slot));
  };
  return [
    { label: 'every filter × operator at its largest', inside: true, assignments: filters.map((slot) => [slot.key, maximalValue(slot.schema, context, field(slot))]) },
    { label: 'every filter × operator at its smallest', inside: true, assignments: filters.map((slot) => [slot.key, smallest(slot)]) },
    { label: 'every filter × operator, ordinary values', inside: true, assignments: filters.map((slot) => [slot.key, typicalValue(slot.schema, context, field(slot))]) },
  ];
}

function operationSlots(operation: OperationDefinition, tool: ToolDefinition | null, vocabulary: Vocabulary, typical: CanonicalInput): Slot[] {
  const own = ownResource(operation.operation.path);
  const slots: Slot[] = [];
  for (const parameter of operation.parameters) {
    const container = parameter.in === 'path' ? typical.path : parameter.in === 'query' ? typical.query : typical.header;
    const context = createContext(vocabulary, parameter.in === 'path' ? resourceOfPathParameter(operation.operation.path, parameter.name) ?? own : own);
    const bounds = slotBounds(parameter.schema, context, parameter.name, container);
    if (parameter.in === 'path' && parameter.schema['format'] === 'uuid') {
      const real = context.ids(parameter.name, container).slice(2, PATH_IDS);
      bounds.push(...real.map((id, i) => ({ label: `real id #${i + 3}`, value: id, inside: true })));
      // Read when sent: the records earlier calls of the run created (a delete's likeliest targets).
      let turn = 0;
      bounds.push(
        { label: 'newest real id', value: Lazy.fresh(() => context.ids(parameter.name, container).at(-1)), inside: true },
        { label: 'next real id', value: Lazy.fresh(() => { const ids = context.ids(parameter.name, container); return ids[turn++ % ids.length]; }), inside: true },
      );
    }
    if (!parameter.required) bounds.push({ label: 'left out', value: OMIT, inside: true });
    slots.push({ key: `${parameter.in}:${parameter.name}`, schema: parameter.schema, bounds });
  }
  const context = createContext(vocabulary, own);
  if (operation.list) slots.push(...listSlots(operation.list, tool, context));
  const body = jsonBodySchema(operation);
  if (body && typical.body !== OMIT) {
    const required = new Set((body['required'] ?? []) as string[]);
    for (const [name, schema] of propertiesOf(body)) {
      const bounds = slotBounds(schema, context, name, typical.body);
      bounds.push({ label: required.has(name) ? 'missing' : 'left out', value: OMIT, inside: !required.has(name) });
      slots.push({ key: `body:${name}`, schema, bounds });
    }
  }
  return slots;
}

function wholeVariants(operation: OperationDefinition, slots: readonly Slot[], context: SchemaContext): Variant[] {
  const out: Variant[] = [{ label: 'typical call', inside: true, assignments: [] }];
  const body = jsonBodySchema(operation);
  if (body) {
    out.push(
      { label: 'body: every property at its largest', inside: true, assignments: [['wholebody', maximalValue(body, context, undefined)]] },
      { label: 'body: {}', inside: ((body['required'] ?? []) as unknown[]).length === 0 && typeof body['minProperties'] !== 'number', assignments: [['wholebody', {}]] },
    );
  }
  out.push(...filterVariants(slots, context), ...dateVariants(slots), ...multipartVariants(operation, context), ...operationBoundVariants(operation, slots, context));
  return out;
}

/** Slot boundary variants: one per slot × boundary. */
function slotVariants(slots: readonly Slot[]): Variant[] {
  return slots.flatMap((slot) => slot.bounds.map((bound) => ({
    label: `${slotLabel(slot.key)} = ${bound.label}`, inside: bound.inside, assignments: [[slot.key, bound.value] as const],
  })));
}

function pick<T>(items: readonly T[], random: () => number): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/** Random combinations of two or three slot boundaries. */
function randomVariant(slots: readonly Slot[], random: () => number): Variant {
  const usable = slots.filter((slot) => slot.bounds.length > 0);
  const count = 2 + Math.floor(random() * 2);
  const chosen = new Map<string, Bound>();
  for (let i = 0; i < count && usable.length > 0; i += 1) {
    const slot = pick(usable, random);
    chosen.set(slot.key, pick(slot.bounds, random));
  }
  return {
    label: [...chosen].map(([key, bound]) => `${slotLabel(key)} = ${bound.label}`).join(', '),
    inside: [...chosen.values()].every((bound) => bound.inside),
    assignments: [...chosen].map(([key, bound]) => [key, bound.value] as const),
  };
}

function materialize(operation: OperationDefinition, typical: CanonicalInput, variant: Variant, surface: Surface): FuzzCase {
  const input = cloneInput(typical);
  for (const [key, value] of variant.assignments) assign(input, key, value);
  if (variant.multipart) {
    input.body = OMIT;
    input.multipart = variant.multipart;
  }
  return { operationId: operation.operation.operationId, surface, label: variant.label, inside: variant.inside, input };
}

export function buildOperationCases(operation: OperationDefinition, tool: ToolDefinition | null, vocabulary: Vocabulary, options: CaseOptions): FuzzCase[] {
  const typical = typicalInput(operation, vocabulary);
  const slots = operationSlots(operation, tool, vocabulary, typical);
  const own = ownResource(operation.operation.path);
  const variants = [...wholeVariants(operation, slots, createContext(vocabulary, own)), ...slotVariants(slots)];
  const surfaces: Surface[] = tool ? ['rest', 'mcp'] : ['rest'];
  const cases: FuzzCase[] = [];
  let turn = 0;
  for (const variant of variants) {
    if (variant.restOnly) {
      cases.push(materialize(operation, typical, variant, 'rest'));
    } else if (options.bothSurfaces || variant.label === 'typical call') {
      for (const surface of surfaces) cases.push(materialize(operation, typical, variant, surface));
    } else {
      cases.push(materialize(operation, typical, variant, surfaces[turn % surfaces.length] ?? 'rest'));
      turn += 1;
    }
  }
  while (cases.length < options.casesPerOperation) {
    cases.push(materialize(operation, typical, randomVariant(slots, options.random), surfaces[turn % surfaces.length] ?? 'rest'));
    turn += 1;
  }
  return cases;
}
