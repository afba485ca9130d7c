/**
 * The modern-era header cross-check (docs/protocol.md#modern-era-2026-07-28, MCP 2026-07-28 §standard headers):
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` must repeat the body. Values may be
 * sent as `=?base64?<base64 of UTF-8>?=`; an undecodable one is treated as a mismatch.
 */
import { HEADER_MISMATCH, JsonRpcError } from './json-rpc.js';

export type HeaderReader = (lowercaseName: string) => string | undefined;

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The decoded header value; `null` when it is a sentinel that does not decode. */
export function decodeHeaderValue(value: string): string | null {
  const match = SENTINEL.exec(value);
  if (!match) return value;
  const encoded = match[1] ?? '';
  if (!BASE64.test(encoded)) return null;
  const bytes = Buffer.from(encoded, 'base64');
  // Canonical only: `YR==` and `YQ==` both decode to "a"; one header value has one spelling.
  if (bytes.toString('base64') !== encoded) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Throws -32020 (HTTP 400) unless the header is present and, decoded, equals `expected`. */
export function assertHeaderEquals(read: HeaderReader, header: string, expected: string): void {
  const raw = read(header.toLowerCase());
  if (raw === undefined || decodeHeaderValue(raw) !== expected) {
    throw new JsonRpcError(HEADER_MISMATCH, `Header mismatch: ${header}`, 400);
  }
}

/**
 * `Mcp-Name` mirrors `params.name` (tools/call, prompts/get) or `params.uri` (resources/read).
 * Required on tools/call (docs/protocol.md#modern-era-2026-07-28); on the other two the SDK
 * clients send it, so it is verified when present but not demanded.
 */
const NAME_SOURCES: Readonly<Record<string, { field: 'name' | 'uri'; required: boolean }>> = {
  'tools/call': { field: 'name', required: true },
  'prompts/get': { field: 'name', required: false },
  'resources/read': { field: 'uri', required: false },
};

export function assertNameHeader(read: HeaderReader, method: string, params: Readonly<Record<string, unknown>> | undefined): void {
  const source = Object.hasOwn(NAME_SOURCES, method) ? NAME_SOURCES[method] : undefined;
  if (source === undefined) return;
  const value = params?.[source.field];
  // No usable name in the body: nothing to mirror; the method answers -32602 itself.
  if (typeof value !== 'string') return;
  if (!source.required && read('mcp-name') === undefined) return;
  assertHeaderEquals(read, 'Mcp-Name', value);
}
