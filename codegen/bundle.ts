/**
 * Bundles a document that may span several local files into one object before anything validates
 * it: every `$ref` to another file is replaced by a copy of its target (placed where it is first
 * referenced; later references to the same target point there), so the validator and the
 * dereferencer only ever see internal references. Only local files are read: a remote `$ref` fails
 * here, naming its file and pointer, before any network access. Every reference that cannot be
 * followed (a file or pointer that does not exist, an unreadable file, a remote URL) is reported,
 * all of them at once (an AggregateError of CodegenErrors when there are several).
 *
 * Values that are data — `example`, `examples`, `default`, `const`, `enum` and foreign `x-*`
 * extensions — are copied as they are: a `$ref` key inside them is part of the data, never
 * followed and never an error (isDataKey).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load as loadYaml } from 'js-yaml';
import { buildPointer, CodegenError, parsePointer, type SpecWarning } from './errors.js';
import { setOwn } from '../src/runtime/values.js';

type Obj = Record<string, unknown>;

/** Any `scheme://…` but `file:`. */
const REMOTE_URL = /^(?!file:)[a-z][a-z0-9+.-]*:\/\//i;
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum']);
/** Our extensions are read by the planner, so a `$ref` inside them is followed like any other. */
const OWN_EXTENSION = /^x-(mcp|kobana)(-|$)/;
/**
 * Objects whose keys are names chosen by the author (a property called `default`, a response
 * called `default`), not keywords: under them a data key is an ordinary name.
 */
const NAME_MAPS = new Set([
  'properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'responses', 'schemas', 'parameters',
  'headers', 'requestBodies', 'securitySchemes', 'securityDefinitions', 'links', 'callbacks', 'pathItems', 'content',
  'encoding', 'variables', 'mapping', 'paths', 'webhooks', 'scopes',
]);
export const OPERATION_KEYS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** True when the keys of the object under `key` are names, not keywords (e.g. a property called `content`). */
export function isNameMap(key: string): boolean {
  return NAME_MAPS.has(key);
}

/** True when the value under `key` (in an object that sits under `parentKey`) is data, not OpenAPI structure. */
export function isDataKey(key: string, parentKey: string | undefined): boolean {
  if (parentKey !== undefined && NAME_MAPS.has(parentKey)) return false;
  return DATA_KEYS.has(key) || (key.startsWith('x-') && !OWN_EXTENSION.test(key));
}

/** Any token that can be a data key (isDataKey); most pointers have none and are answered at once. */
const MAYBE_DATA = /\/(example|default|const|enum|x-)/;

/** True when a pointer of the bundled document lies inside data (see isDataKey). */
export function isDataPointer(pointer: string): boolean {
  if (!MAYBE_DATA.test(pointer)) return false;
  const tokens = parsePointer(pointer.slice(pointer.indexOf('#')));
  return tokens.some((token, index) => isDataKey(token, tokens[index - 1]));
}

export interface Bundle {
  readonly document: Obj;
  /** Every file read (absolute paths, the root first), for the spec's hash. */
  readonly files: readonly string[];
  readonly warnings: readonly SpecWarning[];
  /** Where a place of the bundled document was written: the file and pointer its text came from. */
  locate(pointer: string): { readonly file: string; readonly pointer: string };
}

export interface BundleOptions {
  /**
   * Swagger 2.0: a target in another file is copied at every reference, as the converter moves
   * bodies and definitions and a pointer into the bundle would not survive it (references into
   * the root document, `#/definitions/…`, are kept: the converter rewrites them).
   */
  readonly copyEveryTime: boolean;
  /** Absolute path → the name used in messages. */
  readonly display: (absolute: string) => string;
}

/** Bundles the parsed root document `root` of the file `rootFile` (absolute). */
export function bundleDocument(rootFile: string, root: Obj, options: BundleOptions): Bundle {
  const bundler = new Bundler(rootFile, root, options);
  const document = bundler.copy(root, rootFile, [], []) as Obj;
  const broken = [...bundler.broken.values()];
  // Every reference that cannot be followed, at once: a document with many is fixed in one pass.
  if (broken.length === 1) throw broken[0];
  if (broken.length > 1) throw new AggregateError(broken, `${broken.length} $refs cannot be followed`);
  return {
    document,
    files: [...bundler.parsed.keys()],
    warnings: bundler.warnings,
    locate: (pointer) => bundler.locate(pointer),
  };
}

class Bundler {
  readonly parsed = new Map<string, unknown>();
  readonly warnings: SpecWarning[] = [];
  /** The references that cannot be followed (dangling, unreadable or remote), by message: reported together. */
  readonly broken = new Map<string, CodegenError>();
  /** `file#pointer` of a target → the pointer of its copy in the bundle. */
  private readonly placed = new Map<string, string>();
  /** Pointer in the bundle → where the copy placed there came from. */
  private readonly origins = new Map<string, { file: string; pointer: string }>();

  constructor(private readonly rootFile: string, root: Obj, private readonly options: BundleOptions) {
    this.parsed.set(rootFile, root);
  }

  /** Copies `node` (at `at` in `file`) to `into` in the bundle, following references outside data. */
  copy(node: unknown, file: string, at: readonly string[], into: readonly string[]): unknown {
    if (Array.isArray(node)) return node.map((item, index) => this.copy(item, file, [...at, String(index)], [...into, String(index)]));
    if (!node || typeof node !== 'object') return node;
    const object = node as Obj;
    if (typeof object.$ref === 'string') return this.follow(object, file, at, into);
    const out: Obj = {};
    const parentKey = into[into.length - 1];
    for (const [key, value] of Object.entries(object)) {
      setOwn(out, key, isDataKey(key, parentKey) ? value : this.copy(value, file, [...at, key], [...into, key]));
    }
    return out;
  }

  locate(pointer: string): { file: string; pointer: string } {
    const tokens = parsePointer(pointer);
    for (let length = tokens.length; length > 0; length -= 1) {
      const origin = this.origins.get(buildPointer(...tokens.slice(0, length)));
      if (origin) return { file: origin.file, pointer: origin.pointer + buildPointer(...tokens.slice(length)).slice(1) };
    }
    return { file: this.options.display(this.rootFile), pointer: buildPointer(...tokens) };
  }

  /** A reference that cannot be followed is recorded and left as it is written, so the walk goes on. */
  private follow(reference: Obj, file: string, at: readonly string[], into: readonly string[]): unknown {
    try {
      return this.followOrThrow(reference, file, at, into);
    } catch (error) {
      if (!(error instanceof CodegenError)) throw error;
      this.broken.set(error.message, error);
      return { ...reference };
    }
  }

  private followOrThrow(reference: Obj, file: string, at: readonly string[], into: readonly string[]): unknown {
    const ref = reference.$ref as string;
    const where = { file: this.options.display(file), pointer: buildPointer(...at, '$ref') };
    if (REMOTE_URL.test(ref)) {
      throw new CodegenError('REMOTE_REF', where.file, where.pointer, 'remote $ref is not allowed: only local files are read (the generator never fetches URLs)');
    }
    if (into.length === 3 && into[0] === 'paths' && OPERATION_KEYS.has(into[2] ?? '')) {
      this.warnings.push({ rule: 'OPERATION_REF', ...where, detail: `the ${into[2]} operation of ${into[1]} is a $ref (only path items may be references); it is read from ${ref}` });
    }
    const siblings = Object.keys(reference).filter((key) => key !== '$ref');
    const target = this.resolve(ref, file, where);
    if (target.file === this.rootFile) {
      // The root document is copied in place, so its own pointers stay valid in the bundle.
      return this.copySiblings({ $ref: buildPointer(...target.tokens) }, reference, siblings, file, at, into);
    }
    const key = `${target.file}${buildPointer(...target.tokens)}`;
    const existing = this.placed.get(key);
    if (existing !== undefined) return this.copySiblings({ $ref: existing }, reference, siblings, file, at, into);
    const here = buildPointer(...into);
    this.placed.set(key, here);
    this.origins.set(here, { file: this.options.display(target.file), pointer: buildPointer(...target.tokens) });
    const copied = this.copy(target.value, target.file, target.tokens, into);
    // Copied again at the next reference: only a reference from inside the copy (a cycle) points here.
    if (this.options.copyEveryTime || siblings.length > 0) this.placed.delete(key);
    if (siblings.length === 0 || !copied || typeof copied !== 'object' || Array.isArray(copied)) return copied;
    // OpenAPI 3.1 lets a reference carry its own summary/description: they win over the target's.
    return this.copySiblings(copied as Obj, reference, siblings, file, at, into);
  }

  private copySiblings(base: Obj, reference: Obj, siblings: readonly string[], file: string, at: readonly string[], into: readonly string[]): Obj {
    const out: Obj = { ...base };
    const parentKey = into[into.length - 1];
    for (const key of siblings) out[key] = isDataKey(key, parentKey) ? reference[key] : this.copy(reference[key], file, [...at, key], [...into, key]);
    return out;
  }

  /** The value a `$ref` written in `file` points at, with the file and pointer it was found at. */
  private resolve(ref: string, file: string, where: { file: string; pointer: string }): { file: string; tokens: string[]; value: unknown } {
    const hash = ref.indexOf('#');
    const location = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? '' : ref.slice(hash);
    const targetFile = location === '' ? file : this.locateFile(location, file, where);
    let tokens = parsePointer(fragment);
    let current = targetFile;
    let node = this.load(targetFile, where, ref);
    // A pointer may pass through another reference (`a.yaml#/b/c` where `b` is a `$ref`).
    for (let index = 0; index < tokens.length; index += 1) {
      const token = tokens[index] ?? '';
      if (node && typeof node === 'object' && !Array.isArray(node) && typeof (node as Obj).$ref === 'string' && !(token in (node as Obj))) {
        const through = this.resolve((node as Obj).$ref as string, current, where);
        current = through.file;
        tokens = [...through.tokens, ...tokens.slice(index)];
        index = through.tokens.length - 1;
        node = through.value;
        continue;
      }
      if (!node || typeof node !== 'object' || !Object.hasOwn(node, token)) {
        throw new CodegenError('INVALID_DOCUMENT', where.file, where.pointer, `$ref target ${JSON.stringify(ref)} does not exist`);
      }
      node = (node as Obj)[token];
    }
    return { file: current, tokens, value: node };
  }

  private locateFile(location: string, file: string, where: { file: string; pointer: string }): string {
    if (location.startsWith('file:')) return fileURLToPath(location);
    const literal = path.resolve(path.dirname(file), location);
    if (existsSync(literal)) return literal;
    let decoded = location;
    try { decoded = decodeURIComponent(location); } catch { /* keep the literal */ }
    const resolved = path.resolve(path.dirname(file), decoded);
    if (existsSync(resolved)) return resolved;
    throw new CodegenError('INVALID_DOCUMENT', where.file, where.pointer, `$ref file ${JSON.stringify(location)} does not exist`);
  }

  private load(file: string, where: { file: string; pointer: string }, ref: string): unknown {
    if (this.parsed.has(file)) return this.parsed.get(file);
    let value: unknown;
    try {
      value = parseText(readFileSync(file, 'utf8'));
    } catch {
      throw new CodegenError('INVALID_DOCUMENT', where.file, where.pointer, `$ref file of ${JSON.stringify(ref)} is not readable YAML or JSON`);
    }
    this.parsed.set(file, value);
    return value;
  }
}

/**
 * JSON when it looks like JSON, YAML otherwise. js-yaml rather than `yaml`: about ten times faster
 * on a multi-file document of hundreds of files (bench/README.md#codegen); the YAML 1.2 core schema,
 * so `2026-01-01` stays a string, as with `yaml`.
 */
export function parseText(text: string): unknown {
  return text.trimStart().startsWith('{') ? JSON.parse(text) : loadYaml(text, { schema: CORE_SCHEMA });
}
