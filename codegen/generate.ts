/**
 * The pipeline in one call: load → plan → (handlers: collect and check) → render →
 * format/type-check. Pure apart from reading the spec and importing the handler modules; the CLI
 * decides whether to write or compare the result.
 */
import { formatAndCheck } from './emit/check.js';
import { HANDLERS_FILE, renderHandlers, renderPlan } from './emit/render.js';
import { checkHandlers, collectHandlers } from './handlers.js';
import { loadSpec } from './load-spec.js';
import { planSpec, type SpecPlan } from './plan-spec.js';

export interface GenerateResult {
  readonly plan: SpecPlan;
  /** Output-relative posix path → final file text. */
  readonly files: Map<string, string>;
}

export interface GenerateOptions {
  readonly typeCheck?: boolean;
  /**
   * The folder of handler modules (`src/api/operations`) and the output folder the handler
   * table is written to: every operation must have a handler and every handler an operation.
   * Without it no handler table is generated (foreign or fixture documents).
   */
  readonly handlers?: { readonly dir: string; readonly outDir: string };
}

export async function generate(specFile: string, options: GenerateOptions = {}): Promise<GenerateResult> {
  const spec = await loadSpec(specFile);
  const plan = planSpec(spec);
  const rendered = renderPlan(plan);
  let unchecked: ReadonlySet<string> = new Set();
  if (options.handlers) {
    const modules = await collectHandlers(options.handlers.dir);
    checkHandlers(plan, modules);
    rendered.set(HANDLERS_FILE, renderHandlers(plan, modules, options.handlers.outDir, options.handlers.dir));
    // It imports the application's modules; `tsc -p tsconfig.json` checks it with them.
    unchecked = new Set([HANDLERS_FILE]);
  }
  const files = await formatAndCheck(rendered, { typeCheck: options.typeCheck ?? true, specFile: spec.file, unchecked });
  return { plan, files };
}
