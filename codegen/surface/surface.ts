/**
 * One side of a comparison: the tools as `tools/list` shows them (tools-list.gen.json) joined by
 * name with their review data (tools-review.gen.json). A side read from a revision older than the
 * review copy, or whose copy is of another version or malformed (review-shape.ts), has the list
 * only: the report then says which classes it could not check.
 */
import type { RetiredTool, ReviewCopy, ReviewTool } from './review.js';
import { asReviewCopy } from './review-shape.js';
import { type Obj } from './schema-paths.js';
import { countModelVisible } from './tokens.js';
import { isPlainObject } from '../../src/runtime/values.js';

/** One tool of tools-list.gen.json. */
export interface ListedTool {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: Obj;
  readonly outputSchema?: Obj;
  readonly annotations?: { readonly readOnlyHint?: boolean; readonly destructiveHint?: boolean; readonly idempotentHint?: boolean };
}

export interface SurfaceTool {
  readonly listed: ListedTool;
  /** null when the side has no review copy. */
  readonly review: ReviewTool | null;
  /** Model-visible tokens: the review copy's count, else counted from the listed tool (the same count). */
  readonly tokens: number;
}

export interface Surface {
  /** What the side is, for the report: `merge base with main (3221ac7)`, `generated/`, a file. */
  readonly label: string;
  readonly tools: ReadonlyMap<string, SurfaceTool>;
  readonly retired: readonly RetiredTool[];
  readonly hasReview: boolean;
}

/** Joins the two files' texts; `reviewText` undefined for a side without a review copy. Throws naming `label` on a file that is not JSON or a tools list not a list of tools. */
export function readSurface(label: string, listText: string, reviewText: string | undefined): Surface {
  const listed = parseJson(label, 'tools-list.gen.json', listText);
  if (!Array.isArray(listed) || !listed.every((tool) => isPlainObject(tool) && typeof tool.name === 'string' && isPlainObject(tool.inputSchema))) {
    throw new Error(`${label}: tools-list.gen.json is not a list of tools`);
  }
  const review = reviewText === undefined ? null : readReview(label, reviewText);
  const reviews = new Map((review?.tools ?? []).map((tool) => [tool.name, tool] as const));
  const tools = new Map<string, SurfaceTool>();
  for (const tool of listed as ListedTool[]) {
    const reviewed = reviews.get(tool.name) ?? null;
    tools.set(tool.name, { listed: tool, review: reviewed, tokens: reviewed?.tokens ?? countModelVisible(tool) });
  }
  return { label, tools, retired: review?.retired ?? [], hasReview: review !== null };
}

/** The review copy; null when it is not one this report can read (an unknown version, a malformed copy). */
function readReview(label: string, text: string): ReviewCopy | null {
  return asReviewCopy(parseJson(label, 'tools-review.gen.json', text));
}

function parseJson(label: string, file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${label}: ${file} is not JSON`);
  }
}
