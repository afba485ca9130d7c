/**
 * Repairs, in memory, the constructs real documents often contain although OpenAPI does not allow
 * them, so they validate and plan like their strict equivalent; each repair is reported as a
 * SpecWarning (errors.ts), which `--strict` turns into an error. Truly invalid documents are left
 * to the validator (load-spec.ts).
 */
import { OPERATION_KEYS, isDataKey, isNameMap } from './bundle.js';
import { buildPointer, type SpecWarning } from './errors.js';

type Obj = Record<string, unknown>;
type Locate = (pointer: string) => { readonly file: string; readonly pointer: string };

const MEDIA_TYPE_KEYS = new Set(['schema', 'example', 'examples', 'encoding']);
/** `type/subtype` with wildcards and parameters (`application/json; charset=utf-8`, `*\/*`). */
const MEDIA_RANGE = /^[\w!#$&^.+*-]+\/[\w!#$&^.+*-]+(\s*;.*)?$/;

/** `/items/:id` → `/items/{id}` in the root document's `paths` (before bundling, so pointers agree). */
export function rewriteColonTemplates(root: Obj, file: string): SpecWarning[] {
  const paths = root.paths;
  if (!paths || typeof paths !== 'object' || Array.isArray(paths)) return [];
  const warnings: SpecWarning[] = [];
  const rewritten: Obj = {};
  for (const [key, item] of Object.entries(paths as Obj)) {
    const templated = key.replace(/\/:([A-Za-z_][\w.-]*)(?=\/|$)/g, '/{$1}');
    if (templated !== key && !Object.hasOwn(paths as Obj, templated)) {
      warnings.push({ rule: 'COLON_PATH_TEMPLATE', file, pointer: buildPointer('paths', key), detail: `path ${key} uses :name segments; read as ${templated}` });
      rewritten[templated] = item;
    } else {
      rewritten[key] = item;
    }
  }
  root.paths = rewritten;
  return warnings;
}

/** Drops null path items and reports items without any operation. */
export function dropEmptyPathItems(document: Obj, locate: Locate): SpecWarning[] {
  const paths = document.paths as Obj | undefined;
  if (!paths || typeof paths !== 'object') return [];
  const warnings: SpecWarning[] = [];
  for (const [key, item] of Object.entries(paths)) {
    const empty = !item || typeof item !== 'object' || ![...OPERATION_KEYS].some((method) => Object.hasOwn(item, method));
    if (!empty) continue;
    warnings.push({ rule: 'EMPTY_PATH_ITEM', ...locate(buildPointer('paths', key)), detail: `path ${key} has no operations` });
    if (!item || typeof item !== 'object') delete paths[key];
  }
  return warnings;
}

/** Drops unknown keys of Media Type Objects and reports `content` keys that are not media ranges. */
export function repairMediaTypes(document: Obj, locate: Locate): SpecWarning[] {
  const warnings: SpecWarning[] = [];
  const visit = (node: unknown, tokens: string[]): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...tokens, String(index)]));
      return;
    }
    const parentKey = tokens[tokens.length - 1];
    for (const [key, value] of Object.entries(node as Obj)) {
      if (isDataKey(key, parentKey)) continue;
      // `content` as a keyword (not a property or parameter called "content").
      if (key === 'content' && value && typeof value === 'object' && !Array.isArray(value) && (parentKey === undefined || !isNameMap(parentKey))) {
        for (const [mediaType, media] of Object.entries(value as Obj)) repairMediaType(mediaType, media, [...tokens, key, mediaType], locate, warnings);
      }
      visit(value, [...tokens, key]);
    }
  };
  visit(document, []);
  return warnings;
}

function repairMediaType(mediaType: string, media: unknown, tokens: string[], locate: Locate, warnings: SpecWarning[]): void {
  if (!MEDIA_RANGE.test(mediaType)) {
    warnings.push({ rule: 'UNKNOWN_MEDIA_TYPE', ...locate(buildPointer(...tokens)), detail: `${JSON.stringify(mediaType)} is not a type/subtype media type` });
  }
  if (!media || typeof media !== 'object' || Array.isArray(media) || typeof (media as Obj).$ref === 'string') return;
  for (const key of Object.keys(media)) {
    if (MEDIA_TYPE_KEYS.has(key) || key.startsWith('x-')) continue;
    warnings.push({ rule: 'UNKNOWN_MEDIA_TYPE_KEY', ...locate(buildPointer(...tokens, key)), detail: `${JSON.stringify(key)} is not a Media Type Object field; ignored` });
    delete (media as Obj)[key];
  }
}

