/**
 * `prompts/list`, `prompts/get` and `completion/complete` over pluggable providers. The
 * defaults have no prompts and no suggestions (the prompts feature supplies the real ones).
 */
import { INVALID_PARAMS, JsonRpcError } from '../json-rpc.js';
import type { MethodContext, MethodTable } from './types.js';
import { isPlainObject } from '../../runtime/values.js';

export interface PromptProvider {
  listPrompts(ctx: MethodContext): Promise<readonly Record<string, unknown>[]>;
  /** The `prompts/get` result, or null for a prompt the caller cannot use / that does not exist. */
  getPrompt(ctx: MethodContext, name: string, args: Readonly<Record<string, unknown>>): Promise<Record<string, unknown> | null>;
}

export interface CompletionProvider {
  complete(ctx: MethodContext): Promise<{ values: readonly string[]; total?: number; hasMore?: boolean }>;
}

const emptyPromptProvider: PromptProvider = {
  listPrompts: async () => [],
  getPrompt: async () => null,
};

const emptyCompletionProvider: CompletionProvider = {
  complete: async () => ({ values: [], total: 0, hasMore: false }),
};

export function createPromptMethods(
  prompts: PromptProvider = emptyPromptProvider,
  completions: CompletionProvider = emptyCompletionProvider,
): MethodTable {
  return {
    'prompts/list': {
      eras: 'both',
      callerScoped: true,
      handle: async (ctx) => ({ prompts: await prompts.listPrompts(ctx) }),
    },
    'prompts/get': {
      eras: 'both',
      callerScoped: false,
      handle: async (ctx) => {
        const name = ctx.params['name'];
        if (typeof name !== 'string') throw new JsonRpcError(INVALID_PARAMS, 'Missing prompt name');
        const args = isPlainObject(ctx.params['arguments']) ? ctx.params['arguments'] : {};
        const result = await prompts.getPrompt(ctx, name, args);
        if (result === null) throw new JsonRpcError(INVALID_PARAMS, 'Unknown prompt');
        return result;
      },
    },
    'completion/complete': {
      eras: 'both',
      callerScoped: false,
      handle: async (ctx) => ({ completion: await completions.complete(ctx) }),
    },
  };
}
