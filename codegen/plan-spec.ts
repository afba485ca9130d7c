/**
 * Plans a whole document: one OperationModel per operation, its route, its tool (unless
 * `x-mcp.exclude`), resource templates for `GET /v1/<resource>/{id}`, name uniqueness and sorting.
 * Rendering the plan into files is emit/'s job.
 */
import type { HttpMethod, ResourceTemplateDefinition, RouteDefinition, ToolDefinition } from '../src/runtime/types.js';
import { planConfirmation } from './classify.js';
import { CodegenError } from './errors.js';
import type { LoadedSpec } from './load-spec.js';
import { HTTP_METHODS, planOperation, type OperationModel } from './plan-operation.js';
import { planRoute } from './plan-route.js';
import { planTool } from './plan-tool.js';

type Obj = Record<string, unknown>;

export interface SpecPlan {
  readonly file: string;
  readonly sha256: string;
  readonly tools: readonly ToolDefinition[];
  readonly routes: readonly RouteDefinition[];
  readonly resourceTemplates: readonly ResourceTemplateDefinition[];
  /** Operations with a method the runtime cannot serve (HEAD, OPTIONS, TRACE): reported, not planned. */
  readonly skipped: readonly string[];
}

const RESOURCE_GET_PATH = /^\/v1\/([^/{}]+)\/\{id\}$/;

export function planSpec(spec: LoadedSpec): SpecPlan {
  const models = collectOperations(spec);
  const tools: ToolDefinition[] = [];
  const owners = new Map<string, OperationModel>();
  const resourceTemplates: ResourceTemplateDefinition[] = [];
  for (const model of models.planned) {
    if (model.mcp.exclude) continue;
    const tool = planTool(model);
    const owner = owners.get(tool.name);
    if (owner) {
      throw new CodegenError('NAME_CLASH', model.file, model.pointer,
        `tool name ${tool.name} of ${model.ref.method} ${model.ref.path} clashes with ${owner.ref.method} ${owner.ref.path} (${owner.pointer}); set x-mcp.name on one of them`);
    }
    owners.set(tool.name, model);
    tools.push(tool);
    const template = planResourceTemplate(model, tool.name);
    if (template) resourceTemplates.push(template);
  }
  return {
    file: spec.file,
    sha256: spec.sha256,
    tools: tools.sort((a, b) => compareText(a.name, b.name)),
    routes: models.planned.map(planRoute).sort((a, b) => compareText(a.operation.path, b.operation.path) || compareText(a.operation.method, b.operation.method)),
    resourceTemplates: resourceTemplates.sort((a, b) => compareText(a.uriTemplate, b.uriTemplate)),
    skipped: models.skipped,
  };
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

/** A `kobana://finance/<resource>/{id}` template for each `GET /v1/<resource>/{id}` tool. */
function planResourceTemplate(model: OperationModel, toolName: string): ResourceTemplateDefinition | null {
  const match = model.ref.method === 'GET' ? RESOURCE_GET_PATH.exec(model.ref.path) : null;
  if (!match) return null;
  return {
    uriTemplate: `kobana://finance/${match[1]}/{id}`,
    name: toolName,
    title: model.title,
    description: model.description,
    mimeType: 'application/json',
    operation: model.ref,
  };
}

/** Locale-independent ordering, so output never depends on the machine's locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
