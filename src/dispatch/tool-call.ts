/**
 * Runs one `tools/call` in-process through `OperationService.execute` (channel `mcp` comes with
 * the caller), keeping the order of docs/security.md#check-order-and-error-catalogue: membership → scope → permission →
 * workspace → arguments → Seguridad → budget → confirmation → endpoint. Knows nothing of
 * JSON-RPC or eras: confirmation is a callback the MCP layer supplies; results come back as data.
 */
import { ApiError } from '../api/errors.js';
import type { Caller, OperationOutput } from '../api/context.js';
import type { ConfirmationProof, ExecuteHooks, OperationService, PreparedCall } from '../api/service.js';
import type { ToolDefinition } from '../runtime/types.js';
import type { ArgumentValidator } from './tool-arguments.js';
import { buildToolInput } from './tool-input.js';

/** For src/mcp/confirmation.ts, which claims the one proof issuer when it loads (src/api/service.ts). */
export { claimConfirmationIssuer, type ConfirmationProof } from '../api/service.js';

/**
 * What the confirmation step decided for a destructive call (see src/mcp/confirmation.ts).
 * `proceed` carries the proof `execute` demands of a destructive MCP call; it consumes the
 * confirmation inside the write's transaction.
 */
export type ConfirmationDecision =
  | { readonly kind: 'proceed'; readonly proof: ConfirmationProof }
  | { readonly kind: 'input_required'; readonly result: Readonly<Record<string, unknown>> };

export type ConfirmStep = (prepared: PreparedCall) => Promise<ConfirmationDecision>;

export interface ToolCallRequest {
  readonly tool: ToolDefinition;
  readonly args: Readonly<Record<string, unknown>>;
  readonly caller: Caller;
  readonly connectionWorkspaceId: string | undefined;
  readonly validate: ArgumentValidator;
  /** Called for destructive tools only, after every check of `execute` passed (its `beforeExecute`). */
  readonly confirm: ConfirmStep;
}

export type ToolCallOutcome =
  | { readonly kind: 'output'; readonly output: OperationOutput; readonly workspaceId: string | null }
  | { readonly kind: 'error'; readonly error: ApiError; readonly workspaceId: string | null }
  | { readonly kind: 'input_required'; readonly result: Readonly<Record<string, unknown>>; readonly workspaceId: string | null };

export interface ToolCallDeps {
  readonly operations: OperationService;
}

/** Carries an `input_required` result out of `beforeExecute` (nothing was written). */
class InputRequired extends Error {
  constructor(readonly result: Readonly<Record<string, unknown>>) {
    super('input required');
  }
}

/** Runs the call; ApiErrors become an `error` outcome, anything else propagates (→ -32603). */
export async function runToolCall(deps: ToolCallDeps, request: ToolCallRequest): Promise<ToolCallOutcome> {
  let workspaceId: string | null = null;
  try {
    const { tool, caller } = request;
    // Built before validation so `execute` owns the order; it is only used once the arguments passed.
    const { input, workspaceArgument } = buildToolInput(tool, request.args);
    const output = await deps.operations.execute({
      operationId: tool.operation.operationId,
      caller,
      workspace: { argument: workspaceArgument ?? readWorkspaceArgument(request.args), connectionDefault: request.connectionWorkspaceId },
      input,
      // Authorization codes win over argument errors (docs/security.md#check-order-and-error-catalogue order): execute runs this after them.
      checkArguments: () => {
        const invalid = request.validate(request.args);
        if (invalid) throw invalid;
      },
      hooks: buildHooks(tool.operation.destructive ? request.confirm : undefined, (id) => { workspaceId = id; }),
    });
    return { kind: 'output', output, workspaceId };
  } catch (error) {
    if (error instanceof InputRequired) return { kind: 'input_required', result: error.result, workspaceId };
    if (error instanceof ApiError) return { kind: 'error', error, workspaceId };
    throw error;
  }
}

/**
 * `execute` runs membership → scope → permission → workspace → arguments → Seguridad → budget,
 * then `beforeExecute`: the confirmation of a destructive tool is asked there, so it is only
 * asked for a call that passed every check (docs/protocol.md#confirmation-of-destructive-tools), and asked again on the resend.
 * The proof it hands back is what `execute` checks and consumes; it asks exactly when the
 * generated classification says `destructive` — the very field `execute` enforces.
 */
function buildHooks(confirm: ConfirmStep | undefined, recordWorkspace: (id: string | null) => void): ExecuteHooks {
  return {
    authorized: recordWorkspace,
    beforeExecute: async (prepared) => {
      if (confirm === undefined) return undefined;
      const decision = await confirm(prepared);
      if (decision.kind === 'input_required') throw new InputRequired(decision.result);
      return decision.proof;
    },
  };
}

/** An invalid call still resolves the workspace it named (a string) before reporting arguments. */
function readWorkspaceArgument(args: Readonly<Record<string, unknown>>): string | undefined {
  const value = args['workspace_id'];
  return typeof value === 'string' ? value : undefined;
}
