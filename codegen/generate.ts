/**
 * The pipeline in one call: load → plan → (strict: no warnings) → (handlers: collect and check) →
 * render → type-check (nothing is formatted: the frames write formatted text, emit/check.ts). Pure
 * apart from reading the spec and importing the handler modules; the CLI decides whether to write
 * or compare the result.
 */
import { typeCheckOutput } from './emit/check.js';
import { CodegenError, type SpecWarning } from './errors.js';
import { HANDLERS_FILE, renderHandlers, renderPlan } from './emit/render.js';
import { checkHandlers, collectHandlers } from './handlers.js';
import { loadSpec } from './load-spec.js';
import { SchemaProfileError, toSchemaProfile, type ClientSchemaProfile } from '../src/runtime/schema-profiles.js';
import { planSpec, type SpecPlan } from './plan-spec.js';
import { isPlainObject } from '../src/runtime/values.js';
import { PERMISSIONS_TABLE_FILE, renderPermissionsTable } from './emit/permissions-table.js';

/**
 * The tools exactly as `tools/list` (2025-06-18 and later) shows them to a caller who reaches all of them. Tools are
 * built from the operation modules when the registry loads (src/runtime/tool-view.ts), so this
 * file is what makes a change of that code — or of a spec text — show in review as a diff under
 * generated/, and what `--check` catches when it was not regenerated. Nothing imports it.
 */
const TOOLS_LIST_FILE = 'tools-list.gen.json';

function renderToolsList(plan: SpecPlan): string {
  const listed = plan.tools.map(({ name, title, description, inputSchema, output, annotations }) =>
    ({ name, title, description, inputSchema, ...(output ? { outputSchema: output.schema } : {}), annotations }));
  return `${JSON.stringify(listed, null, 2)}\n`;
}

/**
 * Review copies of the tools' input schemas in the client schema profiles
 * (docs/protocol.md#client-schema-profiles): `?schema=openai` / `?schema=gemini` serve these forms,
 * built from the same pure transform at start-up. A schema a profile cannot write fails the build here.
 */
const PROFILE_FILES: Readonly<Record<ClientSchemaProfile, string>> = { openai: 'tools-input.openai.gen.json', gemini: 'tools-input.gemini.gen.json' };

function renderProfileInputs(plan: SpecPlan, profile: ClientSchemaProfile): string {
  const listed = plan.tools.map(({ name, inputSchema }) => {
    try {
      return { name, inputSchema: toSchemaProfile(profile, inputSchema).schema };
    } catch (error) {
      throw error instanceof SchemaProfileError ? new Error(`tool ${name}: ${error.message}`) : error;
    }
  });
  return `${JSON.stringify(listed, null, 2)}\n`;
}

export interface GenerateResult {
  readonly plan: SpecPlan;
  /** Output-relative posix path → final file text. */
  readonly files: Map<string, string>;
  /** The document's tolerated constructs, then the names the planner derived (errors under `strict`). */
  readonly warnings: readonly SpecWarning[];
}

export interface GenerateOptions {
  readonly typeCheck?: boolean;
  /** Every warning fails the run (an AggregateError of STRICT CodegenErrors): CI runs our own contract so. */
  readonly strict?: boolean;
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
  const warnings = [...spec.warnings, ...plan.warnings];
  if (options.strict && warnings.length > 0) {
    throw new AggregateError(warnings.map((w) => new CodegenError('STRICT', w.file, w.pointer, `${w.detail} [${w.rule}; not allowed with --strict]`)), 'warnings under --strict');
  }
  const { components } = spec.document;
  const { files, typeChecked } = renderPlan(plan, isPlainObject(components) && isPlainObject(components.schemas) ? components.schemas : undefined);
  const unchecked = new Set<string>();
  if (options.handlers) {
    const modules = await collectHandlers(options.handlers.dir);
    checkHandlers(plan, modules);
    files.set(HANDLERS_FILE, renderHandlers(plan, modules, options.handlers.outDir, options.handlers.dir));
    // It imports the application's modules; `tsc -p tsconfig.json` checks it with them.
    unchecked.add(HANDLERS_FILE);
  }
  if (options.typeCheck ?? true) await typeCheckOutput(typeChecked, { specFile: spec.file, unchecked });
  files.set(TOOLS_LIST_FILE, renderToolsList(plan));
  files.set(PERMISSIONS_TABLE_FILE, renderPermissionsTable(plan.operations.map((planned) => planned.definition.operation)));
  for (const [profile, file] of Object.entries(PROFILE_FILES) as [ClientSchemaProfile, string][]) files.set(file, renderProfileInputs(plan, profile));
  return { plan, files, warnings };
}
