/**
 * `tools/list` (ready bytes per caller, era and view) and `tools/call` (lookup in the view →
 * arguments decoded from the view's schema form → dispatch → result mapping → log line).
 * Authorization, argument validation order and execution belong to `src/dispatch`;
 * confirmation of destructive tools to the injected `confirm` hook.
 */
import type { Kysely } from 'kysely';
import type { Metrics } from '../../http/metrics.js';
import type { Database } from '../../store/schema.js';
import { DEFAULT_LIST_LIMIT, isListTool, runToolCall, type ArgumentValidator, type OperationService, type ToolCallOutcome } from '../../dispatch/index.js';
import type { ToolDefinition } from '../../runtime/types.js';
import { databaseFailureKind, databaseOutageReason, isDatabaseUnavailable } from '../../store/db-unavailable.js';
import { recordToolCall } from '../call-log.js';
import { confirmationUnavailable, type ConfirmationRequest, type DestructiveCallConfirmation } from '../confirmation.js';
import { INVALID_PARAMS, JsonRpcError } from '../json-rpc.js';
import type { ToolCatalog } from '../tool-catalog.js';
import { renderApiError, renderOutput, type PageCut } from '../tool-result.js';
import { knowsStructuredOutput } from '../versions.js';
import type { MethodContext, MethodTable } from './types.js';
import { isPlainObject } from '../../runtime/values.js';

export interface ToolMethodDeps {
  readonly catalog: ToolCatalog;
  readonly validators: ReadonlyMap<string, ArgumentValidator>;
  readonly operations: OperationService;
  readonly db: Kysely<Database>;
  readonly confirm: DestructiveCallConfirmation;
  readonly metrics: Partial<Metrics> | undefined;
}

/**
 * The most bytes of rows one list page carries over MCP (docs/protocol.md#answers-that-fit); the
 * list engine cuts a page holding more at a row boundary. An o200k token is at least one byte of
 * UTF-8, so a result of N bytes is at most N tokens whatever the rows hold: 24,000 bytes of rows
 * plus the envelope and the note stay under the ~25,000 tokens clients accept from one tool
 * (typical rows tokenize at ~3 bytes a token, so a full page is ~8,000 tokens).
 */
export const MAX_LIST_PAGE_BYTES = 24_000;

/** A list page with fewer rows than asked for and a next cursor was cut to fit (a last page has no cursor). */
function readPageCut(tool: ToolDefinition, args: Readonly<Record<string, unknown>>, body: unknown): PageCut | undefined {
  if (!isListTool(tool) || !isPlainObject(body) || !Array.isArray(body['data'])) return undefined;
  const meta = body['meta'];
  if (!isPlainObject(meta) || typeof meta['next_cursor'] !== 'string') return undefined;
  const requested = typeof args['limit'] === 'number' ? args['limit'] : DEFAULT_LIST_LIMIT;
  const returned = body['data'].length;
  return returned < requested ? { returned, requested } : undefined;
}

export function createToolMethods(deps: ToolMethodDeps): MethodTable {
  return {
    'tools/list': {
      eras: 'both',
      callerScoped: true,
      handle: async ({ caller, era, view }) => deps.catalog.listResult(caller, era, view),
    },
    'tools/call': {
      eras: 'both',
      callerScoped: false,
      handle: (ctx) => callTool(deps, ctx),
    },
  };
}

async function callTool(deps: ToolMethodDeps, ctx: MethodContext): Promise<Record<string, unknown>> {
  const startedAt = performance.now();
  const record = (tool: string, status: string, workspaceId: string | null): void =>
    recordToolCall(ctx.log, deps.metrics, { tool, status, workspaceId, startedAt, caller: ctx.caller, requestId: ctx.requestId, era: ctx.era });
  const name = ctx.params['name'];
  const sent = ctx.params['arguments'] ?? {};
  // A tool the view hides is not found, exactly like a tool that does not exist.
  const entry = typeof name === 'string' ? deps.catalog.find(name, ctx.view) : undefined;
  const validate = entry ? deps.validators.get(entry.tool.name) : undefined;
  if (entry === undefined || validate === undefined || !isPlainObject(sent)) {
    record('(unknown)', 'invalid_params', null);
    if (typeof name !== 'string') throw new JsonRpcError(INVALID_PARAMS, 'Missing tool name');
    throw new JsonRpcError(INVALID_PARAMS, entry ? 'Tool arguments must be an object' : 'Unknown tool');
  }
  const { tool } = entry;
  const args = deps.catalog.decodeArguments(entry, ctx.view, sent);
  const structured = knowsStructuredOutput(ctx.era);
  let outcome: ToolCallOutcome;
  let confirmed = false;
  const confirmationOf = (prepared: ConfirmationRequest['prepared']): ConfirmationRequest => ({
    era: ctx.era, clientCapabilities: ctx.era.clientCapabilities, tool, args, params: ctx.params, prepared,
  });
  try {
    outcome = await runToolCall({ operations: deps.operations }, {
      tool,
      args,
      caller: ctx.caller,
      connectionWorkspaceId: ctx.connectionWorkspaceId,
      validate,
      listByteBudget: MAX_LIST_PAGE_BYTES,
      confirmation: {
        verify: async (prepared) => {
          const proof = await deps.confirm.verify(confirmationOf(prepared));
          confirmed = proof !== undefined;
          return proof;
        },
        ask: (prepared) => deps.confirm.ask(confirmationOf(prepared)),
      },
    });
  } catch (error) {
    if (!confirmed) {
      // The database unreachable is answered HTTP 503 + Retry-After (handle-message.ts); the rest -32603.
      record(tool.name, isDatabaseUnavailable(error) ? 'unavailable' : 'internal', null);
      throw error;
    }
    // A confirmed call whose transaction failed for a reason that is not the operation's own
    // (store down, commit failed): rolled back with its nonce — docs/protocol.md#confirmation-of-destructive-tools confirmation_unavailable.
    // An outage (a full disk included) is logged below with its kind only.
    if (!isDatabaseUnavailable(error)) ctx.log.error({ err: error, tool: tool.name }, 'mcp: confirmed call failed inside its transaction');
    deps.metrics?.confirmations?.inc({ outcome: 'unavailable' });
    outcome = { kind: 'error', error: confirmationUnavailable(error), workspaceId: null };
  }
  switch (outcome.kind) {
    case 'done':
      record(tool.name, 'ok', outcome.workspaceId);
      return { ...renderOutput(tool, outcome.output, { replayed: outcome.replayed, structured, pageCut: readPageCut(tool, args, outcome.output.body) }) };
    case 'error':
      // Either path above, or the nonce store's own answer when its insert failed (a full disk's first write).
      if (confirmed && outcome.error.code === 'confirmation_unavailable' && isDatabaseUnavailable(outcome.error.cause)) logConfirmedOutage(ctx.log, tool.name, outcome.error.cause);
      record(tool.name, outcome.error.code, outcome.workspaceId);
      return { ...renderApiError(outcome.error, { structured }) };
    case 'input_required':
      record(tool.name, 'input_required', outcome.workspaceId);
      return { ...outcome.result };
  }
}

/** A confirmed call answered confirmation_unavailable because of an outage (a full disk included): its kind only, as every outage answer logs. */
function logConfirmedOutage(log: { warn(obj: object, msg: string): void }, tool: string, error: unknown): void {
  log.warn({ db_error: databaseFailureKind(error), reason: databaseOutageReason(error), tool }, 'mcp: confirmed call failed: database unavailable');
}
