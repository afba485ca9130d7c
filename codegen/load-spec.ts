/**
 * Reads one OpenAPI 3.0/3.1 document from local files, validates it and dereferences every `$ref`
 * (cycles stay as object cycles; json-schema.ts cuts them). Only local files are ever read: a
 * remote `$ref` is an error raised before any network access. Planning is left to plan-*.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { parse as parseYaml } from 'yaml';
import { buildPointer, CodegenError } from './errors.js';

/** The dereferenced document, typed loosely on purpose: any valid OpenAPI document is accepted. */
export type OpenApiDocument = Record<string, unknown> & { paths?: Record<string, Record<string, unknown>> };

export interface LoadedSpec {
  /** The spec path as given (posix separators), used in headers and error messages. */
  readonly file: string;
  readonly sha256: string;
  readonly openapi: '3.0' | '3.1';
  readonly document: OpenApiDocument;
}

const REMOTE_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Loads, validates and dereferences `file`; throws CodegenError naming the file and pointer. */
export async function loadSpec(file: string): Promise<LoadedSpec> {
  const absolute = path.resolve(file);
  const display = displayPath(absolute);
  let bytes: Buffer;
  try {
    bytes = readFileSync(absolute);
  } catch {
    throw new CodegenError('INVALID_DOCUMENT', display, '#', 'cannot read the spec file');
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const raw = parseDocument(bytes.toString('utf8'), display);
  assertNoRemoteRefs(raw, display, []);
  const version = String((raw as Record<string, unknown>).openapi ?? '');
  if (!/^3\.[01]\./.test(version)) {
    throw new CodegenError('INVALID_DOCUMENT', display, '#/openapi', 'only OpenAPI 3.0.x and 3.1.x documents are supported');
  }
  const document = await validateDocument(absolute, raw, display);
  return { file: display, sha256, openapi: version.startsWith('3.0') ? '3.0' : '3.1', document };
}

/** Relative to the working directory when inside it (so `./openapi/v1.yaml` and `openapi/v1.yaml` agree). */
function displayPath(absolute: string): string {
  const relative = path.relative(process.cwd(), absolute);
  const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : absolute;
  return shown.split(path.sep).join('/');
}

function parseDocument(text: string, display: string): object {
  try {
    const value: unknown = text.trimStart().startsWith('{') ? JSON.parse(text) : parseYaml(text, { maxAliasCount: -1 });
    if (value && typeof value === 'object' && !Array.isArray(value)) return value;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : 'parse error';
    throw new CodegenError('INVALID_DOCUMENT', display, '#', `not valid YAML/JSON (${reason})`);
  }
  throw new CodegenError('INVALID_DOCUMENT', display, '#', 'the document is not an object');
}

/** Finds remote `$ref`s in the root document first, so the error can name the exact pointer. */
function assertNoRemoteRefs(node: unknown, display: string, tokens: string[]): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    node.forEach((item, index) => assertNoRemoteRefs(item, display, [...tokens, String(index)]));
    return;
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && REMOTE_URL.test(value) && !value.startsWith('file:')) {
      throw new CodegenError('REMOTE_REF', display, buildPointer(...tokens, '$ref'),
        'remote $ref is not allowed: only local files are read (the generator never fetches URLs)');
    }
    assertNoRemoteRefs(value, display, [...tokens, key]);
  }
}

async function validateDocument(absolute: string, raw: object, display: string): Promise<OpenApiDocument> {
  try {
    // `http: false` removes the built-in fetcher; the `remote` resolver turns any other URL
    // scheme (found in an external file) into an error instead of a silent skip.
    const validated = await SwaggerParser.validate(absolute, raw as never, {
      resolve: {
        http: false,
        external: true,
        remote: { order: 1, canRead: (info: { url: string }) => REMOTE_URL.test(info.url) && !info.url.startsWith('file:'), read: rejectRemote },
      },
      dereference: { circular: true },
      validate: { schema: true, spec: true },
    } as never);
    return validated as unknown as OpenApiDocument;
  } catch (error) {
    throw toCodegenError(error, display);
  }
}

function rejectRemote(): never {
  throw new Error('REMOTE_REF');
}

function toCodegenError(error: unknown, display: string): CodegenError {
  if (error instanceof CodegenError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const details = (error as { details?: Array<{ instancePath?: string; message?: string }> }).details;
  if (/REMOTE_REF|(Unable to resolve \$ref pointer|Error reading file) "[a-z][a-z0-9+.-]*:\/\//i.test(message)) {
    return new CodegenError('REMOTE_REF', display, '#', 'remote $ref in a referenced file is not allowed: only local files are read');
  }
  if (details && details[0]) {
    const first = details[0];
    return new CodegenError('INVALID_DOCUMENT', display, '#' + (first.instancePath ?? ''), `invalid OpenAPI document: ${first.message ?? 'schema violation'}`);
  }
  const pointer = /(#?\/paths\/[^\s"']+)/.exec(message)?.[1];
  const firstLine = message.split('\n').filter((l) => l.trim())[0] ?? 'invalid document';
  return new CodegenError('INVALID_DOCUMENT', display, pointer ? (pointer.startsWith('#') ? pointer : '#' + pointer) : '#', `invalid OpenAPI document: ${firstLine.trim()}`);
}
