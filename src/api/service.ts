/**
 * The seam between transports and the Finance API. REST (`src/http/rest`) and MCP
 * (`src/dispatch`) both call `OperationService.execute`, which runs every check of
 * SECURITY.md §4 in order — membership → scope → permission → workspace → arguments →
 * Seguridad → API budget → [hooks, e.g. confirmation] → the operation — inside one database
 * transaction for writes. Transports never reach operations any other way.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { OperationRef } from '../runtime/types.js';
import type { Caller, OperationInput, OperationOutput } from './context.js';

export interface WorkspaceHint {
  /** The `workspace_id` argument of the call (MCP argument; REST has none). */
  readonly argument?: string | undefined;
  /** The connection default: `X-Workspace-Id` header or `?workspace_id=`. */
  readonly connectionDefault?: string | undefined;
}

/** Called between the checks and the write; may throw an ApiError to stop the call. */
export interface ExecuteHooks {
  /** After every check passed, before the transaction opens (e.g. ask for confirmation). */
  readonly beforeExecute?: (prepared: PreparedCall) => Promise<void>;
  /** Inside the operation's transaction, before the operation runs (e.g. consume a nonce). */
  readonly inTransaction?: (trx: Kysely<Database>, prepared: PreparedCall) => Promise<void>;
}

export interface PreparedCall {
  readonly operation: OperationRef;
  readonly caller: Caller;
  readonly workspaceId: string | null;
  readonly input: OperationInput;
}

export interface ExecuteRequest {
  readonly operationId: string;
  readonly caller: Caller;
  readonly workspace: WorkspaceHint;
  readonly input: OperationInput;
  readonly hooks?: ExecuteHooks;
}

export interface OperationService {
  /** Runs one operation with all checks; throws `ApiError` for anything the caller can act on. */
  execute(request: ExecuteRequest): Promise<OperationOutput>;
  /** Scope and permission only (no workspace): whether the caller could run the operation. Used to filter tools/list. */
  canReach(caller: Caller, operation: OperationRef): boolean;
}

/** The state of one budget after a call was counted (for `RateLimit-*` headers on REST). */
export interface BudgetDecision {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window frees capacity. */
  readonly resetSeconds: number;
}

/**
 * The API budget per person per organization, shared by REST and MCP (SECURITY.md §6).
 * `consume` counts one call; over budget it throws `ApiError('RATE_LIMITED', …,
 * {retry_after_seconds, limit})`.
 */
export interface ApiBudget {
  consume(personId: string, organizationId: string, kind: 'read' | 'write'): Promise<BudgetDecision>;
}
