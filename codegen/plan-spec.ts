/**
 * Plans a whole document: one OperationModel per operation, turned into its OperationDefinition
 * (the generated model) with its tool name (unless `x-mcp.exclude`), in the shape the document's
 * settings ask for (`x-kobana-codegen`, codegen/settings.ts); tool names, operation file names and
 * operationIds are made unique (planToolNames, planModuleNames, uniqueOperationIds). The routes,
 * tools and resource templates of the plan are the views the runtime builds from those definitions
 * (src/runtime/views.ts), computed here too so a tool that cannot be built fails the build.
 * Rendering the plan into files is emit/'s job.
 */
import { buildViews, compareText } from '../src/runtime/views.js';
import type { HttpMethod, OperationDefinition, ResourceTemplateDefinition, RouteDefinition, ToolDefinition } from '../src/runtime/types.js';
import { undescribedArguments } from './argument-texts.js';
import { planConfirmation } from './classify.js';
import { CodegenError, type SpecWarning } from './errors.js';
import type { LoadedSpec } from './load-spec.js';
import { fitToolName, operationSlug, startsWithLetter, usableOperationSlug, withHashSuffix } from './naming.js';
import { HTTP_METHODS, planOperation, toDefinition, type OperationModel } from './plan-operation.js';
import { planToolName } from './plan-tool.js';
import { readSettings, type CodegenSettings } from './settings.js';
import { checkAliases, expiredAliases, utcToday } from './surface/aliases.js';
import type { BreakingAcknowledgement } from './surface/extensions.js';

type Obj = Record<string, unknown>;

/** One operation's generated model and the name of its module (`operations/<module>.gen.ts`). */
export interface PlannedDefinition {
  readonly module: string;
  readonly definition: OperationDefinition;
  /** `x-mcp.breaking`: read by the change report's review copy (codegen/surface/review.ts), not by the runtime. */
  readonly breaking: BreakingAcknowledgement | null;
}

export interface SpecPlan {
  readonly file: string;
  readonly sha256: string;
  /** Sorted by module name. */
  readonly operations: readonly PlannedDefinition[];
  readonly tools: readonly ToolDefinition[];
  readonly routes: readonly RouteDefinition[];
  readonly resourceTemplates: readonly ResourceTemplateDefinition[];
  /** Operations with a method the runtime cannot serve (HEAD, OPTIONS, TRACE): reported, not planned. */
  readonly skipped: readonly string[];
  /**
   * Names the planner had to derive or disambiguate, and (`checks: [argument-texts]`) arguments
   * whose text only restates their name (the document's own warnings are LoadedSpec's).
   */
  readonly warnings: readonly SpecWarning[];
}

export interface PlanOptions {
  /** The date (`YYYY-MM-DD`) tool aliases expire against; default today in UTC. */
  readonly today?: string;
}

export function planSpec(spec: LoadedSpec, options: PlanOptions = {}): SpecPlan {
  const settings = readSettings(spec.file, spec.document);
  const models = collectOperations(spec, settings);
  const warnings: SpecWarning[] = [];
  const toolNames = planToolNames(models.planned, settings.toolPrefix, warnings);
  checkAliases(models.planned, toolNames);
  warnings.push(...expiredAliases(models.planned, toolNames, options.today ?? utcToday()));
  const modules = planModuleNames(models.planned);
  const operations: PlannedDefinition[] = [];
  for (const model of models.planned) {
    const toolName = toolNames.get(model) ?? null;
    const definition = toDefinition(model, toolName);
    operations.push({ module: modules.get(model) ?? '', definition, breaking: model.mcp.breaking });
  }
  operations.sort((a, b) => compareText(a.module, b.module));
  const views = buildViews(operations.map((planned) => planned.definition));
  if (settings.checks.has('argument-texts')) checkArgumentTexts(views.tools, models.planned, warnings);
  return { file: spec.file, sha256: spec.sha256, operations, ...views, skipped: models.skipped, warnings };
}

/**
 * Arguments say what they are (codegen/argument-texts.ts): in a document whose settings check
 * `argument-texts` (ours), every argument a tool shows whose description is missing or only
 * restates its name is an ARGUMENT_TEXT warning at its operation, so `--strict` (CI) refuses a new
 * endpoint with an "Id." or no text. Other documents are shown as their authors wrote them.
 */
function checkArgumentTexts(tools: readonly ToolDefinition[], models: readonly OperationModel[], warnings: SpecWarning[]): void {
  const byOperationId = new Map(models.map((model) => [model.ref.operationId, model] as const));
  for (const tool of tools) {
    const model = byOperationId.get(tool.operation.operationId);
    if (!model) throw new Error(`argument texts: no model for ${tool.operation.operationId}`);
    for (const argument of undescribedArguments(tool.inputSchema, tool.args)) {
      const said = typeof argument.description === 'string' ? `is described ${JSON.stringify(argument.description)}, which only repeats its name` : 'has no description';
      warnings.push({ rule: 'ARGUMENT_TEXT', file: model.file, pointer: model.pointer,
        detail: `argument ${argument.path} of ${tool.name} ${said}; say what it is (an id: whose id; a date or amount: of what)` });
    }
  }
}

/**
 * Tool names: an explicit `x-mcp.name` is kept as written (an invalid one, or one another
 * operation's name already has, fails: it is a promise to clients). Derived names that several
 * operations share all get a hash suffix of their method and path — stable, and independent of the
 * order of the document — and each rename, or a name derived because the operationId was
 * unusable, is reported as a DERIVED_TOOL_NAME warning.
 */
function planToolNames(models: readonly OperationModel[], prefix: string, warnings: SpecWarning[]): Map<OperationModel, string> {
  const names = new Map<OperationModel, string>();
  const owners = new Map<string, OperationModel>();
  const claim = (model: OperationModel, name: string): void => {
    const owner = owners.get(name);
    if (owner) {
      throw new CodegenError('NAME_CLASH', model.file, model.pointer,
        `tool name ${name} of ${model.ref.method} ${model.ref.path} clashes with ${owner.ref.method} ${owner.ref.path} (${owner.pointer}); set x-mcp.name on one of them`);
    }
    owners.set(name, model);
    names.set(model, name);
  };
  const named = models.filter((model) => !model.mcp.exclude);
  for (const model of named) if (model.mcp.name !== undefined) claim(model, planToolName(model, prefix));
  const derived = new Map(named.filter((model) => model.mcp.name === undefined).map((model) => [model, planToolName(model, prefix)] as const));
  const shared = new Map<string, number>();
  for (const name of derived.values()) shared.set(name, (shared.get(name) ?? 0) + 1);
  for (const [model, name] of derived) {
    const count = shared.get(name) ?? 0;
    if (count > 1) {
      const renamed = withHashSuffix(name, `${model.ref.method} ${model.ref.path}`);
      warnings.push({ rule: 'DERIVED_TOOL_NAME', file: model.file, pointer: model.pointer,
        detail: `${count} operations would be named ${name}; ${model.ref.method} ${model.ref.path} is named ${renamed}` });
      claim(model, renamed);
      continue;
    }
    const slug = usableOperationSlug(model.declaredOperationId);
    if (model.declaredOperationId !== undefined && slug === undefined) {
      warnings.push({ rule: 'DERIVED_TOOL_NAME', file: model.file, pointer: `${model.pointer}/operationId`,
        detail: `operationId ${JSON.stringify(model.declaredOperationId)} gives no usable tool name; named ${name} from its method and path` });
    } else if (slug !== undefined && !startsWithLetter(prefix + slug)) {
      warnings.push({ rule: 'DERIVED_TOOL_NAME', file: model.file, pointer: `${model.pointer}/operationId`,
        detail: `operationId ${JSON.stringify(model.declaredOperationId)} does not start with a letter; named ${name}, led by its method` });
    }
    claim(model, name);
  }
  return names;
}

/** `payables.settle` → `payables_settle`: a file name and an identifier suffix, made unique like tool names. */
function planModuleNames(models: readonly OperationModel[]): Map<OperationModel, string> {
  const slugs = new Map(models.map((model) => [model, fitToolName(operationSlug(model.declaredOperationId, model.ref.method, model.ref.path) || 'operation')] as const));
  const shared = new Map<string, number>();
  for (const slug of slugs.values()) shared.set(slug, (shared.get(slug) ?? 0) + 1);
  const modules = new Map<OperationModel, string>();
  const owners = new Map<string, OperationModel>();
  for (const [model, slug] of slugs) {
    const module = (shared.get(slug) ?? 0) > 1 ? withHashSuffix(slug, `${model.ref.method} ${model.ref.path}`) : slug;
    const owner = owners.get(module);
    if (owner) {
      throw new CodegenError('NAME_CLASH', model.file, model.pointer,
        `${model.ref.method} ${model.ref.path} has the module name ${module} of ${owner.ref.method} ${owner.ref.path} (${owner.pointer}); rename one of them`);
    }
    owners.set(module, model);
    modules.set(model, module);
  }
  return modules;
}

/**
 * operationIds identify operations at run time (handlers, confirmation targets), so they must be
 * unique: a declared one written twice is an invalid document; a derived one (no operationId)
 * that another operation already has gets a hash suffix.
 */
function uniqueOperationIds(models: readonly OperationModel[]): OperationModel[] {
  const declared = new Map<string, OperationModel>();
  for (const model of models) {
    if (model.declaredOperationId === undefined) continue;
    const owner = declared.get(model.declaredOperationId);
    if (owner) {
      throw new CodegenError('INVALID_DOCUMENT', model.file, `${model.pointer}/operationId`,
        `operationId ${JSON.stringify(model.declaredOperationId)} is also the operationId of ${owner.ref.method} ${owner.ref.path} (${owner.pointer}) [OpenAPI: operationId must be unique]`);
    }
    declared.set(model.declaredOperationId, model);
  }
  const derivedCount = new Map<string, number>();
  for (const model of models) if (model.declaredOperationId === undefined) derivedCount.set(model.ref.operationId, (derivedCount.get(model.ref.operationId) ?? 0) + 1);
  return models.map((model) => {
    if (model.declaredOperationId !== undefined) return model;
    const id = model.ref.operationId;
    if (!declared.has(id) && (derivedCount.get(id) ?? 0) < 2) return model;
    return { ...model, ref: { ...model.ref, operationId: withHashSuffix(id, `${model.ref.method} ${model.ref.path}`) } };
  });
}

function collectOperations(spec: LoadedSpec, settings: CodegenSettings): { planned: OperationModel[]; skipped: string[] } {
  const paths = (spec.document.paths ?? {}) as Record<string, Obj>;
  const ctx = { file: spec.file, settings, defaultSecurity: spec.document.security };
  const found: OperationModel[] = [];
  const skipped: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!item || typeof item !== 'object') continue;
    for (const key of ['head', 'options', 'trace']) if (item[key]) skipped.push(`${key.toUpperCase()} ${path}`);
    for (const method of HTTP_METHODS) {
      const operation = item[method.toLowerCase()];
      if (operation && typeof operation === 'object') found.push(planOperation(ctx, path, method as HttpMethod, item, operation as Obj));
    }
  }
  // The confirmation of a destructive operation may read its target through another operation.
  // Targets are looked up among the final operationIds (a clash may have renamed one).
  const unique = uniqueOperationIds(found);
  const confirmationsRequired = settings.checks.has('confirmations');
  const planned = unique.map((model) => ({ ...model, ref: { ...model.ref, confirmation: planConfirmation(model, unique, confirmationsRequired) } }));
  return { planned, skipped };
}
