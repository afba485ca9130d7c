/**
 * MCP tool annotations: a view of the operation's classification (codegen/classify.ts, where
 * `x-mcp.annotations` overrides are read), so the hints and the runtime's confirmation guard
 * always agree. The hints are advisory for clients; enforcement lives in src/api/execute.ts.
 */
import type { OperationRef, ToolAnnotations } from '../src/runtime/types.js';

export function planAnnotations(operation: OperationRef, title: string): ToolAnnotations {
  return {
    title,
    readOnlyHint: operation.readOnly,
    destructiveHint: operation.destructive,
    idempotentHint: operation.idempotent,
    openWorldHint: false,
  };
}
