/**
 * The seam between transports and the Finance API. REST (`src/http/rest`) and MCP
 * (`src/mcp/tools`) both call `OperationService.execute`, which runs every check of
 * docs/security.md#check-order-and-error-catalogue in order — membership → scope → permission → workspace → arguments →
 * Seguridad → API budget → [hooks, e.g. confirmation] → the operation — inside one database
 * transaction for writes. Transports never reach operations any other way. `execute` answers
 * data and outcomes (`ExecuteResult`), never HTTP: statuses and headers are REST's, tool results MCP's.
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
  /** Right after membership → scope → permission → workspace passed, with the resolved workspace (e.g. for the call's log line). */
  readonly authorized?: (workspaceId: string | null) => void;
  /**
   * After every check passed, before the transaction opens: resolves to the `ConfirmationProof`
   * the transport holds for this call (MCP: a resend the person accepted), or to nothing — then a
   * destructive MCP call is answered `needs_confirmation` and nothing runs.
   */
  readonly beforeExecute?: (prepared: PreparedCall) => Promise<ConfirmationProof | void>;
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
  /**
   * The transport's own check of the arguments as the client sent them, run by `execute` in
   * place of the route's schemas (unsafe text is still refused): MCP checks the tool's
   * `inputSchema`, so a tool call is validated once and its issues name tool arguments.
   * Throws VALIDATION_ERROR.
   */
  readonly checkArguments?: () => void;
  readonly hooks?: ExecuteHooks;
}

/** A call before its input is read: enough for the checks that come before arguments. */
export interface AuthorizeRequest {
  readonly operationId: string;
  readonly caller: Caller;
  readonly workspace: WorkspaceHint;
}

/** The operation ran (or an Idempotency-Key replay answered it): its output, for the transport to render. */
export interface ExecuteDone {
  readonly kind: 'done';
  readonly output: OperationOutput;
  /** Answered from the stored response of the same Idempotency-Key: nothing ran again. */
  readonly replayed: boolean;
  /** The API budget after this call was counted; absent when no budget is kept. */
  readonly budget?: BudgetDecision;
}

/**
 * A destructive call on the `mcp` channel came without a confirmation proof: every check passed,
 * nothing ran. The MCP layer decides how to ask the person (src/mcp/tools/confirmation/).
 */
export interface ExecuteNeedsConfirmation {
  readonly kind: 'needs_confirmation';
  readonly prepared: PreparedCall;
}

export type ExecuteResult = ExecuteDone | ExecuteNeedsConfirmation;

export interface OperationService {
  /** Runs one operation with all checks; throws `ApiError` for anything the caller can act on. */
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
  /**
   * The checks `execute` runs before arguments — membership → scope → permission → workspace —
   * with the very same answers; returns the resolved workspace. Lets a transport refuse before
   * it reads a body or parses a query. `execute` runs them again: it stays the one authority.
   */
  authorize(request: AuthorizeRequest): Promise<string | null>;
  /** Scope and permission only (no workspace): whether the caller could run the operation. Used to filter tools/list. */
  canReach(caller: Caller, operation: OperationRef): boolean;
}

/** The state of one budget after a call was counted (REST renders it as `RateLimit-*`). */
export interface BudgetDecision {
  readonly limit: number;
  readonly remaining: number;
  /** Seconds until the window frees capacity. */
  readonly resetSeconds: number;
}

/**
 * The API budget per person per organization, shared by REST and MCP (docs/security.md#limits).
 * `consume` counts one call; over budget it throws `ApiError('RATE_LIMITED', …,
 * {retry_after_seconds, limit})`.
 */
export interface ApiBudget {
  consume(personId: string, organizationId: string, kind: 'read' | 'write'): Promise<BudgetDecision>;
}

/**
 * Proof that the person confirmed one destructive MCP call (docs/security.md#confirmation). `execute` answers a
 * destructive call on the `mcp` channel without one `needs_confirmation`, refuses anything
 * offered as a proof that is not one (`confirmation_required`), and runs
 * `consumeInTransaction` inside the write's transaction, before the operation, so the
 * confirmation's nonce is burnt with the write or not at all.
 *
 * Only objects made by the issuer count (`isConfirmationProof`), and the issuer is handed out
 * once per process: `src/mcp/tools/confirmation/confirmation.ts` claims it when it loads and keeps it private. A
 * look-alike object is refused; a second claim throws, so another module cannot quietly mint.
 */
export interface ConfirmationProof {
  /** Consumes the confirmation for this call; throws (e.g. `confirmation_replayed`) to stop it and roll back. */
  readonly consumeInTransaction: (trx: Kysely<Database>, prepared: PreparedCall) => Promise<void>;
}

export type ConfirmationProofIssuer = (consumeInTransaction: ConfirmationProof['consumeInTransaction']) => ConfirmationProof;

const issuedProofs = new WeakSet<object>();
let issuerClaimed = false;

/** Hands out the only way to make a `ConfirmationProof`; throws on a second call. */
export function claimConfirmationIssuer(): ConfirmationProofIssuer {
  if (issuerClaimed) throw new Error('The confirmation proof issuer was already claimed (it belongs to src/mcp/tools/confirmation/confirmation.ts).');
  issuerClaimed = true;
  return (consumeInTransaction) => {
    const proof: ConfirmationProof = Object.freeze({ consumeInTransaction });
    issuedProofs.add(proof);
    return proof;
  };
}

/** Whether `value` was made by the issuer (not merely shaped like a proof). */
export function isConfirmationProof(value: unknown): value is ConfirmationProof {
  return typeof value === 'object' && value !== null && issuedProofs.has(value);
}
