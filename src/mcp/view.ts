/**
 * The view of one `/mcp` request (docs/protocol.md#views): which tools the client wants to see
 * and in which schema form, read from the URL or the headers a client is configured with, on
 * every request (nothing is kept between requests).
 *
 *   ?toolsets=payables,receivables   X-MCP-Toolsets: payables,receivables   (toolsets = spec tags)
 *   ?read_only=true                  X-MCP-Readonly: true                    (read-only tools only)
 *   ?schema=openai|gemini            X-MCP-Schema: openai|gemini             (inputSchema form)
 *
 * A view only narrows what scope ∩ permission already allows; a tool it hides answers
 * `tools/call` exactly like an unknown tool. When both the URL and a header name toolsets, a tool
 * must be in both; read-only is on when either says so; two different schema forms are an error.
 * An unknown toolset, a read-only value other than true/false/1/0, or an unknown schema form is
 * refused with HTTP 400 and JSON-RPC -32602 naming what is accepted, for every method: a
 * misconfigured client learns it at its first request instead of seeing an empty tool list.
 */
import { SCHEMA_PROFILES, type SchemaProfile } from '../runtime/schema-profiles.js';
import type { ToolDefinition } from '../runtime/types.js';
import type { HeaderReader } from './headers.js';
import { INVALID_PARAMS, JsonRpcError } from './json-rpc.js';

export interface ToolView {
  /** null: every toolset. */
  readonly toolsets: ReadonlySet<string> | null;
  readonly readOnly: boolean;
  readonly schemaProfile: SchemaProfile;
}

export const DEFAULT_VIEW: ToolView = Object.freeze({ toolsets: null, readOnly: false, schemaProfile: 'canonical' });

/** The query string as Koa parses it (a repeated name gives an array). */
export type QueryReader = Readonly<Record<string, string | string[] | undefined>>;

const VIEW_QUERY = { toolsets: 'toolsets', readOnly: 'read_only', schema: 'schema' } as const;
const VIEW_HEADERS = { toolsets: 'x-mcp-toolsets', readOnly: 'x-mcp-readonly', schema: 'x-mcp-schema' } as const;

const TRUE_VALUES = new Set(['true', '1']);
const FALSE_VALUES = new Set(['false', '0']);

/** Whether the view shows the tool (applied after scope ∩ permission, which the catalog checks). */
export function viewShows(view: ToolView, tool: ToolDefinition): boolean {
  if (view.readOnly && !tool.operation.readOnly) return false;
  return view.toolsets === null || tool.toolsets.some((toolset) => view.toolsets!.has(toolset));
}

/** Reads the view of one request; throws -32602 (HTTP 400) for a value it does not know. */
export function readToolView(query: QueryReader, readHeader: HeaderReader, knownToolsets: ReadonlySet<string>): ToolView {
  const fromQuery = readToolsets(values(query[VIEW_QUERY.toolsets]), knownToolsets);
  const fromHeader = readToolsets(values(readHeader(VIEW_HEADERS.toolsets)), knownToolsets);
  const toolsets = fromQuery === null ? fromHeader : fromHeader === null ? fromQuery : new Set([...fromQuery].filter((name) => fromHeader.has(name)));
  const readOnly = readFlag(values(query[VIEW_QUERY.readOnly])) || readFlag(values(readHeader(VIEW_HEADERS.readOnly)));
  const profiles = new Set([...values(query[VIEW_QUERY.schema]), ...values(readHeader(VIEW_HEADERS.schema))].map(readProfile));
  if (profiles.size > 1) throw invalidView('Conflicting schema forms in the URL and headers', { schema: SCHEMA_PROFILES });
  const schemaProfile = [...profiles][0] ?? 'canonical';
  if (toolsets === null && !readOnly && schemaProfile === 'canonical') return DEFAULT_VIEW;
  return { toolsets, readOnly, schemaProfile };
}

/** Comma-separated values, trimmed, empty ones dropped (`?toolsets=` is no filter). */
function values(raw: string | readonly string[] | undefined): string[] {
  if (raw === undefined) return [];
  const all = typeof raw === 'string' ? [raw] : raw;
  return all.flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '');
}

function readToolsets(names: readonly string[], known: ReadonlySet<string>): ReadonlySet<string> | null {
  if (names.length === 0) return null;
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) throw invalidView(`Unknown toolset: ${unknown.slice(0, 5).map((name) => name.slice(0, 40)).join(', ')}`, { toolsets: [...known].sort() });
  return new Set(names);
}

function readFlag(texts: readonly string[]): boolean {
  let on = false;
  for (const text of texts) {
    const value = text.toLowerCase();
    if (TRUE_VALUES.has(value)) on = true;
    else if (!FALSE_VALUES.has(value)) throw invalidView('Read-only must be true or false', { read_only: ['true', 'false'] });
  }
  return on;
}

function readProfile(text: string): SchemaProfile {
  const value = text.toLowerCase();
  const profile = SCHEMA_PROFILES.find((name) => name === value);
  if (profile === undefined) throw invalidView(`Unknown schema form: ${text.slice(0, 40)}`, { schema: SCHEMA_PROFILES });
  return profile;
}

/** `data.accepted` lists what the client may send instead. */
function invalidView(message: string, accepted: Readonly<Record<string, readonly string[]>>): JsonRpcError {
  return new JsonRpcError(INVALID_PARAMS, message, 400, { accepted });
}
