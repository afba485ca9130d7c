/**
 * The `PromptProvider` of `/mcp` (src/mcp/methods/prompts.ts): lists the prompts whose tools
 * the caller may run and builds a prompt's messages from checked arguments. An unknown or
 * unreachable prompt is `null` (the mcp layer answers -32602); bad arguments throw -32602.
 */
import { readWorkspaceDate, type Caller } from '../../../api/index.js';
import type { MethodContext, PromptProvider } from '../../methods/index.js';
import { findToolOperation, type FinanceFeatureDeps } from '../resources/deps.js';
import { addEraTitle } from '../resources/provider.js';
import { resolvePromptArguments } from './arguments.js';
import { PROMPTS, type PromptDefinition } from './catalog.js';
import { clockDate, systemClock, type Clock } from '../../../runtime/clock.js';

export interface PromptProviderOptions {
  /**
   * The services' clock (src/runtime/clock.ts): the scripts' "today" (the date in the prompt's
   * workspace's time zone, as the lists' `overdue` reads it) and default dates; default the system clock.
   */
  readonly clock?: Clock;
}

export function canRunTool(deps: FinanceFeatureDeps, caller: Caller, toolName: string): boolean {
  const operation = findToolOperation(deps.tools, toolName);
  return operation !== undefined && deps.operations.canReach(caller, operation);
}

export function listReachablePrompts(deps: FinanceFeatureDeps, caller: Caller): PromptDefinition[] {
  return PROMPTS.filter((prompt) => prompt.requiresTools.every((tool) => canRunTool(deps, caller, tool)));
}

function describePrompt(ctx: MethodContext, prompt: PromptDefinition): Record<string, unknown> {
  return addEraTitle(ctx.era, {
    name: prompt.name,
    description: prompt.description,
    arguments: prompt.arguments.map(({ name, description, required }) => ({ name, description, required })),
  }, prompt.title);
}

export function createPromptProvider(deps: FinanceFeatureDeps, options: PromptProviderOptions = {}): PromptProvider {
  const clock = options.clock ?? systemClock;
  return {
    async listPrompts(ctx) {
      return listReachablePrompts(deps, ctx.caller).map((prompt) => describePrompt(ctx, prompt));
    },
    async getPrompt(ctx, name, given) {
      const prompt = listReachablePrompts(deps, ctx.caller).find((candidate) => candidate.name === name);
      if (prompt === undefined) return null;
      const args = await resolvePromptArguments(deps.db, ctx.caller, prompt.arguments, given);
      // The workspace's date (docs/domain.md#status-and-today) as midnight UTC, the calendar's unit.
      const today = new Date(`${await readWorkspaceDate(deps.db, args.workspace.id, clockDate(clock))}T00:00:00Z`);
      const messages = prompt.build({ args, today, can: (tool) => canRunTool(deps, ctx.caller, tool) });
      return { description: prompt.description, messages };
    },
  };
}
