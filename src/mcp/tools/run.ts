/**
 * Runs one `tools/call` in-process through `OperationService.execute` (channel `mcp` comes with
 * the caller), keeping the order of docs/security.md#check-order-and-error-catalogue: membership →
 * scope → permission → workspace → arguments → Seguridad → budget → confirmation → endpoint.
 * Knows nothing of JSON-RPC framing or eras: the confirmation's two steps (verify a resend, ask
 * when `execute` answers `needs_confirmation`) answer values, and the call answers a
 * `ToolCallOutcome` — a value for every decision, a protocol refusal (-32602, a foreign
 * `requestState`) included; only the unexpected propagates (→ -32603 or 503).
 */
import { ApiError, type Caller, type ConfirmationProof, type ExecuteRequest, type ExecuteResult, type OperationOutput, type OperationService, type PreparedCall } from '../../api/index.js';
import type { ToolDefinition } from '../../runtime/types.js';
import type { JsonRpcError } from '../json-rpc.js';
import type { ArgumentValidator } from './arguments.js';
import { isRefusal, type ConfirmationRequest, type DestructiveCallConfirmation, type Refusal, type Verdict } from './confirmation/types.js';
import { buildToolInput } from './input.js';

export interface ToolCallRequest {
  readonly tool: ToolDefinition;
  readonly args: Readonly<Record<string, unknown>>;
  readonly caller: Caller;
  readonly connectionWorkspaceId: string | undefined;
  readonly validate: ArgumentValidator;
  /** Used for destructive tools only, after every check of `execute` passed. */
  readonly confirmation: DestructiveCallConfirmation;
  /** The request as the confirmation sees it, once `execute` prepared the call. */
  readonly confirmationOf: (prepared: PreparedCall) => ConfirmationRequest;
  /** A list page holds at most this many bytes of rows (`ListQuery.maxBytes`); unset: not cut. */
  readonly listByteBudget?: number | undefined;
}

export type ToolCallOutcome =
  | { readonly kind: 'done'; readonly output: OperationOutput; readonly replayed: boolean; readonly workspaceId: string | null }
  /** Refused by a check or answered by the operation's error; no confirmation was accepted. */
  | { readonly kind: 'error'; readonly error: ApiError; readonly workspaceId: string | null }
  /** A confirmed call answered by an ApiError: the operation's own, or the nonce store's `confirmation_unavailable`. */
  | { readonly kind: 'confirmed_error'; readonly error: ApiError; readonly workspaceId: string | null }
  /** A confirmed call whose transaction failed for a reason that is not the operation's own (store down, commit failed). */
  | { readonly kind: 'confirmed_call_failed'; readonly cause: unknown }
  /** The person is asked: the `input_required` result. */
  | { readonly kind: 'input_required'; readonly result: Readonly<Record<string, unknown>>; readonly workspaceId: string | null }
  /** A JSON-RPC fault of the request itself (-32602: a `requestState` not issued for this call). */
  | { readonly kind: 'protocol_error'; readonly error: JsonRpcError };

export interface RunDeps {
  readonly operations: OperationService;
}

/** What one call learnt on its way through `execute`: the workspace it was authorized in, the confirmation's verdict. */
interface CallTrace {
  workspaceId: string | null;
  verdict: Verdict;
}

const isProof = (verdict: Verdict): verdict is ConfirmationProof => verdict !== undefined && !isRefusal(verdict);

/** An invalid call still resolves the workspace it named (a string) before reporting arguments. */
function readWorkspaceArgument(args: Readonly<Record<string, unknown>>): string | undefined {
  const value = args['workspace_id'];
  return typeof value === 'string' ? value : undefined;
}

function buildExecuteRequest(request: ToolCallRequest, trace: CallTrace): ExecuteRequest {
  const { tool } = request;
  // Built before validation so `execute` owns the order; it is only used once the arguments passed.
  const built = buildToolInput(tool, request.args);
  const input = built.input.list && request.listByteBudget !== undefined
    ? { ...built.input, list: { ...built.input.list, maxBytes: request.listByteBudget } }
    : built.input;
  const verify = async (prepared: PreparedCall): Promise<ConfirmationProof | undefined> => {
    trace.verdict = await request.confirmation.verify(request.confirmationOf(prepared));
    return isProof(trace.verdict) ? trace.verdict : undefined;
  };
  return {
    operationId: tool.operation.operationId,
    caller: request.caller,
    workspace: { argument: built.workspaceArgument ?? readWorkspaceArgument(request.args), connectionDefault: request.connectionWorkspaceId },
    input,
    // Authorization codes win over argument errors (docs/security.md#check-order-and-error-catalogue order): execute runs this after them.
    checkArguments: () => {
      const invalid = request.validate(request.args);
      if (invalid) throw invalid;
    },
    // `execute` runs membership → scope → permission → workspace → arguments → Seguridad →
    // budget, then `beforeExecute`: a resend is verified only for a call that passed every check
    // (docs/protocol.md#confirmation-of-destructive-tools). Only for tools the generated
    // classification calls `destructive` — the very field `execute` enforces: without a proof it
    // answers `needs_confirmation` and runs nothing, whatever the verdict was.
    hooks: {
      authorized: (id) => { trace.workspaceId = id; },
      ...(tool.operation.destructive ? { beforeExecute: verify } : {}),
    },
  };
}

/** The refusal answers the call: an ApiError as the tool's error result, a protocol fault as the JSON-RPC error it is. */
function refuse(refusal: Refusal, workspaceId: string | null): ToolCallOutcome {
  return refusal instanceof ApiError ? { kind: 'error', error: refusal, workspaceId } : { kind: 'protocol_error', error: refusal };
}

/** Every check passed and nothing ran: the verdict's refusal answers, or the person is asked. */
async function answerUnconfirmed(request: ToolCallRequest, prepared: PreparedCall, trace: CallTrace): Promise<ToolCallOutcome> {
  const { workspaceId, verdict } = trace;
  if (isRefusal(verdict)) return refuse(verdict, workspaceId);
  const question = await request.confirmation.ask(request.confirmationOf(prepared));
  if (question instanceof ApiError) return refuse(question, workspaceId);
  return { kind: 'input_required', result: question, workspaceId };
}

async function settle(request: ToolCallRequest, result: ExecuteResult, trace: CallTrace): Promise<ToolCallOutcome> {
  if (result.kind === 'done') return { kind: 'done', output: result.output, replayed: result.replayed, workspaceId: trace.workspaceId };
  return answerUnconfirmed(request, result.prepared, trace);
}

/** Runs the call; ApiErrors become an `error` outcome, anything else propagates (→ -32603) unless the call was confirmed. */
export async function runToolCall(deps: RunDeps, request: ToolCallRequest): Promise<ToolCallOutcome> {
  const trace: CallTrace = { workspaceId: null, verdict: undefined };
  try {
    return await settle(request, await deps.operations.execute(buildExecuteRequest(request, trace)), trace);
  } catch (error) {
    const confirmed = isProof(trace.verdict);
    if (error instanceof ApiError) return { kind: confirmed ? 'confirmed_error' : 'error', error, workspaceId: trace.workspaceId };
    if (confirmed) return { kind: 'confirmed_call_failed', cause: error };
    throw error;
  }
}
