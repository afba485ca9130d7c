/**
 * Runs one `tools/call` in-process through `OperationService.execute` (channel `mcp` comes with
 * the caller), keeping the order of docs/security.md#check-order-and-error-catalogue: membership → scope → permission →
 * workspace → arguments → Seguridad → budget → confirmation → endpoint. Knows nothing of
 * JSON-RPC or eras: confirmation is the MCP layer's two steps (verify a resend, ask when
 * `execute` answers `needs_confirmation`); results come back as data.
 */
import { ApiError } from '../api/index.js';
import type { Caller, OperationOutput } from '../api/index.js';
import type { ConfirmationProof, OperationService, PreparedCall } from '../api/index.js';
import type { ToolDefinition } from '../runtime/types.js';
import type { ArgumentValidator } from './tool-arguments.js';
import { buildToolInput } from './tool-input.js';

/** For src/mcp/confirmation.ts, which claims the one proof issuer when it loads (src/api/service.ts). */
export { claimConfirmationIssuer, type ConfirmationProof } from '../api/index.js';

/** The confirmation of one destructive call (src/mcp/confirmation.ts), bound to the call by the MCP layer. */
export interface CallConfirmation {
  /** `execute`'s `beforeExecute`: the proof for a resend the person accepted, or nothing yet. */
  readonly verify: (prepared: PreparedCall) => Promise<ConfirmationProof | undefined>;
  /** `execute` answered `needs_confirmation`: the `input_required` result that asks (or an ApiError). */
  readonly ask: (prepared: PreparedCall) => Promise<Readonly<Record<string, unknown>>>;
}

export interface ToolCallRequest {
  readonly tool: ToolDefinition;
  readonly args: Readonly<Record<string, unknown>>;
  readonly caller: Caller;
  readonly connectionWorkspaceId: string | undefined;
  readonly validate: ArgumentValidator;
  /** Used for destructive tools only, after every check of `execute` passed. */
  readonly confirmation: CallConfirmation;
  /** A list page holds at most this many bytes of rows (`ListQuery.maxBytes`); unset: not cut. */
  readonly listByteBudget?: number | undefined;
}

export type ToolCallOutcome =
  | { readonly kind: 'done'; readonly output: OperationOutput; readonly replayed: boolean; readonly workspaceId: string | null }
  | { readonly kind: 'error'; readonly error: ApiError; readonly workspaceId: string | null }
  | { readonly kind: 'input_required'; readonly result: Readonly<Record<string, unknown>>; readonly workspaceId: string | null };

export interface ToolCallDeps {
  readonly operations: OperationService;
}

/** Runs the call; ApiErrors become an `error` outcome, anything else propagates (→ -32603). */
export async function runToolCall(deps: ToolCallDeps, request: ToolCallRequest): Promise<ToolCallOutcome> {
  let workspaceId: string | null = null;
  try {
    const { tool, caller } = request;
    // Built before validation so `execute` owns the order; it is only used once the arguments passed.
    const built = buildToolInput(tool, request.args);
    const { workspaceArgument } = built;
    const input = built.input.list && request.listByteBudget !== undefined
      ? { ...built.input, list: { ...built.input.list, maxBytes: request.listByteBudget } }
      : built.input;
    const result = await deps.operations.execute({
      operationId: tool.operation.operationId,
      caller,
      workspace: { argument: workspaceArgument ?? readWorkspaceArgument(request.args), connectionDefault: request.connectionWorkspaceId },
      input,
      // Authorization codes win over argument errors (docs/security.md#check-order-and-error-catalogue order): execute runs this after them.
      checkArguments: () => {
        const invalid = request.validate(request.args);
        if (invalid) throw invalid;
      },
      // `execute` runs membership → scope → permission → workspace → arguments → Seguridad →
      // budget, then `beforeExecute`: a resend is verified only for a call that passed every check
      // (docs/protocol.md#confirmation-of-destructive-tools). Only for tools the generated
      // classification calls `destructive` — the very field `execute` enforces.
      hooks: {
        authorized: (id) => { workspaceId = id; },
        ...(tool.operation.destructive ? { beforeExecute: request.confirmation.verify } : {}),
      },
    });
    if (result.kind === 'done') return { kind: 'done', output: result.output, replayed: result.replayed, workspaceId };
    // Every check passed and nothing ran: the MCP layer asks the person (or says it cannot).
    return { kind: 'input_required', result: await request.confirmation.ask(result.prepared), workspaceId };
  } catch (error) {
    if (error instanceof ApiError) return { kind: 'error', error, workspaceId };
    throw error;
  }
}

/** An invalid call still resolves the workspace it named (a string) before reporting arguments. */
function readWorkspaceArgument(args: Readonly<Record<string, unknown>>): string | undefined {
  const value = args['workspace_id'];
  return typeof value === 'string' ? value : undefined;
}
