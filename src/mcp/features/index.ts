/**
 * The finance MCP features — resources, prompts and completions — in one call, shaped for
 * `createMcpRouter`'s optional `resources`, `prompts` and `completions` providers. The features
 * sit on top of the MCP core (they implement the provider interfaces of `../methods`; the core
 * never imports them) and read finance data through `src/api`. This module sits above the three
 * feature folders (which import only downwards: completions → prompts → resources) so none of
 * them imports the others in a cycle. Wiring stays in `src/app.ts`.
 */
import { createCompletionProvider } from './completions/provider.js';
import { createPromptProvider } from './prompts/provider.js';
import type { CompletionProvider, PromptProvider, ResourceProvider } from '../methods/index.js';
import type { FinanceFeatureDeps } from './resources/deps.js';
import { createResourceProvider } from './resources/provider.js';
import type { Clock } from '../../runtime/clock.js';

export interface FinanceProviders {
  readonly resources: ResourceProvider;
  readonly prompts: PromptProvider;
  readonly completions: CompletionProvider;
}

/** `options.clock`: the services' clock (src/runtime/clock.ts), the prompts' and completions' "today". */
export function createFinanceProviders(deps: FinanceFeatureDeps, options: { clock?: Clock } = {}): FinanceProviders {
  return {
    resources: createResourceProvider(deps),
    prompts: createPromptProvider(deps, options),
    completions: createCompletionProvider(deps, options),
  };
}

export type { FinanceFeatureDeps } from './resources/deps.js';
