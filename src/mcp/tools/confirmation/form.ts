/**
 * Confirmation by a form the client shows (modern era, form elicitation): `ask` describes the
 * target and answers `input_required` with a sealed `requestState`; `verify` reads the resend —
 * an accept becomes the proof, a decline or cancel burns the nonce and answers USER_DECLINED, a
 * state or answer not issued for this call answers -32602.
 */
import { ApiError, consumeNonce, type DescribeTarget, type NonceUse } from '../../../api/index.js';
import { allowsFormElicitation, invalidState, readAnswer } from './elicitation.js';
import type { Sealing } from './sealing.js';
import { isRefusal, type ConfirmationContext, type ConfirmationRequest, type Question, type Refusal, type Verdict } from './types.js';

/** A call this client can be asked about: the sentence's describer and the workspace it runs in. */
export interface Askable {
  readonly describe: DescribeTarget;
  readonly workspaceId: string;
}

export function findAskable(context: ConfirmationContext, request: ConfirmationRequest): Askable | undefined {
  const describe = context.describerFor(request.tool.operation.operationId);
  const workspaceId = request.prepared.workspaceId;
  if (!allowsFormElicitation(request.era, request.clientCapabilities) || describe === undefined || workspaceId === null) return undefined;
  return { describe, workspaceId };
}

export interface FormConfirmation {
  verify(request: ConfirmationRequest, call: Askable): Promise<Verdict>;
  ask(request: ConfirmationRequest, call: Askable): Promise<Question>;
}

function refuseState(context: ConfirmationContext): Refusal {
  context.count('invalid_state');
  return invalidState();
}

/**
 * Decline answers once too: the nonce is burnt, so a declined state can never later be
 * resent as an accept. Best effort — the person declined, so nothing runs either way.
 */
async function decline(context: ConfirmationContext, use: NonceUse, answer: 'declined' | 'cancelled'): Promise<Refusal> {
  const failure = await consumeNonce(context.db, use, context.now()).then(() => undefined, (error: unknown) => error);
  if (failure instanceof ApiError && failure.code === 'confirmation_replayed') {
    context.count('replayed');
    return failure;
  }
  if (failure !== undefined) context.logger?.warn({ err: failure }, 'confirmation: could not record a declined confirmation');
  context.count(answer);
  return new ApiError('USER_DECLINED', answer === 'cancelled'
    ? 'The person cancelled the confirmation; nothing was changed.'
    : 'The person declined the confirmation; nothing was changed.');
}

export function createFormConfirmation(context: ConfirmationContext, sealing: Sealing): FormConfirmation {
  return {
    async verify(request, call) {
      const token = request.params['requestState'];
      const responses = request.params['inputResponses'];
      // Answers without the state they answer cannot be tied to any question we asked.
      if (token === undefined) return responses === undefined ? undefined : refuseState(context);
      const claims = await sealing.open(request, call.workspaceId, token);
      if (isRefusal(claims)) return claims;
      const answer = readAnswer(responses);
      if (answer === 'invalid') return refuseState(context);
      if (answer === 'missing') return undefined;
      const use: NonceUse = { nonce: claims.nonce, workspaceId: call.workspaceId, personId: claims.personId, tool: claims.tool, expiresAt: claims.expiresAt };
      if (answer !== 'confirmed') return decline(context, use, answer);
      return context.prove({ issuedFor: request.prepared, claims, use, describe: call.describe });
    },
    async ask(request, call) {
      const { prepared } = request;
      const target = await call.describe({ db: context.db, workspaceId: call.workspaceId, input: prepared.input, caller: prepared.caller, now: context.now });
      return sealing.seal(request, call.workspaceId, target);
    },
  };
}
