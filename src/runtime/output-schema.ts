/**
 * The `outputSchema` of a tool (MCP 2025-06-18 §tools, output schema): the schema of its
 * `structuredContent`, built from the operation's success response. Compact on purpose — it is
 * sent in every `tools/list` — so it keeps what a client validates and a model reads (types,
 * formats, enums, the shape) and drops prose and constraints (descriptions, examples, defaults,
 * patterns, bounds). `required` is dropped below the top level too: `fields` (sparse fieldsets)
 * may leave any property of a record out. MCP wants `type: "object"` at the top, so a body that
 * is not an object is wrapped as `{result: <body>}` (the SDKs' convention); a file answer is
 * described by its metadata (src/mcp/tools/result.ts); an empty answer (204) has no schema. A
 * money move that declares a `202` (its approval request, when a second person must approve it
 * first: docs/security.md#money-controls) answers the union of the record and the request,
 * discriminated by `status`: `pending_approval` is the request's, never a record's.
 */
import type { JsonSchema, SuccessResponse, ToolOutput } from './types.js';
import { isPlainObject } from './values.js';

type Obj = { [key: string]: unknown };

/** Keywords kept as they are. */
const KEPT = ['type', 'format', 'enum', 'const'] as const;
/** Keywords holding one subschema, a list of them, or a name → subschema map. */
const ONE = ['items', 'additionalProperties'] as const;
const MANY = ['anyOf', 'oneOf', 'prefixItems'] as const;

/** The property a non-object body is wrapped in (the same name the SDKs use). */
export const WRAPPED_RESULT_PROPERTY = 'result';

/**
 * What `tools/call` answers for an operation returning a file (docs/domain.md#attachments): its
 * metadata, the link a person opens (docs/security.md#download-links) and the REST path to
 * download it, never the bytes. Shared with src/mcp/tools/result.ts.
 */
const FILE_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    content_type: { type: 'string' },
    size: { type: 'integer' },
    file_name: { type: 'string' },
    sha256: { type: 'string' },
    download_url: { type: 'string', format: 'uri' },
    download_url_expires_at: { type: 'string', format: 'date-time' },
    download_path: { type: 'string' },
    note: { type: 'string' },
  },
  required: ['content_type', 'size', 'file_name', 'sha256', 'download_path'],
});

/** The `status` of an approval request while it waits: what tells it apart from the record in a union output. */
export const PENDING_APPROVAL_STATUS = 'pending_approval';

/**
 * The output of an operation's tool; null when the operation answers nothing. With a JSON
 * `accepted` response (a `202` declared after the success response) and an object record, the
 * union of both: `anyOf` [the record, the approval request with `status: "pending_approval"`].
 */
export function toToolOutput(response: SuccessResponse, accepted?: SuccessResponse): ToolOutput | null {
  const output = toSingleOutput(response);
  if (output === null || output.wrapped || accepted?.kind !== 'json') return output;
  const record = compactSchema((response as { readonly schema: JsonSchema }).schema);
  const pending = compactSchema(accepted.schema);
  if (pending.type !== 'object') return output;
  const union: JsonSchema = { type: 'object', anyOf: [record, waitingSide(pending)] };
  return { schema: shareRepeatedShapes(union), wrapped: false, sameAs: null, union: { record: shareRepeatedShapes(record), pending: shareRepeatedShapes(pending) } };
}

/** The approval request's side of a union: its `status` is `pending_approval`, and it is required. */
function waitingSide(pending: JsonSchema): JsonSchema {
  const properties = isPlainObject(pending.properties) ? pending.properties : {};
  return { ...pending, properties: { ...properties, status: { const: PENDING_APPROVAL_STATUS } }, required: ['status'] };
}

function toSingleOutput(response: SuccessResponse): ToolOutput | null {
  switch (response.kind) {
    case 'none':
      return null;
    case 'file':
      return { schema: FILE_OUTPUT_SCHEMA, wrapped: false, sameAs: null };
    case 'json': {
      const compact = compactSchema(response.schema);
      if (compact.type === 'object') return { schema: shareRepeatedShapes(compact), wrapped: false, sameAs: null };
      const wrapped = { type: 'object', properties: { [WRAPPED_RESULT_PROPERTY]: compact }, required: [WRAPPED_RESULT_PROPERTY] };
      return { schema: shareRepeatedShapes(wrapped), wrapped: true, sameAs: null };
    }
  }
}

/**
 * Says a record's shape once per `tools/list`: a tool that is not a GET and answers exactly what a
 * GET tool answers (create, update, settle… return the record `…_get` returns) gets a short
 * schema pointing at that tool — an object with the record's `id` — instead of a copy. Both
 * validate the same `structuredContent`; the full one is a name away. This keeps the admin's
 * whole list within its token budget (docs/protocol.md#typed-results).
 */
export function pointAtGetters<T extends { readonly name: string; readonly operation: { readonly method: string }; readonly output: ToolOutput | null }>(tools: readonly T[]): T[] {
  const getters = new Map<string, string>();
  for (const tool of tools) {
    if (tool.operation.method !== 'GET' || tool.output === null || tool.output.wrapped) continue;
    const key = JSON.stringify(tool.output.schema);
    if (!getters.has(key)) getters.set(key, tool.name);
  }
  return tools.map((tool) => {
    if (tool.operation.method === 'GET' || tool.output === null || tool.output.wrapped) return tool;
    if (tool.output.union) return pointUnionAtGetters(tool, tool.output.union, getters);
    const getter = getters.get(JSON.stringify(tool.output.schema));
    if (getter === undefined) return tool;
    const schema: JsonSchema = {
      type: 'object',
      description: `The record, as ${getter} returns it (its outputSchema).`,
      ...idOnly(tool.output.schema),
    };
    return { ...tool, output: { schema, wrapped: false, sameAs: getter } };
  });
}

/** `{properties: {id}}` of a schema that has an `id` property, else nothing. */
function idOnly(schema: JsonSchema): { properties?: Obj } {
  const id = (schema.properties as Obj | undefined)?.['id'];
  return isPlainObject(id) ? { properties: { id } } : {};
}

/**
 * A union output points at both getters when both exist (the record's GET tool and the approval
 * request's): the record's `id`, and the two sides told apart by `status` alone; the description
 * names both tools. Otherwise the union stays in full.
 */
function pointUnionAtGetters<T extends { readonly output: ToolOutput | null }>(tool: T, union: NonNullable<ToolOutput['union']>, getters: ReadonlyMap<string, string>): T {
  const getter = getters.get(JSON.stringify(union.record));
  const requests = getters.get(JSON.stringify(union.pending));
  if (getter === undefined || requests === undefined) return tool;
  const schema: JsonSchema = {
    type: 'object',
    description: `The record, as ${getter} returns it (its outputSchema); or, when the move waits for a second person, an approval request with status "${PENDING_APPROVAL_STATUS}", as ${requests} returns it.`,
    ...idOnly(union.record),
    anyOf: [
      { properties: { status: { not: { const: PENDING_APPROVAL_STATUS } } } },
      { properties: { status: { const: PENDING_APPROVAL_STATUS } }, required: ['status'] },
    ],
  };
  return { ...tool, output: { schema, wrapped: false, sameAs: getter, union } };
}

/** The schema with only the keywords of KEPT and the structure; `required` kept nowhere. */
function compactSchema(schema: JsonSchema): JsonSchema {
  const source = schema as Obj;
  const out: Obj = {};
  for (const key of KEPT) if (source[key] !== undefined) out[key] = source[key];
  if (isPlainObject(source.properties)) {
    const properties: Obj = {};
    for (const [name, value] of Object.entries(source.properties)) properties[name] = isPlainObject(value) ? compactSchema(value) : value;
    out.properties = properties;
  }
  for (const key of ONE) {
    const value = source[key];
    if (isPlainObject(value)) out[key] = compactSchema(value);
    // `additionalProperties: false` only forbids; an output schema describes, so it is dropped.
    else if (value === true && key === 'items') out[key] = value;
  }
  for (const key of MANY) {
    const value = source[key];
    if (Array.isArray(value)) out[key] = value.map((member) => (isPlainObject(member) ? compactSchema(member) : member));
  }
  return out;
}

/** A repeated object shape is said once, in `$defs`, when it is at least this long (JSON characters). */
const MIN_SHARED_LENGTH = 60;

/**
 * Says every repeated object shape once: the longest shape that occurs twice or more moves to
 * `$defs` and each occurrence becomes a `$ref`, until no repeated shape is left (e.g. the four
 * `{count, total}` of an aggregate's totals, and the totals themselves). Named after the property
 * holding it when every occurrence has the same name, else `shape_<n>`.
 */
function shareRepeatedShapes(schema: JsonSchema): JsonSchema {
  const root = structuredClone(schema) as Obj;
  const defs: Obj = {};
  for (;;) {
    const seen = new Map<string, { holders: { parent: Obj; key: string; property: string }[] }>();
    const visit = (node: unknown, property: string, parent: Obj | null, key: string): void => {
      if (!isPlainObject(node)) {
        if (Array.isArray(node)) node.forEach((member, index) => visit(member, property, node as unknown as Obj, String(index)));
        return;
      }
      if (parent !== null && isPlainObject(node.properties)) {
        const text = JSON.stringify(node);
        if (text.length >= MIN_SHARED_LENGTH) {
          const entry = seen.get(text) ?? { holders: [] };
          entry.holders.push({ parent, key, property });
          seen.set(text, entry);
        }
      }
      for (const [childKey, child] of Object.entries(node)) {
        if (childKey === 'properties' && isPlainObject(child)) {
          for (const [name, value] of Object.entries(child)) visit(value, name, child, name);
        } else if (childKey !== 'enum' && childKey !== 'const') {
          visit(child, property, node, childKey);
        }
      }
    };
    visit(root, '', null, '');
    for (const [name, def] of Object.entries(defs)) visit(def, name, defs, name);
    const repeated = [...seen.entries()].filter(([, entry]) => entry.holders.length > 1).sort((a, b) => b[0].length - a[0].length)[0];
    if (repeated === undefined) break;
    const [text, { holders }] = repeated;
    const names = new Set(holders.map((holder) => holder.property));
    let name = names.size === 1 && /^[a-z][a-z0-9_]*$/.test([...names][0]!) ? [...names][0]! : `shape_${Object.keys(defs).length + 1}`;
    while (Object.hasOwn(defs, name)) name += '_';
    defs[name] = JSON.parse(text) as Obj;
    for (const { parent, key } of holders) parent[key] = { $ref: `#/$defs/${name}` };
  }
  if (Object.keys(defs).length > 0) root.$defs = defs;
  return root;
}

