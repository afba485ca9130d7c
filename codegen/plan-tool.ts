/**
 * The MCP side of one operation at build time: its tool name (derived or `x-mcp.name`) and a dry
 * run of the tool view (src/runtime/tool-view.ts), so a tool that cannot be built fails the build
 * instead of the server at start-up (arguments that would share a name are renamed there, never
 * refused). Uniqueness across tools is plan-spec.ts's job.
 */
import { toToolView } from '../src/runtime/tool-view.js';
import type { OperationDefinition, ToolInputView } from '../src/runtime/types.js';
import { CodegenError } from './errors.js';
import { deriveToolName, isValidToolName, TOOL_NAME_PATTERN } from './naming.js';
import type { OperationModel } from './plan-operation.js';

export function planToolName(model: OperationModel): string {
  if (model.mcp.name !== undefined) {
    // An explicit name is a promise to clients: never silently rewrite it.
    if (!isValidToolName(model.mcp.name)) {
      throw new CodegenError('INVALID_NAME', model.file, model.pointer + '/x-mcp/name',
        `x-mcp.name of operation ${model.ref.operationId} must match ${TOOL_NAME_PATTERN.source}`);
    }
    return model.mcp.name;
  }
  return deriveToolName(model.declaredOperationId, model.ref.method, model.ref.path);
}

/** The tool the runtime will build from `definition`. */
export function planTool(definition: OperationDefinition & { readonly toolName: string }): ToolInputView {
  return toToolView(definition);
}
