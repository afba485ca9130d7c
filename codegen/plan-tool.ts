/**
 * The ToolDefinition of one operation: name (derived or `x-mcp.name`), title, description,
 * input schema, annotations and dispatch target. Uniqueness across tools is plan-spec.ts's job.
 */
import type { ToolDefinition } from '../src/runtime/types.js';
import { planAnnotations } from './annotations.js';
import { CodegenError } from './errors.js';
import { planInput } from './input-schema.js';
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

export function planTool(model: OperationModel): ToolDefinition {
  const { inputSchema, args } = planInput(model);
  return {
    name: planToolName(model),
    title: model.title,
    description: model.description,
    inputSchema,
    annotations: planAnnotations(model.ref, model.title),
    operation: model.ref,
    args,
  };
}
