/**
 * Tool and argument names: `finance_` + snake_case(operationId), a name derived from method and
 * path when there is no operationId, deterministic truncation, and the validity rule. Uniqueness
 * across operations is checked by plan-spec.ts, which sees them all.
 */
import { createHash } from 'node:crypto';
import { toSnakeCase } from '../src/runtime/tool-view.js';

// Shared with the tool view, which names arguments at run time.
export { toSnakeCase };

export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
const TOOL_PREFIX = 'finance_';
const MAX_NAME_LENGTH = 64;
const HASH_LENGTH = 8;

/** The default tool name of one operation (before `x-mcp.name` overrides). */
export function deriveToolName(operationId: string | undefined, method: string, path: string): string {
  const base = operationId ? toSnakeCase(operationId) : deriveOperationSlug(method, path);
  return fitToolName(TOOL_PREFIX + (base || 'operation'));
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
  if (name.length <= MAX_NAME_LENGTH) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, HASH_LENGTH);
  const head = name.slice(0, MAX_NAME_LENGTH - HASH_LENGTH - 1).replace(/_+$/, '');
  return `${head}_${hash}`;
}

export function isValidToolName(name: string): boolean {
  return TOOL_NAME_PATTERN.test(name);
}

/** The part after the last `.` of an operationId: `payables.cancel` → `cancel`. */
export function extractAction(operationId: string | undefined): string {
  if (!operationId) return '';
  return toSnakeCase(operationId.slice(operationId.lastIndexOf('.') + 1));
}
