/**
 * Runs one `tools/call` in-process: argument validation in the order of SECURITY.md §4
 * (membership → scope → permission → workspace → arguments → … → confirmation → endpoint),
 * then `OperationService.execute` with channel `mcp`. Knows nothing of JSON-RPC or eras: the
 * confirmation step is a callback the MCP layer supplies, and results go back as data.
 */
import type { Kysely } from 'kysely';
import { ApiError } from '../api/errors.js';
import type { Caller, OperationOutput } from '../api/context.js';
import type { ExecuteHooks, OperationService, PreparedCall, WorkspaceHint } from '../api/service.js';
import { assertMembership, assertPermission, assertScope, resolveWorkspace } from '../auth/authorize.js';
import type { ToolDefinition } from '../runtime/types.js';
import type { Database } from '../store/schema.js';
import type { ArgumentValidator } from './tool-arguments.js';
import { buildToolInput } from './tool-input.js';

/** What the confirmation step decided for a destructive call (see src/mcp/confirmation.ts). */
export type ConfirmationDecision =
  | { readonly kind: 'proceed'; readonly hooks?: ExecuteHooks }
  | { readonly kind: 'input_required'; readonly result: Readonly<Record<string, unknown>> };

export type ConfirmStep = (prepared: PreparedCall) => Promise<ConfirmationDecision>;

export interface ToolCallRequest {
  readonly tool: ToolDefinition;
  readonly args: Readonly<Record<string, unknown>>;
  readonly caller: Caller;
  readonly connectionWorkspaceId: string | undefined;
  readonly validate: ArgumentValidator;
  /** Called for destructive tools only, after every authorization check passed. */
  readonly confirm: ConfirmStep;
}

export type ToolCallOutcome =
  | { readonly kind: 'output'; readonly output: OperationOutput; readonly workspaceId: string | null }
  | { readonly kind: 'error'; readonly error: ApiError; readonly workspaceId: string | null }
  | { readonly kind: 'input_required'; readonly result: Readonly<Record<string, unknown>>; readonly workspaceId: string | null };

export interface ToolCallDeps {
  readonly operations: OperationService;
  readonly db: Kysely<Database>;
}

/** Runs the call; ApiErrors become an `error` outcome, anything else propagates (→ -32603). */
export async function runToolCall(deps: ToolCallDeps, request: ToolCallRequest): Promise<ToolCallOutcome> {
  let workspaceId: string | null = null;
  try {
    const { tool, caller } = request;
    const invalid = request.validate(request.args);
    const { input, workspaceArgument } = buildToolInput(tool, invalid ? {} : request.args);
    const hint: WorkspaceHint = {
      argument: workspaceArgument ?? readWorkspaceArgument(request.args),
      connectionDefault: request.connectionWorkspaceId,
    };
    const destructive = tool.annotations.destructiveHint;
    let hooks: ExecuteHooks | undefined;
    if (invalid || destructive) {
      // Authorization codes win over argument errors (SECURITY.md §4), and a confirmation is
      // only asked for a call the person could actually run.
      workspaceId = await checkAuthorization(deps.db, caller, tool, hint);
      if (invalid) throw invalid;
      const decision = await request.confirm({ operation: tool.operation, caller, workspaceId, input });
      if (decision.kind === 'input_required') return { kind: 'input_required', result: decision.result, workspaceId };
      hooks = decision.hooks;
    }
    const output = await deps.operations.execute({
      operationId: tool.operation.operationId,
      caller,
      workspace: hint,
      input,
      hooks: recordWorkspace(hooks, (id) => { workspaceId = id; }),
    });
    return { kind: 'output', output, workspaceId };
  } catch (error) {
    if (error instanceof ApiError) return { kind: 'error', error, workspaceId };
    throw error;
  }
}

/** The pre-checks `execute` also runs, in the same order; returns the resolved workspace. */
async function checkAuthorization(db: Kysely<Database>, caller: Caller, tool: ToolDefinition, hint: WorkspaceHint): Promise<string | null> {
  assertMembership(caller);
  assertScope(caller, tool.operation);
  assertPermission(caller, tool.operation);
  return tool.operation.workspaceScoped ? resolveWorkspace(db, caller, hint) : null;
}

/** An invalid call still resolves the workspace it named (a string) before reporting arguments. */
function readWorkspaceArgument(args: Readonly<Record<string, unknown>>): string | undefined {
  const value = args['workspace_id'];
  return typeof value === 'string' ? value : undefined;
}

/** Wraps `beforeExecute` so the log line can name the workspace `execute` resolved. */
function recordWorkspace(hooks: ExecuteHooks | undefined, record: (id: string | null) => void): ExecuteHooks {
  return {
    ...hooks,
    beforeExecute: async (prepared) => {
      record(prepared.workspaceId);
      await hooks?.beforeExecute?.(prepared);
    },
  };
}
