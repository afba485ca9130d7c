/**
 * Reads every page of a list operation through `OperationService.execute`, so the fixed
 * resources get exactly the checks (and API budget) of the equivalent tool calls. Bounded: a
 * document that would need more pages than `maxPages` is cut, and says so.
 */
import type { Caller } from '../../../api/index.js';
import type { OperationService, WorkspaceHint } from '../../../api/index.js';

export interface CollectedList {
  readonly rows: readonly Record<string, unknown>[];
  /** True when `maxPages` stopped the walk before `next_cursor` ran out. */
  readonly truncated: boolean;
}

export interface CollectRequest {
  readonly operationId: string;
  readonly caller: Caller;
  readonly workspace: WorkspaceHint;
  readonly maxPages: number;
}

interface ListBody { data?: unknown; meta?: { next_cursor?: unknown } }

export async function collectList(operations: OperationService, request: CollectRequest): Promise<CollectedList> {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < request.maxPages; page++) {
    const output = await operations.execute({
      operationId: request.operationId,
      caller: request.caller,
      workspace: request.workspace,
      input: { path: {}, query: {}, list: { limit: 100, filters: {}, ...(cursor !== undefined ? { cursor } : {}) } },
    });
    const body = (output.kind === 'done' ? output.output.body ?? {} : {}) as ListBody;
    if (Array.isArray(body.data)) rows.push(...(body.data as Record<string, unknown>[]));
    const next = body.meta?.next_cursor;
    if (typeof next !== 'string') return { rows, truncated: false };
    cursor = next;
  }
  return { rows, truncated: true };
}
