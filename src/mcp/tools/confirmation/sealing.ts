/**
 * The sealed `requestState` of a question (docs/security.md#confirmation): the key loaded at
 * start-up (retried on the next use when that failed), the claims that bind the state to this
 * very call — tool, argument digest, person, organization, workspace, target version, nonce,
 * expiry — and the check that a resent state was issued for exactly this call. Sealing and
 * opening themselves are src/api's (`sealState`, `openState`).
 */
import type { Kysely } from 'kysely';
import type { Config } from '../../../config.js';
import {
  CONFIRMATION_TTL_SECONDS, confirmationUnavailable, createConfirmationKeyReader, createNonce, digestArguments, openState, purgeExpiredNonces, sealState,
  type ApiError, type ConfirmationClaims, type ConfirmationTarget,
} from '../../../api/index.js';
import type { Clock } from '../../../runtime/clock.js';
import type { Database } from '../../../store/schema.js';
import { buildInputRequired, invalidState } from './elicitation.js';
import type { ConfirmationContext, ConfirmationRequest, Question, Refusal } from './types.js';

/** Roughly one ask in fifty also deletes expired nonces of its workspace (no background timer). */
const PURGE_PROBABILITY = 0.02;

export interface SealingDeps {
  readonly config: Pick<Config, 'confirmationKey' | 'dataDir'>;
  readonly db: Kysely<Database>;
  readonly clock: Clock;
}

export interface Sealing {
  /** The `input_required` that asks about `target`, its state sealed; confirmation_unavailable without a key. */
  seal(request: ConfirmationRequest, workspaceId: string, target: ConfirmationTarget): Promise<Question>;
  /** The claims of a state issued for exactly this call by this person, or the refusal. */
  open(request: ConfirmationRequest, workspaceId: string, token: unknown): Promise<ConfirmationClaims | Refusal>;
}

const epochSeconds = (now: () => Date): number => Math.floor(now().getTime() / 1000);

function claimsFor(request: ConfirmationRequest, workspaceId: string, target: ConfirmationTarget, now: () => Date): ConfirmationClaims {
  const { caller } = request.prepared;
  return {
    tool: request.tool.name,
    argsDigest: digestArguments(request.args),
    personId: caller.personId,
    organizationId: caller.organizationId,
    workspaceId,
    version: target.version,
    nonce: createNonce(),
    expiresAt: epochSeconds(now) + CONFIRMATION_TTL_SECONDS,
  };
}

function isIssuedFor(claims: ConfirmationClaims, request: ConfirmationRequest, workspaceId: string): boolean {
  const { caller } = request.prepared;
  return claims.tool === request.tool.name
    && claims.argsDigest === digestArguments(request.args)
    && claims.personId === caller.personId
    && claims.organizationId === caller.organizationId
    && claims.workspaceId === workspaceId;
}

/** The sealing key: loaded (embedded: generated) at start-up so the key file exists before the first question. */
function createKeyLoader(deps: SealingDeps, context: ConfirmationContext): () => Promise<Uint8Array | ApiError> {
  // A failure at start-up is reported on first use, where the load is tried again.
  const readKey = createConfirmationKeyReader(deps.config, deps.db, deps.clock, { eager: true });
  return async () => {
    try {
      return await readKey();
    } catch (error) {
      context.logger?.error({ err: error }, 'confirmation: cannot load the sealing key');
      context.count('unavailable');
      return confirmationUnavailable(error);
    }
  };
}

export function createSealing(deps: SealingDeps, context: ConfirmationContext): Sealing {
  const loadKey = createKeyLoader(deps, context);
  const { now, count } = context;
  const refuseState = (): Refusal => {
    count('invalid_state');
    return invalidState();
  };
  return {
    async seal(request, workspaceId, target) {
      const claims = claimsFor(request, workspaceId, target, now);
      const key = await loadKey();
      if (!(key instanceof Uint8Array)) return key;
      const requestState = await sealState(key, claims);
      count('requested');
      if (Math.random() < PURGE_PROBABILITY) {
        purgeExpiredNonces(deps.db, workspaceId, now()).catch((err: unknown) => context.logger?.warn({ err }, 'confirmation: purge failed'));
      }
      return buildInputRequired(target.message, requestState);
    },
    async open(request, workspaceId, token) {
      const key = await loadKey();
      if (!(key instanceof Uint8Array)) return key;
      const claims = await openState(key, token, epochSeconds(now)).catch(() => undefined);
      return claims !== undefined && isIssuedFor(claims, request, workspaceId) ? claims : refuseState();
    },
  };
}
