/**
 * The `ResourceProvider` of `/mcp` (src/mcp/methods/resources.ts): lists the fixed documents
 * and the generated templates the caller may read, and reads `kobana://finance/...` URIs by
 * running the matching operation in-process with every check of `OperationService.execute`.
 * Era shaping beyond `title` (resultType, ttlMs, cacheScope) and the not-found error belong
 * to the mcp layer.
 */
import type { Caller } from '../../../api/index.js';
import { sanitizeDisplayText } from '../../../api/index.js';
import type { MethodContext, ResourceProvider } from '../../methods/index.js';
import { knowsTitles, type Era } from '../../versions.js';
import type { ResourceTemplateDefinition } from '../../../runtime/types.js';
import { findOperation, type FinanceFeatureDeps } from './deps.js';
import { FIXED_RESOURCES, type FixedResource } from './fixed.js';
import { mapReadError } from './read-errors.js';
import { matchTemplate, parseResourceUri, readTemplateResource, type TemplateMatch } from './uri.js';

type Contents = readonly Record<string, unknown>[];

/** `title` exists since 2025-06-18; 2025-03-26 gets the object without it. Titles are shown to people: sanitized. */
export function addEraTitle(era: Era, base: Record<string, unknown>, title: string): Record<string, unknown> {
  return knowsTitles(era) ? { ...base, title: sanitizeDisplayText(title) } : base;
}

export function canSeeFixed(deps: FinanceFeatureDeps, caller: Caller, resource: FixedResource): boolean {
  if (resource.requires === null) return true;
  const operation = findOperation(deps.tools, resource.requires);
  return operation !== undefined && deps.operations.canReach(caller, operation);
}

/** The templates this caller may read, in URI order (deterministic whatever the registry order). */
export function listReachableTemplates(deps: FinanceFeatureDeps, caller: Caller): ResourceTemplateDefinition[] {
  return deps.resourceTemplates
    .filter((template) => readTemplateResource(template) !== null && deps.operations.canReach(caller, template.operation))
    .sort((a, b) => (a.uriTemplate < b.uriTemplate ? -1 : a.uriTemplate > b.uriTemplate ? 1 : 0));
}

async function readTemplate(deps: FinanceFeatureDeps, ctx: MethodContext, uri: string, match: TemplateMatch): Promise<Contents | null> {
  try {
    const output = await deps.operations.execute({
      operationId: match.template.operation.operationId,
      caller: ctx.caller,
      workspace: { argument: match.workspaceId, connectionDefault: ctx.connectionWorkspaceId },
      input: { path: { id: match.id }, query: {} },
    });
    return [{ uri, mimeType: 'application/json', text: JSON.stringify(output.kind === 'done' ? output.output.body ?? null : null) }];
  } catch (error) {
    const mapped = mapReadError(error, uri);
    if (mapped === null) return null;
    throw mapped;
  }
}

async function readFixed(deps: FinanceFeatureDeps, ctx: MethodContext, uri: string, resource: FixedResource, workspaceId: string | undefined): Promise<Contents | null> {
  try {
    const text = await resource.read(deps, {
      caller: ctx.caller,
      parsed: { segments: [resource.key], workspaceId },
      connectionWorkspaceId: ctx.connectionWorkspaceId,
    });
    return [{ uri, mimeType: resource.mimeType, text }];
  } catch (error) {
    const mapped = mapReadError(error, uri);
    if (mapped === null) return null;
    throw mapped;
  }
}

export function createResourceProvider(deps: FinanceFeatureDeps): ResourceProvider {
  return {
    async listResources(ctx) {
      return FIXED_RESOURCES.filter((resource) => canSeeFixed(deps, ctx.caller, resource)).map((resource) =>
        addEraTitle(ctx.era, { uri: resource.uri, name: resource.name, description: resource.description, mimeType: resource.mimeType }, resource.title));
    },
    async listResourceTemplates(ctx) {
      return listReachableTemplates(deps, ctx.caller).map((template) => addEraTitle(ctx.era, {
        uriTemplate: template.uriTemplate,
        name: template.name,
        description: template.description,
        mimeType: template.mimeType,
      }, template.title));
    },
    async readResource(ctx, uri) {
      const parsed = parseResourceUri(uri);
      if (parsed === null) return null;
      if (parsed.segments.length === 1) {
        const resource = FIXED_RESOURCES.find((candidate) => candidate.key === parsed.segments[0]);
        if (resource === undefined || (!resource.workspaceScoped && parsed.workspaceId !== undefined)) return null;
        return readFixed(deps, ctx, uri, resource, parsed.workspaceId);
      }
      const match = matchTemplate(deps.resourceTemplates, parsed);
      return match === null ? null : readTemplate(deps, ctx, uri, match);
    },
  };
}
