/**
 * The tool-surface change report: two sides (surface.ts) compared tool by tool and classified
 * (changes.ts). Tools are matched by name, then a tool gone and a tool new for the same operation
 * (the new one declaring the old name in `x-mcp.aliases`, or serving the same operation) as a rename;
 * an alias that hands a removed tool's name to another operation is a break of its own. A breaking change of a
 * tool whose operation carries an `x-mcp.breaking` the base did not have is listed apart as
 * acknowledged (`--fail-on breaking` passes it): an acknowledgement covers the break it was written
 * for, not the next one. Pure.
 */
import { change, type Change } from './changes.js';
import { diffBounds } from './bounds-diff.js';
import type { BreakingAcknowledgement } from './extensions.js';
import { diffSchemas } from './schema-diff.js';
import type { Surface, SurfaceTool } from './surface.js';
import { diffSafety } from './safety-diff.js';
import { countTokenDeltas, type TokenDeltas } from './token-deltas.js';

export interface AcknowledgedChange extends Change {
  readonly acknowledgement: BreakingAcknowledgement;
}

export interface DeprecatedName {
  readonly tool: string;
  readonly alias: string;
  readonly until: string;
}

export interface SurfaceReport {
  readonly base: string;
  readonly head: string;
  /** What could not be compared because a side has no review copy (tools-review.gen.json). */
  readonly unchecked: readonly string[];
  readonly breaking: readonly Change[];
  readonly acknowledged: readonly AcknowledgedChange[];
  readonly compatible: readonly Change[];
  readonly text: readonly Change[];
  readonly deprecated: readonly DeprecatedName[];
  readonly tokens: TokenDeltas;
}

/** What the review copy lets the report see; without it on either side, these are not compared. */
export const NEEDS_REVIEW_COPY = ['scopes', 'permission', 'moving money', 'confirmation kind', 'toolsets', 'validation bounds', 'renames without an alias', 'acknowledgements (x-mcp.breaking)'] as const;

interface Pair {
  readonly before: SurfaceTool;
  readonly after: SurfaceTool;
}

export function compareSurfaces(base: Surface, head: Surface): SurfaceReport {
  const changes: Array<Change | AcknowledgedChange> = [];
  const { pairs, removed, added } = matchTools(base, head);
  for (const tool of removed) changes.push(acknowledgeRemoval(base, head, tool, removal(head, tool)));
  for (const tool of added) changes.push(change('tool_added', tool.listed.name, '', 'new'));
  for (const pair of pairs) changes.push(...acknowledgeTool(pair, diffTool(pair)));
  return classify(base, head, changes, countTokenDeltas(base, head, pairs));
}

function classify(base: Surface, head: Surface, changes: ReadonlyArray<Change | AcknowledgedChange>, tokens: TokenDeltas): SurfaceReport {
  const sorted = [...changes].sort((a, b) => compare(a.tool, b.tool) || compare(a.path, b.path) || compare(a.kind, b.kind) || compare(a.detail, b.detail));
  const isAcknowledged = (item: Change): item is AcknowledgedChange => 'acknowledgement' in item;
  return {
    base: base.label,
    head: head.label,
    unchecked: base.hasReview && head.hasReview ? [] : [...NEEDS_REVIEW_COPY],
    breaking: sorted.filter((item) => item.class === 'breaking' && !isAcknowledged(item)),
    acknowledged: sorted.filter(isAcknowledged),
    compatible: sorted.filter((item) => item.class === 'compatible'),
    text: sorted.filter((item) => item.class === 'text'),
    deprecated: [...head.tools.values()].flatMap((tool) => (tool.review?.aliases ?? []).map((alias) => ({ tool: tool.listed.name, alias: alias.name, until: alias.until }))),
    tokens,
  };
}

/** Unacknowledged breaking changes: what `--fail-on breaking` fails on. */
export function hasUnacknowledgedBreaks(report: SurfaceReport): boolean {
  return report.breaking.length > 0;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Same name, else a rename: the new tool declares the old name as an alias, or (with review copies) serves the same operation. */
function matchTools(base: Surface, head: Surface): { pairs: Pair[]; removed: SurfaceTool[]; added: SurfaceTool[] } {
  const pairs: Pair[] = [];
  const gone = [...base.tools.values()].filter((tool) => !head.tools.has(tool.listed.name));
  const fresh = [...head.tools.values()].filter((tool) => !base.tools.has(tool.listed.name));
  for (const [name, before] of base.tools) {
    const after = head.tools.get(name);
    if (after !== undefined) pairs.push({ before, after });
  }
  const removed: SurfaceTool[] = [];
  for (const before of gone) {
    // An alias names a rename only for the same operation (a base without a review copy cannot say which: trusted).
    const renamed = fresh.find((after) => declaresAlias(after, before.listed.name) && (before.review === null || sameOperation(before, after)))
      ?? fresh.find((after) => sameOperation(before, after));
    if (renamed === undefined) removed.push(before);
    else pairs.push({ before, after: renamed });
  }
  const renamedTo = new Set(pairs.map((pair) => pair.after));
  return { pairs, removed, added: fresh.filter((tool) => !renamedTo.has(tool)) };
}

function declaresAlias(tool: SurfaceTool, name: string): boolean {
  return (tool.review?.aliases ?? []).some((alias) => alias.name === name);
}

function sameOperation(before: SurfaceTool, after: SurfaceTool): boolean {
  return before.review !== null && after.review !== null && before.review.operationId === after.review.operationId;
}

/** A tool gone; when another operation's tool declares its name as an alias, a call by that name now does something else. */
function removal(head: Surface, tool: SurfaceTool): Change {
  const name = tool.listed.name;
  const heir = [...head.tools.values()].find((other) => declaresAlias(other, name));
  if (heir === undefined) return change('tool_removed', name, '', 'no longer listed or answered');
  return change('alias_retargeted', name, '', `now answered as ${heir.listed.name} (${heir.review!.operationId}), not ${tool.review?.operationId ?? 'its operation'}`);
}

function diffTool({ before, after }: Pair): Change[] {
  const name = after.listed.name;
  const changes: Change[] = [];
  if (before.listed.name !== name) {
    const alias = (after.review?.aliases ?? []).find((each) => each.name === before.listed.name);
    changes.push(alias
      ? change('tool_renamed_with_alias', name, '', `was ${before.listed.name}; the old name is answered until ${alias.until}`)
      : change('tool_renamed', name, '', `was ${before.listed.name}`));
  }
  for (const key of ['title', 'description'] as const) {
    const [was, is] = [before.listed[key] ?? '', after.listed[key] ?? ''];
    if (was !== is) changes.push(change(key === 'title' ? 'tool_title' : 'tool_description', name, '', 'changed', { before: was, after: is }));
  }
  changes.push(...diffSafety(name, before, after));
  const common = new Map<string, string>();
  changes.push(...diffSchemas('input', name, before.listed.inputSchema, after.listed.inputSchema, common));
  if (before.review !== null && after.review !== null) changes.push(...diffBounds(name, before.review.bounds, after.review.bounds, common));
  changes.push(...diffOutputs(name, before, after));
  return changes;
}

function diffOutputs(name: string, before: SurfaceTool, after: SurfaceTool): Change[] {
  const [was, is] = [before.listed.outputSchema, after.listed.outputSchema];
  if (was !== undefined && is !== undefined) return diffSchemas('output', name, was, is);
  if (was !== undefined) return [change('output_field_removed', name, '', 'no structured result any more')];
  if (is !== undefined) return [change('output_field_added', name, '', 'now returns a structured result')];
  return [];
}

/**
 * The head's `x-mcp.breaking` on the tool, when the base did not already carry the same one. A base
 * without review data cannot tell a new acknowledgement from an old one, which would silence every
 * later break: there none counts (the report lists acknowledgements as unchecked).
 */
function newAcknowledgement(before: SurfaceTool, after: SurfaceTool): BreakingAcknowledgement | null {
  const declared = after.review?.breaking ?? null;
  if (declared === null || before.review === null) return null;
  const known = before.review.breaking;
  return known !== null && known.since === declared.since && known.reason === declared.reason ? null : declared;
}

function acknowledgeTool({ before, after }: Pair, changes: readonly Change[]): Array<Change | AcknowledgedChange> {
  const acknowledgement = newAcknowledgement(before, after);
  if (acknowledgement === null) return [...changes];
  return changes.map((item) => (item.class === 'breaking' ? { ...item, acknowledgement } : item));
}

/** A removed tool is acknowledged by its operation, kept with `x-mcp.exclude` and `x-mcp.breaking` (the head's `retired`). */
function acknowledgeRemoval(base: Surface, head: Surface, tool: SurfaceTool, removal: Change): Change | AcknowledgedChange {
  const operationId = tool.review?.operationId;
  const declared = head.retired.find((retired) => retired.operationId === operationId);
  const known = base.retired.find((retired) => retired.operationId === operationId);
  if (operationId === undefined || declared === undefined || (known !== undefined && known.since === declared.since && known.reason === declared.reason)) return removal;
  return { ...removal, acknowledgement: { since: declared.since, reason: declared.reason } };
}
