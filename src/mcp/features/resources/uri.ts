/**
 * Parsing of `kobana://finance/...` URIs: the fixed documents and the generated templates
 * (`kobana://finance/<resource>/{id}`), each optionally followed by `?workspace_id=<id>`. Pure
 * string work; what a URI may read is decided by the readers.
 */
import type { ResourceTemplateDefinition } from '../../../runtime/types.js';

export const URI_PREFIX = 'kobana://finance/';

export interface ParsedResourceUri {
  /** Path segments after `kobana://finance/`, percent-decoded. */
  readonly segments: readonly string[];
  /** `?workspace_id=` of the URI, when present. */
  readonly workspaceId: string | undefined;
}

/**
 * Parses a URI of this server, or returns null. Only `workspace_id` may appear in the query:
 * any other parameter makes the URI unknown, so a typo never silently reads something else.
 */
export function parseResourceUri(uri: string): ParsedResourceUri | null {
  if (!uri.startsWith(URI_PREFIX) || uri.includes('#')) return null;
  const rest = uri.slice(URI_PREFIX.length);
  const queryAt = rest.indexOf('?');
  const path = queryAt === -1 ? rest : rest.slice(0, queryAt);
  const query = queryAt === -1 ? '' : rest.slice(queryAt + 1);
  let segments: string[];
  try {
    segments = path.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return null;
  }
  if (segments.some((segment) => segment === '')) return null;
  const params = new URLSearchParams(query);
  const keys = [...params.keys()];
  if (keys.some((key) => key !== 'workspace_id') || params.getAll('workspace_id').length > 1) return null;
  const workspaceId = params.get('workspace_id') ?? undefined;
  if (workspaceId === '') return null;
  return { segments, workspaceId };
}

/** `kobana://finance/payables/{id}` → `payables`; null for any other template shape. */
export function readTemplateResource(template: ResourceTemplateDefinition): string | null {
  const match = /^kobana:\/\/finance\/([a-z_]+)\/\{id\}$/.exec(template.uriTemplate);
  return match?.[1] ?? null;
}

export interface TemplateMatch {
  readonly template: ResourceTemplateDefinition;
  readonly id: string;
  readonly workspaceId: string | undefined;
}

/** The template a concrete URI instantiates, with its `{id}` and workspace. */
export function matchTemplate(templates: readonly ResourceTemplateDefinition[], parsed: ParsedResourceUri): TemplateMatch | null {
  if (parsed.segments.length !== 2) return null;
  const [resource, id] = parsed.segments;
  const template = templates.find((candidate) => readTemplateResource(candidate) === resource);
  if (template === undefined || id === undefined) return null;
  return { template, id, workspaceId: parsed.workspaceId };
}
