/**
 * `tools/call` after the method table: the tool looked up in the request's view (a hidden tool is
 * not found, exactly like one that does not exist) → arguments decoded from the view's schema
 * form (catalog.ts) → the call run through `execute` with the confirmation (run.ts) → its outcome
 * as a tool result (result.ts) → the call's log line and metrics (call-log.ts).
 */
import type { Logger } from 'pino';
import { confirmationUnavailable, type ApiError, type Caller, type DownloadLinks, type IssuedLink, type OperationService } from '../../api/index.js';
import type { Metrics } from '../../http/metrics.js';
import type { TraceSpan } from '../../http/tracing.js';
import type { JsonSchema, ToolDefinition } from '../../runtime/types.js';
import { readPageSize } from '../../runtime/views.js';
import { isPlainObject } from '../../runtime/values.js';
import { databaseFailureKind, databaseOutageReason, isDatabaseUnavailable } from '../../store/db-unavailable.js';
import { INVALID_PARAMS, JsonRpcError } from '../json-rpc.js';
import type { ToolView } from '../view.js';
import { knowsResourceLinks, knowsStructuredOutput, type Era } from '../versions.js';
import type { ArgumentValidator } from './arguments.js';
import { recordToolCall } from './call-log.js';
import type { CatalogEntry, ToolCatalog } from './catalog.js';
import type { DestructiveCallConfirmation } from './confirmation/types.js';
import { isListTool } from './input.js';
import { renderApiError, renderOutput, type NamedWorkspace, type PageCut } from './result.js';
import { runToolCall, type ToolCallOutcome } from './run.js';

export interface ToolCallDeps {
  readonly catalog: ToolCatalog;
  readonly validators: ReadonlyMap<string, ArgumentValidator>;
  readonly operations: OperationService;
  readonly confirm: DestructiveCallConfirmation;
  readonly metrics: Partial<Metrics> | undefined;
  /** Makes a download's link for the person (docs/security.md#download-links); absent, a download answers its API path only. */
  readonly downloadLinks?: Pick<DownloadLinks, 'issue'> | undefined;
}

/**
 * The most bytes of rows one list page carries over MCP (docs/protocol.md#answers-that-fit); the
 * list engine cuts a page holding more at a row boundary. An o200k token is at least one byte of
 * UTF-8, so a result of N bytes is at most N tokens whatever the rows hold: 24,000 bytes of rows
 * plus the envelope and the note stay under the ~25,000 tokens clients accept from one tool
 * (typical rows tokenize at ~3 bytes a token, so a full page is ~8,000 tokens).
 */
export const MAX_LIST_PAGE_BYTES = 24_000;

type Args = Readonly<Record<string, unknown>>;

/** What a `tools/call` is given of its request (the method table's `MethodContext` is one). */
export interface ToolCallContext {
  readonly era: Era;
  readonly params: Args;
  readonly caller: Caller;
  readonly connectionWorkspaceId: string | undefined;
  readonly log: Logger;
  readonly requestId: string | undefined;
  readonly view: ToolView;
  /** The message's span (src/http/tracing.ts): the call's log line carries its ids. */
  readonly span?: TraceSpan | undefined;
}

/** One call as it is being answered: what the result and the log line are made of. */
interface Call {
  readonly deps: ToolCallDeps;
  readonly ctx: ToolCallContext;
  readonly tool: ToolDefinition;
  readonly args: Args;
  readonly record: (status: string, workspaceId: string | null) => void;
  /** A download's link, made once the call succeeded. */
  readonly downloadLink?: IssuedLink | undefined;
}

/** The `limit` argument's schema of a list tool (its contract's page size). */
function listLimitSchema(tool: ToolDefinition): JsonSchema | undefined {
  const properties = tool.argumentSchema['properties'];
  const limit = isPlainObject(properties) ? properties['limit'] : undefined;
  return isPlainObject(limit) ? limit : undefined;
}

/** Each list tool's default page size, read from its schema once (tool definitions are built once, at start-up). */
const defaultLimits = new WeakMap<ToolDefinition, number>();

function defaultLimitOf(tool: ToolDefinition): number {
  let limit = defaultLimits.get(tool);
  if (limit === undefined) defaultLimits.set(tool, limit = readPageSize(listLimitSchema(tool)).default);
  return limit;
}

/** A list page with fewer rows than asked for and a next cursor was cut to fit (a last page has no cursor). */
function readPageCut(tool: ToolDefinition, args: Args, body: unknown): PageCut | undefined {
  if (!isListTool(tool) || !isPlainObject(body) || !Array.isArray(body['data'])) return undefined;
  const meta = body['meta'];
  if (!isPlainObject(meta) || typeof meta['next_cursor'] !== 'string') return undefined;
  const requested = typeof args['limit'] === 'number' ? args['limit'] : defaultLimitOf(tool);
  const returned = body['data'].length;
  return returned < requested ? { returned, requested } : undefined;
}

/** The tool the params name, its validator and its arguments; -32602 (logged as `invalid_params`) otherwise. */
function findTool(deps: ToolCallDeps, ctx: ToolCallContext, startedAt: number): { entry: CatalogEntry; validate: ArgumentValidator; sent: Args } {
  const name = ctx.params['name'];
  const sent = ctx.params['arguments'] ?? {};
  const entry = typeof name === 'string' ? deps.catalog.find(name, ctx.view) : undefined;
  const validate = entry ? deps.validators.get(entry.tool.name) : undefined;
  if (entry !== undefined && validate !== undefined && isPlainObject(sent)) return { entry, validate, sent };
  recordToolCall(ctx.log, deps.metrics, {
    tool: '(unknown)', status: 'invalid_params', workspaceId: null, startedAt, caller: ctx.caller, requestId: ctx.requestId, era: ctx.era, span: ctx.span,
  });
  if (typeof name !== 'string') throw new JsonRpcError(INVALID_PARAMS, 'Missing tool name');
  throw new JsonRpcError(INVALID_PARAMS, entry ? 'Tool arguments must be an object' : 'Unknown tool');
}

/**
 * A confirmed call whose transaction failed for a reason that is not the operation's own (store
 * down, commit failed): rolled back with its nonce — docs/protocol.md#confirmation-of-destructive-tools
 * confirmation_unavailable. An outage (a full disk included) is logged when rendered, with its kind only.
 */
function answerConfirmedFailure(call: Call, cause: unknown): ToolCallOutcome {
  if (!isDatabaseUnavailable(cause)) call.ctx.log.error({ err: cause, tool: call.tool.name }, 'mcp: confirmed call failed inside its transaction');
  call.deps.metrics?.confirmations?.inc({ outcome: 'unavailable' });
  return { kind: 'confirmed_error', error: confirmationUnavailable(cause), workspaceId: null };
}

/** A confirmed call answered confirmation_unavailable because of an outage (a full disk included): its kind only, as every outage answer logs. */
function logConfirmedOutage(call: Call, error: ApiError): void {
  if (error.code !== 'confirmation_unavailable' || !isDatabaseUnavailable(error.cause)) return;
  call.ctx.log.warn({ db_error: databaseFailureKind(error.cause), reason: databaseOutageReason(error.cause), tool: call.tool.name }, 'mcp: confirmed call failed: database unavailable');
}

/** The workspace a call ran in with its name, read from the membership loaded with the caller (no query). */
function nameWorkspace(caller: Caller, workspaceId: string | null): NamedWorkspace | undefined {
  const name = workspaceId === null ? undefined : caller.membership?.workspaceNames.get(workspaceId);
  return workspaceId === null || name === undefined ? undefined : { id: workspaceId, name };
}

function render(call: Call, outcome: ToolCallOutcome): Record<string, unknown> {
  const { tool } = call;
  const structured = knowsStructuredOutput(call.ctx.era);
  switch (outcome.kind) {
    case 'done':
      call.record('ok', outcome.workspaceId);
      return { ...renderOutput(tool, outcome.output, {
        replayed: outcome.replayed, structured, workspace: nameWorkspace(call.ctx.caller, outcome.workspaceId), pageCut: readPageCut(tool, call.args, outcome.output.body),
        downloadLink: call.downloadLink, resourceLinks: knowsResourceLinks(call.ctx.era),
      }) };
    case 'confirmed_call_failed':
      return render(call, answerConfirmedFailure(call, outcome.cause));
    case 'confirmed_error':
      // A confirmed call's own failure above, or the nonce store's answer when its insert failed (a full disk's first write).
      logConfirmedOutage(call, outcome.error);
      call.record(outcome.error.code, outcome.workspaceId);
      return { ...renderApiError(outcome.error) };
    case 'error':
      call.record(outcome.error.code, outcome.workspaceId);
      return { ...renderApiError(outcome.error) };
    case 'protocol_error':
      // A -32602 of the request (a `requestState` not issued for this call), logged as the other
      // invalid params are; the /mcp failure funnel (src/mcp/failure.ts) answers its JSON-RPC error.
      call.record('invalid_params', null);
      throw outcome.error;
    case 'input_required':
      call.record('input_required', outcome.workspaceId);
      return { ...outcome.result };
  }
}

export async function callTool(deps: ToolCallDeps, ctx: ToolCallContext): Promise<Record<string, unknown>> {
  const startedAt = performance.now();
  const { entry, validate, sent } = findTool(deps, ctx, startedAt);
  const { tool } = entry;
  const args = deps.catalog.decodeArguments(entry, ctx.view, sent);
  const record = (status: string, workspaceId: string | null): void =>
    recordToolCall(ctx.log, deps.metrics, { tool: tool.name, status, workspaceId, startedAt, caller: ctx.caller, requestId: ctx.requestId, era: ctx.era, span: ctx.span });
  const outcome = await runToolCall({ operations: deps.operations }, {
    tool, args, caller: ctx.caller, connectionWorkspaceId: ctx.connectionWorkspaceId, validate, listByteBudget: MAX_LIST_PAGE_BYTES,
    confirmation: deps.confirm,
    confirmationOf: (prepared) => ({ era: ctx.era, clientCapabilities: ctx.era.clientCapabilities, tool, args, params: ctx.params, prepared }),
  }).catch((error: unknown) => {
    // The database unreachable is answered HTTP 503 + Retry-After (the /mcp failure funnel); the rest -32603.
    record(isDatabaseUnavailable(error) ? 'unavailable' : 'internal', null);
    throw error;
  });
  return render({ deps, ctx, tool, args, record, downloadLink: await issueDownloadLink(deps, ctx.caller, outcome) }, outcome);
}

/** The link for the person to a file the call answered (docs/security.md#download-links), bound to its workspace. */
async function issueDownloadLink(deps: ToolCallDeps, caller: Caller, outcome: ToolCallOutcome): Promise<IssuedLink | undefined> {
  if (outcome.kind !== 'done' || outcome.output.file === undefined || outcome.workspaceId === null || deps.downloadLinks === undefined) return undefined;
  return deps.downloadLinks.issue({
    personId: caller.personId, organizationId: caller.organizationId, workspaceId: outcome.workspaceId,
    attachmentId: outcome.output.file.attachmentId, tokenType: caller.tokenType,
  });
}
