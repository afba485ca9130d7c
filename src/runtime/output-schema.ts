/**
 * The `outputSchema` of a tool (MCP 2025-06-18 §tools, output schema): the schema of its
 * `structuredContent`, built from the operation's success response. Compact on purpose — it is
 * sent in every `tools/list` — so it keeps what a client validates and a model reads (types,
 * formats, enums, the shape) and drops prose and constraints (descriptions, examples, defaults,
 * patterns, bounds). `required` is dropped below the top level too: `fields` (sparse fieldsets)
 * may leave any property of a record out. MCP wants `type: "object"` at the top, so a body that
 * is not an object is wrapped as `{result: <body>}` (the SDKs' convention); a file answer is
 * described by its metadata (src/mcp/tools/result.ts); an empty answer (204) has no schema.
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

/** The output of an operation's tool; null when the operation answers nothing. */
export function toToolOutput(response: SuccessResponse): ToolOutput | null {
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
    const getter = getters.get(JSON.stringify(tool.output.schema));
    if (getter === undefined) return tool;
    const id = (tool.output.schema.properties as Obj | undefined)?.['id'];
    const schema: JsonSchema = {
      type: 'object',
      description: `The record, as ${getter} returns it (its outputSchema).`,
      ...(isPlainObject(id) ? { properties: { id } } : {}),
    };
    return { ...tool, output: { schema, wrapped: false, sameAs: getter } };
  });
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

