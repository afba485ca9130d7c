/**
 * A fuzz case (cases.ts) on the wire: the REST request of its route (path and query
 * percent-encoded byte for byte — a lone surrogate as the CESU-8 bytes a naive client sends —
 * filters as `name[op]=v`, `in` lists comma-separated, JSON or multipart body) or the MCP
 * `tools/call` arguments of its tool (placed by the tool's argument map, filters in the tool's
 * own forms: a list for `in`, `{op: value}` for ranges).
 */
import { randomBytes } from 'node:crypto';
import type { JsonSchema, OperationDefinition, ToolDefinition } from '../../../src/runtime/types.js';
import { OMIT, type CanonicalInput, type FuzzCase } from './cases.js';
import { resolveLazy } from './lazy.js';

export interface RestRequest {
  readonly method: string;
  /** Path and query, already percent-encoded. */
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer | null;
}

export interface McpCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/** UTF-8 bytes of `text`, a lone surrogate encoded as if it were a code point (WTF-8). */
function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    let code = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
      i += 1;
    }
    if (code < 0x80) bytes.push(code);
    else if (code < 0x800) bytes.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f));
    else if (code < 0x10000) bytes.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
    else bytes.push(0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f));
  }
  return Buffer.from(bytes);
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

function percentEncode(text: string): string {
  let out = '';
  for (const byte of wtf8(text)) {
    const char = String.fromCharCode(byte);
    out += UNRESERVED.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A value as query or path text: lists comma-separated, null empty. */
function asText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(asText).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** A header value Node sends: visible ASCII as is, anything else percent-encoded. */
function headerText(value: unknown): string {
  const text = asText(value);
  return /^[\x20-\x7e]*$/.test(text) ? text : percentEncode(text);
}

function present(value: unknown): boolean {
  return value !== OMIT && value !== undefined;
}

function multipartBody(input: CanonicalInput, boundary: string): Buffer {
  const multipart = input.multipart;
  if (!multipart) return Buffer.alloc(0);
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(multipart.fields)) {
    if (!present(value)) continue;
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`), wtf8(asText(resolveLazy(value))), Buffer.from('\r\n'));
  }
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${multipart.fileName}"\r\nContent-Type: ${multipart.contentType}\r\n\r\n`),
    multipart.file.get() as Buffer,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return Buffer.concat(parts);
}

export function encodeRest(operation: OperationDefinition, fuzzCase: FuzzCase, token: string, workspace: string): RestRequest {
  const input = fuzzCase.input;
  let path = operation.operation.path;
  for (const name of [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '')) {
    const value = input.path[name];
    path = path.replace(`{${name}}`, present(value) ? percentEncode(asText(resolveLazy(value))) : '');
  }
  const query: string[] = [];
  for (const [name, value] of Object.entries(input.query)) if (present(value)) query.push(`${percentEncode(name)}=${percentEncode(asText(resolveLazy(value)))}`);
  if (input.list) {
    for (const [name, value] of Object.entries(input.list.values)) if (present(value)) query.push(`${name}=${percentEncode(asText(resolveLazy(value)))}`);
    for (const [name, operators] of Object.entries(input.list.filters)) {
      for (const [operator, value] of Object.entries(operators)) {
        if (!present(value)) continue;
        const key = operator === 'eq' ? name : `${name}[${operator}]`;
        query.push(`${percentEncode(key).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${percentEncode(asText(resolveLazy(value)))}`);
      }
    }
  }
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'x-workspace-id': workspace, accept: 'application/json' };
  for (const [name, value] of Object.entries(input.header)) if (present(value)) headers[name.toLowerCase()] = headerText(resolveLazy(value));
  let body: Buffer | null = null;
  if (input.multipart) {
    const boundary = `kf-fuzz-${randomBytes(8).toString('hex')}`;
    headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
    body = multipartBody(input, boundary);
  } else if (input.body !== OMIT) {
    headers['content-type'] = 'application/json';
    body = Buffer.from(JSON.stringify(resolveLazy(input.body)), 'utf8');
  }
  return { method: operation.operation.method, target: query.length > 0 ? `${path}?${query.join('&')}` : path, headers, body };
}

function filterShapes(tool: ToolDefinition): Record<string, JsonSchema> {
  const properties = tool.argumentSchema['properties'] as Record<string, JsonSchema> | undefined;
  return (properties?.['filters']?.['properties'] ?? {}) as Record<string, JsonSchema>;
}

/** Canonical filters in the tool's forms: `[values]` for a list filter, `{op: value}` for a range one, the plain value otherwise. */
function toolFilters(tool: ToolDefinition, filters: Readonly<Record<string, Record<string, unknown>>>): Record<string, unknown> {
  const shapes = filterShapes(tool);
  const out: Record<string, unknown> = {};
  for (const [name, operators] of Object.entries(filters)) {
    const given = Object.entries(operators).filter(([, value]) => present(value));
    if (given.length === 0) continue;
    const shape = shapes[name];
    if (shape?.['type'] === 'array') {
      const list = given.find(([operator]) => operator === 'in')?.[1];
      const eq = given.find(([operator]) => operator === 'eq')?.[1];
      out[name] = list !== undefined ? list : [eq];
    } else if (shape?.['type'] === 'object') {
      out[name] = Object.fromEntries(given);
    } else {
      out[name] = given.find(([operator]) => operator === 'eq')?.[1] ?? given[0]?.[1];
    }
  }
  return out;
}

export function encodeMcp(tool: ToolDefinition, fuzzCase: FuzzCase, workspace: string): McpCall {
  const input = fuzzCase.input;
  const args: Record<string, unknown> = {};
  for (const [argument, target] of Object.entries(tool.args)) {
    let value: unknown;
    if (target.in === 'workspace') value = workspace;
    else if (target.in === 'path') value = input.path[target.name];
    else if (target.in === 'query') value = input.query[target.name];
    else if (target.in === 'header') value = input.header[target.name];
    else if (target.in === 'body') value = input.body === OMIT ? undefined : input.body[target.name];
    else if (input.list) value = target.name === 'filters' ? toolFilters(tool, input.list.filters) : input.list.values[target.name];
    if (target.in === 'list' && target.name === 'filters' && value !== undefined && Object.keys(value as object).length === 0) continue;
    if (present(value)) args[argument] = resolveLazy(value);
  }
  return { tool: tool.name, args };
}
