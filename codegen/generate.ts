/**
 * The pipeline in one call, as phases (progress.ts reports each): load → plan (arguments of no
 * value hidden from tools) → render → check (handlers, what each client profile can represent, every tool
 * and route schema compiled by the runtime's ajv, warnings under `strict`) → format (nothing: the frames
 * write formatted text, emit/check.ts) → type-check. Every failure of the document is found by
 * the end of check, before the expensive phases start. Pure
 * apart from reading the spec and importing the handler modules; the CLI decides whether to
 * write or compare the result (the write phase).
 */
import { typeCheckOutput } from './emit/check.js';
import { CodegenError, operationPointer, type SpecWarning } from './errors.js';
import { HANDLERS_FILE, renderHandlers, renderPlan, type RenderedPlan } from './emit/render.js';
import { checkHandlers, collectHandlers } from './handlers.js';
import { loadSpec } from './load-spec.js';
import { planSpec, type SpecPlan } from './plan-spec.js';
import { isPlainObject } from '../src/runtime/values.js';
import { buildViews } from '../src/runtime/views.js';
import { PERMISSIONS_TABLE_FILE, renderPermissionsTable } from './emit/permissions-table.js';
import { checkProfiles, PROFILE_EXCLUSIONS_FILE, renderProfileExclusions, renderProfileInputs, type ProfileCheck } from './profile-check.js';
import { count, silentProgress, type Progress } from './progress.js';
import { pruneUnsatisfiable } from './unsatisfiable.js';
import { createAjv } from '../src/runtime/ajv.js';
import type { JsonSchema, OperationRef, RouteDefinition } from '../src/runtime/types.js';
import { REVIEW_FILE, renderReview } from './surface/review.js';

/**
 * The tools exactly as `tools/list` (2025-06-18 and later) shows them to a caller who reaches all of them. Tools are
 * built from the operation modules when the registry loads (src/runtime/tool-view.ts), so this
 * file is what makes a change of that code — or of a spec text — show in review as a diff under
 * generated/, and what `--check` catches when it was not regenerated. Nothing imports it.
 */
const TOOLS_LIST_FILE = 'tools-list.gen.json';

export function renderToolsList(plan: SpecPlan): string {
  const listed = plan.tools.map(({ name, title, description, inputSchema, output, annotations }) =>
    ({ name, title, description, inputSchema, ...(output ? { outputSchema: output.schema } : {}), annotations }));
  return `${JSON.stringify(listed, null, 2)}\n`;
}

export interface GenerateResult {
  readonly plan: SpecPlan;
  /** Output-relative posix path → final file text. */
  readonly files: Map<string, string>;
  /**
   * The document's tolerated constructs, the names the planner derived, arguments of no value and
   * tools a client profile leaves out (errors under `strict`).
   */
  readonly warnings: readonly SpecWarning[];
  /** Per client profile, the tools it cannot represent (left out of its review copy and of what it serves). */
  readonly profileExclusions: ProfileCheck['excluded'];
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
  /** Where the run is (progress.ts); silent by default. */
  readonly progress?: Progress;
  /** The date (`YYYY-MM-DD`) tool aliases expire against (tests); default today in UTC. */
  readonly today?: string;
  /**
   * Told what the run has found so far, after the plan and after the check phase: so that a run
   * that fails later can still print its warnings and counts (codegen/run-report.ts).
   */
  readonly onFound?: (found: Found) => void;
}

/** What a run has found so far (GenerateOptions `onFound`). */
export interface Found {
  readonly operations: number;
  readonly tools: number;
  readonly warnings: readonly SpecWarning[];
}

export async function generate(specFile: string, options: GenerateOptions = {}): Promise<GenerateResult> {
  const progress = options.progress ?? silentProgress;
  const spec = await progress.phase('load', () => loadSpec(specFile), (loaded) => `1 document, ${count(loaded.fileCount, 'file')}`);
  const { plan, warnings: pruned } = await progress.phase('plan', () => pruneUnsatisfiable(planSpec(spec, { ...(options.today === undefined ? {} : { today: options.today }) })),
    (planned) => `${count(planned.plan.operations.length, 'operation')}, ${count(planned.plan.tools.length, 'tool')}`);
  const planned = [...spec.warnings, ...plan.warnings, ...pruned];
  options.onFound?.({ operations: plan.operations.length, tools: plan.tools.length, warnings: planned });
  const { components } = spec.document;
  const schemas = isPlainObject(components) && isPlainObject(components.schemas) ? components.schemas : undefined;
  const first = await progress.phase('render', () => renderPlan(plan, schemas), ({ files }) => `${count(files.size, 'file')}, ${megabytes(files)}`);
  const checked = await progress.phase('check', (update) => check({ plan, rendered: first, render: (fewer) => renderPlan(fewer, schemas) }, planned, options, update),
    ({ plan: kept, profiles, warnings, uncompilable }) => `${count(kept.tools.length + uncompilable, 'tool')} compiled${uncompilable > 0 ? ` (${uncompilable} excluded)` : ''}, left out of openai: ${profiles.excluded.openai.length}, of gemini: ${profiles.excluded.gemini.length}, ${count(warnings.length, 'warning')}`);
  const { rendered } = checked;
  options.onFound?.({ operations: checked.plan.operations.length, tools: checked.plan.tools.length, warnings: checked.warnings });
  // The frames write formatted text (test/codegen/shared-schemas.test.ts: the formatter changes no byte of it).
  await progress.phase('format', () => undefined, () => 'nothing to format: the frames write formatted text');
  if (options.typeCheck ?? true) {
    const typeChecked = [...rendered.typeChecked.keys()].filter((relative) => !checked.unchecked.has(relative)).length;
    await progress.phase('type-check', () => typeCheckOutput(rendered.typeChecked, { specFile: spec.file, unchecked: checked.unchecked }), () => count(typeChecked, 'file'));
  }
  const { files } = rendered;
  const final = checked.plan;
  files.set(TOOLS_LIST_FILE, renderToolsList(final));
  // What the change report needs besides the list (codegen/surface/review.ts).
  files.set(REVIEW_FILE, renderReview(final));
  files.set(PERMISSIONS_TABLE_FILE, renderPermissionsTable(final.operations.map((planned) => planned.definition.operation)));
  for (const [file, text] of renderProfileInputs(checked.profiles)) files.set(file, text);
  return { plan: final, files, warnings: checked.warnings, profileExclusions: checked.profiles.excluded };
}

interface Checked {
  /** The plan without the tools whose schemas do not compile, and its rendering. */
  readonly plan: SpecPlan;
  readonly rendered: RenderedPlan;
  /** How many tools were excluded because ajv cannot compile their schemas. */
  readonly uncompilable: number;
  readonly profiles: ProfileCheck;
  readonly warnings: readonly SpecWarning[];
  /** Rendered files the in-memory type-check leaves to `tsc -p tsconfig.json`. */
  readonly unchecked: ReadonlySet<string>;
}

/** The plan being checked, its rendering, and how to render it again with fewer tools. */
interface Checking {
  readonly plan: SpecPlan;
  readonly rendered: RenderedPlan;
  readonly render: (plan: SpecPlan) => RenderedPlan;
}

/**
 * Everything that can be wrong with the document, found before anything is formatted: every tool
 * and route schema compiled (a tool whose schemas the server could not compile is excluded, and the plan
 * rendered again without it), the handlers (their table joins the rendered files), what each client
 * profile can represent (the exclusion list joins them too), and — under `strict` — every warning.
 */
async function check(checking: Checking, found: readonly SpecWarning[], options: GenerateOptions, update: (counts: string) => void): Promise<Checked> {
  const failures = compileToolSchemas(checking.plan, update);
  const excluded = new Set(failures.flatMap((failure) => (failure.tool === null ? [] : [failure.tool])));
  const plan = excluded.size === 0 ? checking.plan : excludeTools(checking.plan, excluded);
  const rendered = excluded.size === 0 ? checking.rendered : checking.render(plan);
  const unchecked = new Set<string>();
  if (options.handlers) {
    const modules = await collectHandlers(options.handlers.dir);
    checkHandlers(plan, modules);
    rendered.files.set(HANDLERS_FILE, renderHandlers(plan, modules, options.handlers.outDir, options.handlers.dir));
    // It imports the application's modules; `tsc -p tsconfig.json` checks it with them.
    unchecked.add(HANDLERS_FILE);
  }
  update('client profiles');
  const profiles = checkProfiles(plan);
  const exclusions = renderProfileExclusions(plan, profiles);
  rendered.files.set(PROFILE_EXCLUSIONS_FILE, exclusions);
  rendered.typeChecked.set(PROFILE_EXCLUSIONS_FILE, exclusions);
  const warnings = [...found, ...failures.map((failure) => failure.warning), ...profiles.warnings];
  if (options.strict) {
    const errors = warnings.map((w) => new CodegenError('STRICT', w.file, w.pointer, `${w.detail} [${w.rule}; not allowed with --strict]`));
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} problems`);
  }
  return { plan, rendered, uncompilable: excluded.size, profiles, warnings, unchecked };
}

interface CompileFailure {
  /** The excluded tool; null for a route whose tool (if any) compiles. */
  readonly tool: string | null;
  readonly warning: SpecWarning;
}

type Ajv = ReturnType<typeof createAjv>;

/**
 * ajv's reason when a schema does not compile, else null; each distinct schema text compiled once
 * (a route's id parameter, a shared body: the same schema stands in many routes and tools, and a
 * compile costs the same whether or not its validator is ever run).
 */
function createCompileCheck(ajv: Ajv): (schema: JsonSchema) => string | null {
  const seen = new Map<string, string | null>();
  return (schema) => {
    const text = JSON.stringify(schema);
    const known = seen.get(text);
    if (known !== undefined) return known;
    let reason: string | null = null;
    try {
      ajv.compile(schema);
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    seen.set(text, reason);
    return reason;
  };
}

/**
 * The schemas the server compiles for a route at first use: its path, query and Idempotency-Key
 * parameters and JSON body (src/api/validation.ts compileRouteValidator), its list filters
 * (src/api/list-values.ts).
 */
function routeSchemas(route: RouteDefinition): [string, JsonSchema][] {
  const schemas: [string, JsonSchema][] = route.parameters
    .filter((p) => p.in !== 'header' || p.name.toLowerCase() === 'idempotency-key')
    .map((p) => [`schema of parameter ${p.name}`, p.schema]);
  for (const [name, filter] of Object.entries(route.list?.filters ?? {})) schemas.push([`schema of filter ${name}`, filter.schema]);
  const body = route.requestBody?.content['application/json'];
  if (body) schemas.push(['request body schema', body]);
  return schemas;
}

/**
 * Every tool's schemas and every route's compiled with the runtime's ajv (src/runtime/ajv.ts),
 * which the server itself compiles only at first use (src/api/validation.ts). A schema ajv refuses
 * (most often a `pattern` that is no ECMAScript regular expression with the `u` flag, `^[a-z\:]+$`)
 * makes an UNCOMPILABLE_SCHEMA warning: its tool is excluded, nothing uncompilable is served over
 * MCP. A route is never excluded — it is the document's — but the warning says that it would fail
 * at first use (a 500), which the generator cannot fix; `--strict` makes it an error.
 */
function compileToolSchemas(plan: SpecPlan, update: (counts: string) => void): CompileFailure[] {
  const compileError = createCompileCheck(createAjv({ quiet: true, checkOnly: true }));
  const brokenRoutes = new Map<string, string>();
  for (const [index, route] of plan.routes.entries()) {
    if (index % 50 === 0) update(`compiling route schemas, ${index}/${plan.routes.length}`);
    for (const [which, schema] of routeSchemas(route)) {
      const reason = compileError(schema);
      if (reason !== null) {
        brokenRoutes.set(route.operation.operationId, `the ${which} of the REST route ${route.operation.method} ${route.operation.path} does not compile (${reason})`);
        break;
      }
    }
  }
  const failures: CompileFailure[] = [];
  const at = (operation: OperationRef) => ({ rule: 'UNCOMPILABLE_SCHEMA' as const, file: plan.file, pointer: operationPointer(operation) });
  for (const [index, tool] of plan.tools.entries()) {
    if (index % 50 === 0) update(`compiling tool schemas, ${index}/${plan.tools.length}`);
    for (const [which, schema] of [['inputSchema', tool.inputSchema], ['argument schema', tool.argumentSchema]] as const) {
      const reason = compileError(schema);
      if (reason === null) continue;
      const route = brokenRoutes.has(tool.operation.operationId) ? 'its REST route would fail at first use' : 'its REST route stays';
      brokenRoutes.delete(tool.operation.operationId);
      failures.push({ tool: tool.name, warning: { ...at(tool.operation), detail: `the ${which} of tool ${tool.name} does not compile (${reason}); the tool is excluded (${route})` } });
      break;
    }
  }
  for (const route of plan.routes) {
    const broken = brokenRoutes.get(route.operation.operationId);
    if (broken !== undefined) failures.push({ tool: null, warning: { ...at(route.operation), detail: `${broken}; the route would fail at first use` } });
  }
  return failures;
}

/** The plan with the named tools excluded (their operations and routes stay). */
function excludeTools(plan: SpecPlan, names: ReadonlySet<string>): SpecPlan {
  const operations = plan.operations.map((planned) => (planned.definition.toolName !== null && names.has(planned.definition.toolName)
    ? { ...planned, definition: { ...planned.definition, toolName: null } } : planned));
  return { ...plan, operations, ...buildViews(operations.map((planned) => planned.definition)) };
}

function megabytes(files: ReadonlyMap<string, string>): string {
  let length = 0;
  for (const text of files.values()) length += text.length;
  return `${(length / 1e6).toFixed(1)} MB`;
}
