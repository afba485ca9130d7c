/**
 * The model-visible token cost of one tool: what a client puts in a model's function list — its
 * name, description and JSON `inputSchema` — in o200k tokens (gpt-tokenizer). One definition, read by
 * the change report (the review copy's `tokens`) and by test/mcp/token-budget.test.ts's budgets.
 */
// The package's main entry is its o200k_base encoding (the one token-budget.test.ts names by its
// subpath); the main entry is imported because the import rules' resolver reads no wildcard exports.
import { countTokens } from 'gpt-tokenizer';

export interface ModelVisibleTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: unknown;
}

export function countModelVisible(tool: ModelVisibleTool): number {
  return countTokens(tool.name) + countTokens(tool.description) + countTokens(JSON.stringify(tool.inputSchema));
}
