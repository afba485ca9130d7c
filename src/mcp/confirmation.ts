/**
 * The confirmation seam for destructive tools (PROTOCOL.md §6). Until the confirmation
 * feature lands, every destructive call is answered `confirmation_required` and nothing runs.
 * The replacement keeps this signature: it may return `proceed` (with execute hooks, e.g. a
 * nonce consumed in the write's transaction), an `input_required` result, or throw an ApiError.
 */
import { ApiError, type ConfirmationDecision, type PreparedCall } from '../dispatch/index.js';
import type { ToolDefinition } from '../runtime/types.js';
import type { Era } from './versions.js';

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

export type ConfirmDestructiveCall = (request: ConfirmationRequest) => Promise<ConfirmationDecision>;

/** The placeholder: nothing destructive runs without the server's confirmation. */
export const requireConfirmation: ConfirmDestructiveCall = async () => {
  throw new ApiError('confirmation_required', 'This tool deletes, cancels or moves money and needs a confirmation this client cannot give; nothing was changed.');
};
