/**
 * Confirmation for a client that cannot be asked (the 2025 era, no form elicitation), when the
 * Account is embedded (docs/security.md#approval-links): `ask` answers `confirmation_required`
 * with a link where the person approves this exact call; `verify` finds the answer given there —
 * an approval becomes the proof (the approval's id the single-use nonce, marked used in the
 * write's transaction), a denial answers USER_DECLINED once. Without approval links the call
 * simply cannot be confirmed.
 */
import { ApiError, CONFIRMATION_TTL_SECONDS, confirmationNotGiven, digestArguments, type ConfirmationClaims, type ConfirmationTarget, type DescribeTarget, type NonceUse } from '../../../api/index.js';
import type { AnsweredCall, ApprovalBinding, ApprovalLinks } from '../../../oauth/approvals.js';
import type { ConfirmationContext, ConfirmationRequest, Verdict } from './types.js';

/** A call that cannot be asked, approved out of band: what it is bound to. */
interface BoundCall {
  readonly describe: DescribeTarget;
  readonly binding: ApprovalBinding;
  readonly approvals: ApprovalLinks;
}

export interface ApprovalLinkConfirmation {
  verify(request: ConfirmationRequest): Promise<Verdict>;
  /** confirmation_required, with the approval link when there can be one. */
  ask(request: ConfirmationRequest): Promise<ApiError>;
}

function bindCall(context: ConfirmationContext, request: ConfirmationRequest): BoundCall | undefined {
  const describe = context.describerFor(request.tool.operation.operationId);
  const { caller, workspaceId } = request.prepared;
  const { approvals } = context;
  if (approvals === undefined || describe === undefined || workspaceId === null) return undefined;
  const binding = { tool: request.tool.name, argsDigest: digestArguments(request.args), personId: caller.personId, organizationId: caller.organizationId, workspaceId };
  return { describe, binding, approvals };
}

function describeCall(context: ConfirmationContext, bound: BoundCall, { prepared }: ConfirmationRequest): Promise<ConfirmationTarget> {
  return bound.describe({ db: context.db, workspaceId: bound.binding.workspaceId, input: prepared.input, caller: prepared.caller, now: context.now });
}

/** The person's last word: no earlier approval of this call may run it after the denial. */
async function deliverDenial(context: ConfirmationContext, bound: BoundCall): Promise<ApiError> {
  await bound.approvals.markAllUsed(bound.binding);
  context.count('declined');
  return new ApiError('USER_DECLINED', 'The person denied this action on its approval page; nothing was changed. Do not retry it unless the person asks again.');
}

/** The approval's id is the single-use nonce; serving the call marks the approval used in the same transaction. */
function prove(context: ConfirmationContext, bound: BoundCall, request: ConfirmationRequest, answered: AnsweredCall): Verdict {
  const { binding, approvals } = bound;
  const claims: ConfirmationClaims = { ...binding, version: answered.version, nonce: `approval:${answered.id}`, expiresAt: answered.expiresAt };
  const use: NonceUse = { nonce: claims.nonce, workspaceId: binding.workspaceId, personId: binding.personId, tool: binding.tool, expiresAt: answered.expiresAt };
  return context.prove({ issuedFor: request.prepared, claims, use, describe: bound.describe, onConsumed: (trx) => approvals.markUsed(answered.id, trx) });
}

export function createApprovalLinkConfirmation(context: ConfirmationContext): ApprovalLinkConfirmation {
  return {
    /**
     * An approval of a record that has changed since is set aside (the next ask offers a fresh
     * link for the current record) instead of answering CONFLICT until it expires.
     */
    async verify(request) {
      const bound = bindCall(context, request);
      const answered = bound === undefined ? undefined : await bound.approvals.findAnswered(bound.binding);
      if (bound === undefined || answered === undefined) return undefined;
      if (answered.decision === 'denied') return deliverDenial(context, bound);
      if (answered.version !== null && (await describeCall(context, bound, request)).version !== answered.version) {
        await bound.approvals.markUsed(answered.id);
        return undefined;
      }
      return prove(context, bound, request, answered);
    },
    async ask(request) {
      const bound = bindCall(context, request);
      if (bound === undefined) return confirmationNotGiven();
      const target = await describeCall(context, bound, request);
      const link = await bound.approvals.create(bound.binding, target.version, target.message, CONFIRMATION_TTL_SECONDS);
      return new ApiError('confirmation_required',
        'This tool deletes, cancels or moves money and needs the person\'s confirmation, which cannot be asked inside this call (that takes protocol revision 2026-07-28 with form elicitation); nothing was changed. '
        + 'Show the person the approval_url: after they sign in there and approve, call the tool again with exactly the same arguments within 5 minutes, and it runs once.',
        { approval_url: link.url, expires_at: new Date(link.expiresAt * 1000).toISOString(), message: target.message });
    },
  };
}
