/**
 * Plans a whole document: one OperationModel per operation, turned into its OperationDefinition
 * (the generated model) with its tool name (unless `x-mcp.exclude`); tool names and operation
 * file names must be unique. The routes, tools and resource templates of the plan are the views
 * the runtime builds from those definitions (src/runtime/views.ts), computed here too so a tool
 * that cannot be built fails the build. Rendering the plan into files is emit/'s job.
 */
import { buildViews, compareText } from '../src/runtime/views.js';
import type { HttpMethod, OperationDefinition, ResourceTemplateDefinition, RouteDefinition, ToolDefinition } from '../src/runtime/types.js';
import { planConfirmation } from './classify.js';
import { CodegenError } from './errors.js';
import type { LoadedSpec } from './load-spec.js';
import { fitToolName, toSnakeCase } from './naming.js';
import { HTTP_METHODS, planOperation, toDefinition, type OperationModel } from './plan-operation.js';
import { planTool, planToolName } from './plan-tool.js';

type Obj = Record<string, unknown>;

/** One operation's generated model and the name of its module (`operations/<module>.gen.ts`). */
export interface PlannedDefinition {
  readonly module: string;
  readonly definition: OperationDefinition;
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
}

export function planSpec(spec: LoadedSpec): SpecPlan {
  const models = collectOperations(spec);
  const toolOwners = new Map<string, OperationModel>();
  const moduleOwners = new Map<string, OperationModel>();
  const operations: PlannedDefinition[] = [];
  for (const model of models.planned) {
    const toolName = model.mcp.exclude ? null : planToolName(model);
    if (toolName !== null) {
      const owner = toolOwners.get(toolName);
      if (owner) {
        throw new CodegenError('NAME_CLASH', model.file, model.pointer,
          `tool name ${toolName} of ${model.ref.method} ${model.ref.path} clashes with ${owner.ref.method} ${owner.ref.path} (${owner.pointer}); set x-mcp.name on one of them`);
      }
      toolOwners.set(toolName, model);
    }
    const module = planModuleName(model);
    const owner = moduleOwners.get(module);
    if (owner) {
      throw new CodegenError('NAME_CLASH', model.file, model.pointer,
        `operationId ${model.ref.operationId} of ${model.ref.method} ${model.ref.path} has the module name ${module} of ${owner.ref.method} ${owner.ref.path} (${owner.pointer}); rename one of them`);
    }
    moduleOwners.set(module, model);
    const definition = toDefinition(model, toolName);
    if (toolName !== null) planTool(model, { ...definition, toolName });
    operations.push({ module, definition });
  }
  operations.sort((a, b) => compareText(a.module, b.module));
  const views = buildViews(operations.map((planned) => planned.definition));
  return { file: spec.file, sha256: spec.sha256, operations, ...views, skipped: models.skipped };
}

/** `payables.settle` → `payables_settle`: a file name and an identifier suffix. */
function planModuleName(model: OperationModel): string {
  return fitToolName(toSnakeCase(model.ref.operationId) || 'operation');
}

function collectOperations(spec: LoadedSpec): { planned: OperationModel[]; skipped: string[] } {
  const paths = (spec.document.paths ?? {}) as Record<string, Obj>;
  const kobanaSpec = Object.values(paths).some((item) => Object.values(item ?? {}).some((op) => !!op && typeof op === 'object' && 'x-kobana-permission' in (op as Obj)));
  const ctx = { file: spec.file, kobanaSpec, defaultSecurity: spec.document.security };
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
  const planned = found.map((model) => ({ ...model, ref: { ...model.ref, confirmation: planConfirmation(model, found, kobanaSpec) } }));
  return { planned, skipped };
}
