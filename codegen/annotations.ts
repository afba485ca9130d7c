/**
 * MCP tool annotations from HTTP semantics and Kobana extensions, with `x-mcp.annotations`
 * overrides. The hints are advisory for clients; enforcement (confirmation) lives in src/dispatch.
 */
import type { ToolAnnotations } from '../src/runtime/types.js';
import { CodegenError } from './errors.js';
import { extractAction } from './naming.js';
import type { OperationModel } from './plan-operation.js';

const OVERRIDABLE = ['readOnlyHint', 'destructiveHint', 'idempotentHint'] as const;

/** readOnly = GET; destructive = DELETE, `cancel` or money-moving; idempotent = all but POST. */
export function planAnnotations(model: OperationModel, title: string): ToolAnnotations {
  const { method, movesMoney } = model.ref;
  const hints = {
    readOnlyHint: method === 'GET',
    destructiveHint: method === 'DELETE' || extractAction(model.declaredOperationId) === 'cancel' || movesMoney,
    idempotentHint: method !== 'POST',
  };
  for (const [key, value] of Object.entries(model.mcp.annotations)) {
    const at = `${model.pointer}/x-mcp/annotations/${key}`;
    if (key === 'openWorldHint') {
      // Every tool only touches this server's own data (DOMAIN.md); a true value would be a lie.
      if (value !== false) throw new CodegenError('INVALID_EXTENSION', model.file, at, 'openWorldHint is always false for kobana-finance tools');
      continue;
    }
    if (key === 'title') continue; // the title comes from the operation summary
    if (!(OVERRIDABLE as readonly string[]).includes(key) || typeof value !== 'boolean') {
      throw new CodegenError('INVALID_EXTENSION', model.file, at, `x-mcp.annotations accepts boolean ${OVERRIDABLE.join(', ')}`);
    }
    hints[key as (typeof OVERRIDABLE)[number]] = value;
  }
  return { title, ...hints, openWorldHint: false };
}
