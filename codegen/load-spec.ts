/**
 * Reads one OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1) from local files and returns it
 * validated and dereferenced, in this order:
 *
 * 1. parse the root file; rewrite `:id` path templates (repair.ts);
 * 2. bundle every file it references into one object (bundle.ts) — only local files, never the
 *    network; data values (`example`, `examples`, `default`, `const`, …) are never followed;
 * 3. Swagger 2.0: convert to OpenAPI 3.0 with swagger2openapi, then go on as for 3.x;
 * 4. repair the other tolerated constructs (repair.ts), each reported as a SpecWarning;
 * 5. validate against the OpenAPI schema and dereference every internal `$ref` (swagger-parser;
 *    cycles stay as object cycles, json-schema.ts cuts them).
 *
 * A failure is a CodegenError naming the file and pointer (of the file the offending text is in)
 * and the rule broken. Planning is left to plan-*.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { bundleDocument, isDataPointer, parseText, type Bundle } from './bundle.js';
import { buildPointer, CodegenError, parsePointer, type SpecWarning } from './errors.js';
import { dropEmptyPathItems, repairMediaTypes, rewriteColonTemplates } from './repair.js';

/** The dereferenced document, typed loosely on purpose: any valid OpenAPI document is accepted. */
export type OpenApiDocument = Record<string, unknown> & { paths?: Record<string, Record<string, unknown>> };

export interface LoadedSpec {
  /** The spec path as given (posix separators), used in headers and error messages. */
  readonly file: string;
  /** Of the root file's bytes, followed (multi-file documents) by every other file's path and bytes. */
  readonly sha256: string;
  /** The OpenAPI version planned: a Swagger 2.0 document is planned as its 3.0 conversion. */
  readonly openapi: '3.0' | '3.1';
  /** The version the document was written in. */
  readonly source: '2.0' | '3.0' | '3.1';
  readonly document: OpenApiDocument;
  /** Files read: the root and every file it references (the progress line of the load phase). */
  readonly fileCount: number;
  /** Tolerated constructs found (and repaired in memory); `--strict` makes them errors. */
  readonly warnings: readonly SpecWarning[];
}

type Obj = Record<string, unknown>;

/** Loads, bundles, converts, validates and dereferences `file`; throws CodegenError naming the file and pointer. */
export async function loadSpec(file: string): Promise<LoadedSpec> {
  const absolute = path.resolve(file);
  const display = displayPath(absolute);
  let bytes: Buffer;
  try {
    bytes = readFileSync(absolute);
  } catch {
    throw new CodegenError('INVALID_DOCUMENT', display, '#', 'cannot read the spec file');
  }
  const raw = parseDocument(bytes.toString('utf8'), display);
  const source = detectVersion(raw, display);
  const warnings: SpecWarning[] = rewriteColonTemplates(raw, display);
  const bundle = bundleDocument(absolute, raw, { copyEveryTime: source === '2.0', display: displayPath });
  warnings.push(...bundle.warnings);
  let document = bundle.document;
  // Pointers of a converted document are those of its 3.0 form: messages name the root file and say so.
  let locate: Bundle['locate'] = bundle.locate;
  if (source === '2.0') {
    document = await convertSwagger2(document, display);
    locate = (pointer) => ({ file: `${display} (as OpenAPI 3.0)`, pointer: buildPointer(...parsePointer(pointer)) });
  }
  warnings.push(...dropEmptyPathItems(document, locate), ...repairMediaTypes(document, locate));
  const validated = await validateDocument(absolute, document, locate, source === '3.1' ? '3.1' : '3.0');
  return {
    file: display,
    sha256: hashFiles(bytes, bundle.files.slice(1)),
    openapi: source === '3.1' ? '3.1' : '3.0',
    source,
    document: validated,
    fileCount: bundle.files.length,
    warnings,
  };
}

/** Relative to the working directory when inside it (so `./openapi/v1.yaml` and `openapi/v1.yaml` agree). */
function displayPath(absolute: string): string {
  const relative = path.relative(process.cwd(), absolute);
  const shown = relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : absolute;
  return shown.split(path.sep).join('/');
}

function parseDocument(text: string, display: string): Obj {
  let value: unknown;
  try {
    value = parseText(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : 'parse error';
    throw new CodegenError('INVALID_DOCUMENT', display, '#', `not valid YAML/JSON (${reason})`);
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Obj;
  throw new CodegenError('INVALID_DOCUMENT', display, '#', 'the document is not an object');
}

function detectVersion(raw: Obj, display: string): LoadedSpec['source'] {
  if (String(raw.swagger ?? '') === '2.0') return '2.0';
  const version = String(raw.openapi ?? '');
  if (/^3\.0\.\d/.test(version)) return '3.0';
  if (/^3\.1\.\d/.test(version)) return '3.1';
  throw new CodegenError('INVALID_DOCUMENT', display, raw.openapi === undefined ? '#' : '#/openapi',
    'only Swagger 2.0 and OpenAPI 3.0.x/3.1.x documents are supported (field "swagger": "2.0" or "openapi": "3.x.y")');
}

/** One hash over every file the document is made of, so an edit in any of them shows in the registry header. */
function hashFiles(root: Buffer, others: readonly string[]): string {
  const hash = createHash('sha256').update(root);
  for (const other of [...others].sort()) hash.update(`\0${displayPath(other)}\0`).update(readFileSync(other));
  return hash.digest('hex');
}

/**
 * swagger2openapi on the bundled object: no resolving (nothing external is left), no network.
 * Imported here, not at the top: only Swagger 2.0 documents need it (70 ms of a 3.x run's CPU).
 */
async function convertSwagger2(document: Obj, display: string): Promise<Obj> {
  try {
    // patch + warnOnly: minor faults are fixed, not fatal; `text` given so it does not dump the whole document as YAML.
    const { default: swagger2openapi } = await import('swagger2openapi');
    const converted = await swagger2openapi.convertObj(document as never, { patch: true, warnOnly: true, resolve: false, direct: true, text: '{}' } as never);
    return converted as unknown as Obj;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new CodegenError('INVALID_DOCUMENT', display, '#', `the Swagger 2.0 document cannot be converted to OpenAPI 3.0: ${reason}`);
  }
}

async function validateDocument(absolute: string, document: Obj, locate: Bundle['locate'], version: '3.0' | '3.1'): Promise<OpenApiDocument> {
  try {
    const validated = await SwaggerParser.validate(absolute, document as never, {
      // Everything external was bundled; data values (examples…) are never dereferenced.
      resolve: { external: false, http: false },
      dereference: { circular: true, excludedPathMatcher: (pointer: string) => isDataPointer(pointer) },
      validate: { schema: true, spec: true },
    } as never);
    return validated as unknown as OpenApiDocument;
  } catch (error) {
    throw toCodegenError(error, locate, version);
  }
}

interface SchemaViolation { instancePath?: string; keyword?: string; message?: string; params?: Record<string, unknown> }

function toCodegenError(error: unknown, locate: Bundle['locate'], version: '3.0' | '3.1'): CodegenError {
  if (error instanceof CodegenError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const details = (error as { details?: SchemaViolation[] }).details;
  if (Array.isArray(details) && details.length > 0) {
    // The deepest violation names the offending place; the shallower ones are its consequences (oneOf, anyOf).
    const deepest = details.reduce((best, each) => ((each.instancePath ?? '').split('/').length > (best.instancePath ?? '').split('/').length ? each : best));
    const where = locate(`#${deepest.instancePath ?? ''}`);
    const extra = deepest.keyword === 'additionalProperties' && deepest.params?.additionalProperty !== undefined ? ` (${JSON.stringify(deepest.params.additionalProperty)})` : '';
    return new CodegenError('INVALID_DOCUMENT', where.file, where.pointer,
      `invalid OpenAPI document: ${deepest.message ?? 'schema violation'}${extra} [OpenAPI ${version} schema: ${deepest.keyword ?? 'rule'}]`);
  }
  const firstLine = message.split('\n').filter((line) => line.trim())[0]?.trim() ?? 'invalid document';
  const pointer = /(#?\/(?:paths|components|webhooks)\/[^\s"']+)/.exec(message)?.[1];
  const where = locate(pointer ? (pointer.startsWith('#') ? pointer : `#${pointer}`) : '#');
  if (/Unable to resolve \$ref|Missing \$ref pointer|Token ".*" does not exist/i.test(message)) {
    return new CodegenError('INVALID_DOCUMENT', where.file, where.pointer, `invalid OpenAPI document: ${firstLine} [$ref target must exist]`);
  }
  return new CodegenError('INVALID_DOCUMENT', where.file, where.pointer, `invalid OpenAPI document: ${firstLine}`);
}
