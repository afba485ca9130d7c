/**
 * The model-visible token cost of one tool: what a client puts in a model's function list — its
 * name, description and JSON `inputSchema` — in o200k tokens (gpt-tokenizer). One definition, read by
 * the change report (the review copy's `tokens`) and by test/mcp/token-budget.test.ts's budgets.
 */
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

export interface ModelVisibleTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: unknown;
}

export function countModelVisible(tool: ModelVisibleTool): number {
  return countTokens(tool.name) + countTokens(tool.description) + countTokens(JSON.stringify(tool.inputSchema));
}
