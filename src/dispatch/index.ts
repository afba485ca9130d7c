/**
 * The dispatcher's public surface: MCP reaches operations only through these functions
 * (docs/architecture.md#layers-and-import-rules: `src/mcp` never imports `src/api` directly).
 */
export { buildToolInput, isListTool, DEFAULT_LIST_LIMIT, type ToolInput } from './tool-input.js';
export { compileArgumentValidators, type ArgumentValidator } from './tool-arguments.js';
export {
  runToolCall,
  type CallConfirmation,
  type ToolCallDeps,
  type ToolCallOutcome,
  type ToolCallRequest,
} from './tool-call.js';
export { ApiError, serviceUnavailable, type ServiceUnavailableReason } from '../api/index.js';
export type { Caller, FileOutput, OperationOutput } from '../api/index.js';
export type { ConfirmationProof, OperationService, PreparedCall } from '../api/index.js';
