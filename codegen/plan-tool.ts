/**
 * The MCP side of one operation at build time: its tool name (`x-mcp.name`, or derived after the
 * document's tool prefix). The tool itself is built by plan-spec.ts's run of the views
 * (src/runtime/views.ts), so a tool that cannot be built fails the build instead of the server at
 * start-up. Uniqueness across tools is plan-spec.ts's job.
 */
import { CodegenError } from './errors.js';
import { deriveToolName, isValidToolName, TOOL_NAME_PATTERN } from './naming.js';
import type { OperationModel } from './plan-operation.js';

export function planToolName(model: OperationModel, prefix: string): string {
  if (model.mcp.name !== undefined) {
    // An explicit name is a promise to clients: never silently rewrite it.
    if (!isValidToolName(model.mcp.name)) {
      throw new CodegenError('INVALID_NAME', model.file, model.pointer + '/x-mcp/name',
        `x-mcp.name of operation ${model.ref.operationId} must match ${TOOL_NAME_PATTERN.source}`);
    }
    return model.mcp.name;
  }
  return deriveToolName(prefix, model.declaredOperationId, model.ref.method, model.ref.path);
}
