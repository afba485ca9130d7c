/**
 * The method table of `/mcp`: one entry per JSON-RPC method, assembled from one module per
 * method group. Resources, prompts and completions take providers so their feature can
 * replace the empty defaults without touching the transport.
 */
import { createLifecycleMethods } from './lifecycle.js';
import { createPromptMethods, type CompletionProvider, type PromptProvider } from './prompts.js';
import { createResourceMethods, type ResourceProvider } from './resources.js';
import { createToolMethods, type ToolMethodDeps } from './tools.js';
import type { MethodTable } from './types.js';

export interface MethodTableDeps extends ToolMethodDeps {
  readonly resources?: ResourceProvider | undefined;
  readonly prompts?: PromptProvider | undefined;
  readonly completions?: CompletionProvider | undefined;
}

export function createMethodTable(deps: MethodTableDeps): MethodTable {
  return {
    ...createLifecycleMethods(deps.catalog),
    ...createToolMethods(deps),
    ...createResourceMethods(deps.resources),
    ...createPromptMethods(deps.prompts, deps.completions),
  };
}

export type { MethodContext, MethodDefinition, MethodTable } from './types.js';
export type { ResourceProvider } from './resources.js';
export type { PromptProvider, CompletionProvider } from './prompts.js';
