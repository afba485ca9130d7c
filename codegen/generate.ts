/**
 * The pipeline in one call: load → plan → render → format/type-check. Pure apart from reading the
 * spec; the CLI decides whether to write or compare the result.
 */
import { formatAndCheck } from './emit/check.js';
import { renderPlan } from './emit/render.js';
import { loadSpec } from './load-spec.js';
import { planSpec, type SpecPlan } from './plan-spec.js';

export interface GenerateResult {
  readonly plan: SpecPlan;
  /** Output-relative posix path → final file text. */
  readonly files: Map<string, string>;
}

export async function generate(specFile: string, options: { typeCheck?: boolean } = {}): Promise<GenerateResult> {
  const spec = await loadSpec(specFile);
  const plan = planSpec(spec);
  const files = await formatAndCheck(renderPlan(plan), { typeCheck: options.typeCheck ?? true, specFile: spec.file });
  return { plan, files };
}
