/**
 * What the resources, prompts and completions features need from the rest of the server: the
 * operation service (every read goes through its checks), the database (scoped lookups for
 * completions), and the generated tools and resource templates. Wiring is `src/app.ts`'s job.
 */
import type { Kysely } from 'kysely';
import type { OperationService } from '../../../api/index.js';
import type { ResourceTemplateDefinition, ToolDefinition, OperationRef } from '../../../runtime/types.js';
import type { Database } from '../../../store/schema.js';

export interface FinanceFeatureDeps {
  readonly operations: OperationService;
  readonly db: Kysely<Database>;
  readonly tools: readonly ToolDefinition[];
  readonly resourceTemplates: readonly ResourceTemplateDefinition[];
}

/** The operation behind a tool name, or undefined when the registry has no such tool. */
export function findToolOperation(tools: readonly ToolDefinition[], toolName: string): OperationRef | undefined {
  return tools.find((tool) => tool.name === toolName)?.operation;
}

/** The operation with this id (any tool that runs it), or undefined. */
export function findOperation(tools: readonly ToolDefinition[], operationId: string): OperationRef | undefined {
  return tools.find((tool) => tool.operation.operationId === operationId)?.operation;
}
