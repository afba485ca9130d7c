/**
 * The change report's test helpers: a side (codegen/surface/surface.ts) planned in memory from an
 * OpenAPI document — the same two files `generate` writes, without formatting or type-checking —
 * and the fixture documents of test/fixtures/surface/.
 */
import path from 'node:path';
import { renderToolsList } from '../../codegen/generate.js';
import { loadSpec } from '../../codegen/load-spec.js';
import { planSpec } from '../../codegen/plan-spec.js';
import { renderReview, type ReviewTool } from '../../codegen/surface/review.js';
import { readSurface, type Surface } from '../../codegen/surface/surface.js';
import type { SurfaceReport } from '../../codegen/surface/diff.js';
import { makeTempDir, readYaml, REPO_ROOT, writeSpec, type Doc } from './support.js';

export const SURFACE_FIXTURES = path.join(REPO_ROOT, 'test/fixtures/surface');
export const BEFORE = path.join(SURFACE_FIXTURES, 'before.yaml');
export const AFTER = path.join(SURFACE_FIXTURES, 'after.yaml');

/** The two files `generate` writes for the document, as texts. */
export async function generatedFiles(file: string): Promise<{ list: string; review: string }> {
  const plan = planSpec(await loadSpec(file));
  return { list: renderToolsList(plan), review: renderReview(plan) };
}

export async function surfaceOf(file: string, label = path.basename(file)): Promise<Surface> {
  const { list, review } = await generatedFiles(file);
  return readSurface(label, list, review);
}

let scratch: string | undefined;
let written = 0;

/** The base fixture edited by `edit`, written to a scratch folder; returns the file. */
export function variant(edit: (doc: Doc) => void): string {
  scratch ??= makeTempDir('kobana-surface-');
  const doc = readYaml(BEFORE);
  edit(doc);
  written += 1;
  return writeSpec(scratch, `variant-${written}.yaml`, doc);
}

/** A side with one tool's review data changed (what no document edit of a foreign fixture can say, e.g. a permission). */
export function withReview(surface: Surface, tool: string, patch: Partial<ReviewTool>): Surface {
  const tools = new Map(surface.tools);
  const entry = tools.get(tool);
  if (entry?.review == null) throw new Error(`no reviewed tool ${tool}`);
  tools.set(tool, { ...entry, review: { ...entry.review, ...patch } });
  return { ...surface, tools };
}

/** Every change of a report as `<class> <tool> <path> <kind>`, sorted, acknowledged ones marked. */
export function changeLines(report: SurfaceReport): string[] {
  return [
    ...report.breaking.map((c) => `breaking ${c.tool} ${c.path} ${c.kind}`),
    ...report.acknowledged.map((c) => `acknowledged ${c.tool} ${c.path} ${c.kind}`),
    ...report.compatible.map((c) => `compatible ${c.tool} ${c.path} ${c.kind}`),
    ...report.text.map((c) => `text ${c.tool} ${c.path} ${c.kind}`),
  ].sort();
}
