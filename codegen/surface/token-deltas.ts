/**
 * The model-visible token cost (tokens.ts) before and after: per tool that changed, per toolset
 * (the sum over the tools a `?toolsets=` view shows) and in total. A side without a review copy
 * has no toolsets: its per-toolset costs are null (unknown).
 */
import type { Surface, SurfaceTool } from './surface.js';

export interface TokenDelta {
  readonly name: string;
  /** null: not on that side (a tool added or removed), or not known. */
  readonly before: number | null;
  readonly after: number | null;
}

export interface TokenDeltas {
  readonly total: { readonly before: number; readonly after: number };
  /** Tools whose cost changed, added and removed ones included, by name. */
  readonly tools: readonly TokenDelta[];
  /** Every toolset of either side, by name. */
  readonly toolsets: readonly TokenDelta[];
}

export function countTokenDeltas(base: Surface, head: Surface, pairs: ReadonlyArray<{ before: SurfaceTool; after: SurfaceTool }>): TokenDeltas {
  const paired = new Set(pairs.flatMap((pair) => [pair.before, pair.after]));
  const tools: TokenDelta[] = [
    ...pairs.filter((pair) => pair.before.tokens !== pair.after.tokens).map((pair) => ({ name: pair.after.listed.name, before: pair.before.tokens, after: pair.after.tokens })),
    ...[...base.tools.values()].filter((tool) => !paired.has(tool)).map((tool) => ({ name: tool.listed.name, before: tool.tokens, after: null })),
    ...[...head.tools.values()].filter((tool) => !paired.has(tool)).map((tool) => ({ name: tool.listed.name, before: null, after: tool.tokens })),
  ].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const [was, is] = [toolsetCosts(base), toolsetCosts(head)];
  const names = [...new Set([...(was?.keys() ?? []), ...(is?.keys() ?? [])])].sort();
  return {
    total: { before: sum(base), after: sum(head) },
    tools,
    toolsets: names.map((name) => ({ name, before: was === null ? null : was.get(name) ?? 0, after: is === null ? null : is.get(name) ?? 0 })),
  };
}

function sum(surface: Surface): number {
  let total = 0;
  for (const tool of surface.tools.values()) total += tool.tokens;
  return total;
}

function toolsetCosts(surface: Surface): Map<string, number> | null {
  if (!surface.hasReview) return null;
  const costs = new Map<string, number>();
  for (const tool of surface.tools.values()) for (const toolset of tool.review?.toolsets ?? []) costs.set(toolset, (costs.get(toolset) ?? 0) + tool.tokens);
  return costs;
}
