/**
 * The vocabulary of the MCP confirmation of destructive tools (docs/protocol.md#confirmation-of-destructive-tools):
 * what a step is asked about (`ConfirmationRequest`) and what it answers. Decisions are returned,
 * never thrown: `verify` answers a `Verdict`, `ask` a `Question`; the tool call renders them
 * (src/mcp/tools/run.ts).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { ApiError, type ConfirmationProof, type DescribeTarget, type PreparedCall, type ProofBinding } from '../../../api/index.js';
import type { ApprovalLinks } from '../../../oauth/approvals.js';
import type { ToolDefinition } from '../../../runtime/types.js';
import type { Database } from '../../../store/schema.js';
import { JsonRpcError } from '../../json-rpc.js';
import type { Era } from '../../versions.js';

export interface ConfirmationRequest {
  readonly era: Era;
  /** Modern era: the request's `clientCapabilities`; 2025 era: undefined (the server cannot ask). */
  readonly clientCapabilities: Readonly<Record<string, unknown>> | undefined;
  readonly tool: ToolDefinition;
  readonly args: Readonly<Record<string, unknown>>;
  /** The full `tools/call` params (carries `inputResponses` and `requestState` on a resend). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The call after every check of `execute` (membership … Seguridad, budget): operation, caller, resolved workspace, input. */
  readonly prepared: PreparedCall;
}

/**
 * Why the call ends here, as its answer: an ApiError (`USER_DECLINED`, `confirmation_replayed`,
 * `confirmation_unavailable`, `confirmation_required`) or a protocol fault (-32602: a
 * `requestState` not issued for this call).
 */
export type Refusal = ApiError | JsonRpcError;

export function isRefusal(value: unknown): value is Refusal {
  return value instanceof ApiError || value instanceof JsonRpcError;
}

/**
 * What a resend carries: the proof `execute` consumes (the person accepted), the refusal that
 * answers the call (declined, replayed, a foreign state, single use unavailable), or undefined —
 * nothing answered yet, so the call needs asking.
 */
export type Verdict = ConfirmationProof | Refusal | undefined;

/** The `input_required` result that asks the person (MCP 2026-07-28 §multi-round-trip requests). */
export type InputRequired = Readonly<Record<string, unknown>>;

/**
 * How the person is asked: an `input_required` result, or the ApiError that answers instead —
 * `confirmation_required` when this client cannot be asked (carrying the approval link when the
 * Account is embedded), `confirmation_unavailable` when the sealing key cannot be loaded.
 */
export type Question = InputRequired | ApiError;

/** The confirmation of one destructive `tools/call`, in `execute`'s two places. */
export interface DestructiveCallConfirmation {
  /** Before the write (`execute`'s `beforeExecute`): what the resend answered. */
  readonly verify: (request: ConfirmationRequest) => Promise<Verdict>;
  /** `execute` answered `needs_confirmation` and nothing was answered yet: how to ask. */
  readonly ask: (request: ConfirmationRequest) => Promise<Question>;
}

/** The counter's outcomes (`mcp_confirmations_total{outcome}`, src/http/metrics.ts). */
export type Outcome = 'requested' | 'accepted' | 'declined' | 'cancelled' | 'replayed' | 'unavailable' | 'conflict' | 'required' | 'invalid_state';

/** What the steps of one confirmation share, built once by `createConfirmation`. */
export interface ConfirmationContext {
  readonly db: Kysely<Database>;
  readonly approvals: ApprovalLinks | undefined;
  readonly logger: Logger | undefined;
  readonly now: () => Date;
  readonly count: (outcome: Outcome) => void;
  readonly describerFor: (operationId: string) => DescribeTarget | undefined;
  /** The proof of an answered call: the one issuer's object around `consumeConfirmation`. */
  readonly prove: (binding: Omit<ProofBinding, 'now' | 'count'>) => ConfirmationProof;
}
