/**
 * `resources/list`, `resources/templates/list` and `resources/read` over a pluggable provider.
 * The default provider has no resources (the resources feature supplies the real one);
 * not found is -32602 with `data.uri` (modern) or -32002 (2025), in-band (docs/protocol.md#modern-era-2026-07-28, docs/protocol.md#2025-era).
 */
import { INVALID_PARAMS, JsonRpcError, RESOURCE_NOT_FOUND } from '../json-rpc.js';
import type { MethodContext, MethodTable } from './types.js';

export interface ResourceProvider {
  listResources(ctx: MethodContext): Promise<readonly Record<string, unknown>[]>;
  listResourceTemplates(ctx: MethodContext): Promise<readonly Record<string, unknown>[]>;
  /** The `contents` of the resource, or null when the caller cannot read it / it does not exist. */
  readResource(ctx: MethodContext, uri: string): Promise<readonly Record<string, unknown>[] | null>;
}

const emptyResourceProvider: ResourceProvider = {
  listResources: async () => [],
  listResourceTemplates: async () => [],
  readResource: async () => null,
};

function resourceNotFound(ctx: MethodContext, uri: string): JsonRpcError {
  return ctx.era.modern
    ? new JsonRpcError(INVALID_PARAMS, 'Resource not found', 200, { uri })
    : new JsonRpcError(RESOURCE_NOT_FOUND, 'Resource not found', 200, { uri });
}

export function createResourceMethods(provider: ResourceProvider = emptyResourceProvider): MethodTable {
  return {
    'resources/list': {
      eras: 'both',
      callerScoped: true,
      handle: async (ctx) => ({ resources: await provider.listResources(ctx) }),
    },
    'resources/templates/list': {
      eras: 'both',
      callerScoped: true,
      handle: async (ctx) => ({ resourceTemplates: await provider.listResourceTemplates(ctx) }),
    },
    'resources/read': {
      eras: 'both',
      callerScoped: true,
      handle: async (ctx) => {
        const uri = ctx.params['uri'];
        if (typeof uri !== 'string') throw new JsonRpcError(INVALID_PARAMS, 'Missing resource uri');
        const contents = await provider.readResource(ctx, uri);
        if (contents === null) throw resourceNotFound(ctx, uri);
        return { contents };
      },
    },
  };
}
