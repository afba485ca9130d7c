/**
 * What a `ConfirmationProof` does inside the write's transaction (docs/security.md#confirmation),
 * whichever channel asked the person: it serves only the call it was issued for, burns the
 * single-use nonce first (so a replay reads as one), runs what else the answer must mark used (an
 * approval link), then re-reads the target and refuses when it changed since the person was asked.
 * Every refusal throws, inside the transaction, so nothing is written. Making the proof object
 * itself is the holder of the one proof issuer's business (`claimConfirmationIssuer`, service.ts).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import { ApiError } from '../errors.js';
import type { ConfirmationProof, PreparedCall } from '../service.js';
import { consumeNonce, type NonceUse } from './nonce-store.js';
import type { ConfirmationClaims } from './state.js';
import type { DescribeTarget } from './target.js';

/** How a consumption ended, for the channel's counter (the errors are thrown all the same). */
export type ConsumptionOutcome = 'accepted' | 'replayed' | 'unavailable' | 'conflict';

export interface ProofBinding {
  /** The call the person answered (`execute`'s prepared call, compared by identity of its input). */
  readonly issuedFor: PreparedCall;
  readonly claims: ConfirmationClaims;
  readonly use: NonceUse;
  /** Re-reads the target's version when the claims bound one. */
  readonly describe: DescribeTarget;
  readonly now: () => Date;
  /** Runs after the nonce is burnt, in the same transaction (e.g. an approval marked used). */
  readonly onConsumed?: ((trx: Kysely<Database>) => Promise<void>) | undefined;
  readonly count: (outcome: ConsumptionOutcome) => void;
}

export function confirmationNotGiven(): ApiError {
  return new ApiError('confirmation_required', 'This tool deletes, cancels or moves money and needs a confirmation this client cannot give; nothing was changed.');
}

function isSameCall(binding: ProofBinding, prepared: PreparedCall): boolean {
  const { issuedFor, claims, use } = binding;
  return prepared.operation.operationId === issuedFor.operation.operationId
    && prepared.caller.personId === claims.personId
    && prepared.caller.organizationId === claims.organizationId
    && prepared.workspaceId === use.workspaceId
    && prepared.input === issuedFor.input;
}

async function burnNonce(binding: ProofBinding, trx: Kysely<Database>): Promise<void> {
  try {
    await consumeNonce(trx, binding.use, binding.now());
  } catch (error) {
    binding.count(error instanceof ApiError && error.code === 'confirmation_replayed' ? 'replayed' : 'unavailable');
    throw error;
  }
}

async function recheckVersion(binding: ProofBinding, trx: Kysely<Database>, prepared: PreparedCall): Promise<void> {
  const { claims, use, now } = binding;
  if (claims.version === null) return;
  const current = await binding.describe({ db: trx, workspaceId: use.workspaceId, input: prepared.input, caller: prepared.caller, now });
  if (current.version === claims.version) return;
  binding.count('conflict');
  throw new ApiError('CONFLICT', 'The record changed after the confirmation was asked; nothing was changed. Call the tool again to confirm the current record.');
}

/** The proof's `consumeInTransaction` for one answered call. */
export function consumeConfirmation(binding: ProofBinding): ConfirmationProof['consumeInTransaction'] {
  return async (trx, prepared) => {
    if (!isSameCall(binding, prepared)) throw confirmationNotGiven();
    await burnNonce(binding, trx);
    await binding.onConsumed?.(trx);
    await recheckVersion(binding, trx, prepared);
    binding.count('accepted');
  };
}
