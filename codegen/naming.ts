/**
 * Tool and argument names: the document's tool prefix (`x-kobana-codegen.toolPrefix`, none by
 * default) + snake_case(operationId), a name derived from method and path when there is no usable
 * operationId (none, or nothing left of it in snake_case ASCII), deterministic truncation, a hash
 * suffix of method and path when names would clash, and the validity rule. Clashes are found by
 * plan-spec.ts, which sees every operation.
 */
import { createHash } from 'node:crypto';
import { toSnakeCase } from '../src/runtime/tool-view.js';

// Shared with the tool view, which names arguments at run time.
export { toSnakeCase };

export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
const MAX_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

/** File-name suffixes some tools leave in operationIds (`create.yml`): not part of the name. */
const FILE_SUFFIX = /\.(ya?ml|json)$/i;

/**
 * snake_case of a declared operationId when it yields a name (`payables.settle` →
 * `payables_settle`, `create.yml` → `create`); undefined when nothing usable is left (no
 * operationId, or one written only in non-Latin script or punctuation).
 */
export function usableOperationSlug(operationId: string | undefined): string | undefined {
  if (!operationId) return undefined;
  const slug = toSnakeCase(operationId.replace(FILE_SUFFIX, ''));
  return /[a-z]/.test(slug) ? slug : undefined;
}

/** The slug an operation is named by: its usable operationId, else method and path. */
export function operationSlug(operationId: string | undefined, method: string, path: string): string {
  return usableOperationSlug(operationId) ?? deriveOperationSlug(method, path);
}

/** Whether `name` may begin a tool name: a letter (TOOL_NAME_PATTERN). */
export function startsWithLetter(name: string): boolean {
  return /^[a-z]/.test(name);
}

/**
 * The default tool name of one operation (before `x-mcp.name` overrides), after the document's
 * `prefix`. Without a prefix a slug may start with a digit (`2fa.enable`): the method leads it then
 * (`post_2fa_enable`).
 */
export function deriveToolName(prefix: string, operationId: string | undefined, method: string, path: string): string {
  const name = prefix + (operationSlug(operationId, method, path) || 'operation');
  return fitToolName(startsWithLetter(name) ? name : `${method.toLowerCase()}_${name}`);
}

/**
 * `name` made distinct by a hash of what identifies the operation (`GET /v1/x`): stable across
 * runs and independent of the order of the document, at most 64 characters.
 */
export function withHashSuffix(name: string, identity: string): string {
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, HASH_LENGTH);
  const head = name.slice(0, MAX_NAME_LENGTH - HASH_LENGTH - 1).replace(/_+$/, '');
  return `${head}_${hash}`;
}

/** `GET /v1/payables/{id}/links` → `get_v1_payables_by_id_links`. */
export function deriveOperationSlug(method: string, path: string): string {
  const segments = path.split('/').filter(Boolean).map((segment) => {
    const param = /^\{(.+)\}$/.exec(segment);
    return param ? `by_${toSnakeCase(param[1] ?? '')}` : toSnakeCase(segment);
  });
  return [method.toLowerCase(), ...segments].filter(Boolean).join('_');
}

/** Truncates over-long names deterministically, keeping them distinct with a short hash suffix. */
export function fitToolName(name: string): string {
  return name.length <= MAX_NAME_LENGTH ? name : withHashSuffix(name, name);
}

export function isValidToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}

/** The part after the last `.` of an operationId: `payables.cancel` → `cancel`. */
export function extractAction(operationId: string | undefined): string {
  if (!operationId) return '';
  return toSnakeCase(operationId.slice(operationId.lastIndexOf('.') + 1));
}
