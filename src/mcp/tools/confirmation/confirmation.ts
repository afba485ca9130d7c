/**
 * The confirmation of destructive tools (docs/protocol.md#confirmation-of-destructive-tools,
 * docs/security.md#confirmation), the one component that decides how a person is asked. Two steps
 * around `execute`: `verify` (its `beforeExecute` hook) reads what a resend answered — the proof
 * `execute` demands when the person accepted (the nonce consumed in the write's own transaction),
 * else the refusal or nothing yet; when nothing was answered `execute` answers
 * `needs_confirmation` and `ask` decides: modern era with form elicitation → `input_required`
 * with a sealed `requestState` (form.ts), otherwise `confirmation_required` — with an approval
 * link when the Account is embedded, and then `verify` also accepts the same call approved
 * through that link (approval-link.ts). Both answer values (types.ts); nothing here throws to
 * decide. Sentences, sealing, nonces and the proof's consumption are src/api's; every check
 * before this one is `execute`'s.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { claimConfirmationIssuer, consumeConfirmation, type ConfirmationDescribers } from '../../../api/index.js';
import type { Config } from '../../../config.js';
import type { Metrics } from '../../../http/metrics.js';
import type { ApprovalLinks } from '../../../oauth/approvals.js';
import { clockDate, systemClock, type Clock } from '../../../runtime/clock.js';
import type { Database } from '../../../store/schema.js';
import { createApprovalLinkConfirmation } from './approval-link.js';
import { createFormConfirmation, findAskable } from './form.js';
import { createSealing } from './sealing.js';
import type { ConfirmationContext, DestructiveCallConfirmation, Outcome } from './types.js';

export interface ConfirmationDeps {
  readonly config: Pick<Config, 'confirmationKey' | 'dataDir'>;
  readonly db: Kysely<Database>;
  /** The sentence of each destructive operation (`createConfirmationDescribers`, wired by src/bootstrap.ts). */
  readonly describers: ConfirmationDescribers;
  readonly metrics?: Partial<Metrics> | undefined;
  readonly logger?: Logger | undefined;
  /** The services' clock (src/runtime/clock.ts): the state's expiry, nonce rows and their purge; default the system clock. */
  readonly clock?: Clock | undefined;
  /** Approval links (embedded Account only): `confirmation_required` then carries an `approval_url`. */
  readonly approvals?: ApprovalLinks | undefined;
}

/**
 * The only maker of ConfirmationProofs, claimed once at load and never exported: `execute`
 * refuses a destructive MCP call without a proof from here (defence in depth, docs/security.md#confirmation).
 */
const issueProof = claimConfirmationIssuer();

function createContext(deps: ConfirmationDeps, clock: Clock): ConfirmationContext {
  const now = (): Date => clockDate(clock);
  const count = (outcome: Outcome): void => { deps.metrics?.confirmations?.inc({ outcome }); };
  return {
    db: deps.db,
    approvals: deps.approvals,
    logger: deps.logger,
    now,
    count,
    describerFor: (operationId) => deps.describers.describerFor(operationId),
    prove: (binding) => issueProof(consumeConfirmation({ ...binding, now, count })),
  };
}

export function createConfirmation(deps: ConfirmationDeps): DestructiveCallConfirmation {
  const clock = deps.clock ?? systemClock;
  const context = createContext(deps, clock);
  const form = createFormConfirmation(context, createSealing({ config: deps.config, db: deps.db, clock }, context));
  const link = createApprovalLinkConfirmation(context);
  return {
    async verify(request) {
      // A call that cannot be asked can only have been approved through its link; else `ask` answers confirmation_required.
      const call = findAskable(context, request);
      return call === undefined ? link.verify(request) : form.verify(request, call);
    },
    async ask(request) {
      const call = findAskable(context, request);
      if (call !== undefined) return form.ask(request, call);
      context.count('required');
      return link.ask(request);
    },
  };
}
