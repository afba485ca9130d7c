/**
 * The confirmation of destructive tools (docs/protocol.md#confirmation-of-destructive-tools, docs/security.md#confirmation),
 * the one component that decides how a person is asked. Two steps around `execute`:
 * `verify` (its `beforeExecute` hook) turns a resend the person accepted into the proof
 * `execute` demands — the nonce consumed in the write's own transaction — and refuses a decline;
 * when there is no answer yet `execute` answers `needs_confirmation` and `ask` decides: modern era
 * with form elicitation → `input_required` with a sealed `requestState`, otherwise
 * `confirmation_required` — with an approval link when the Account is embedded, and then `verify`
 * also accepts the same call approved through that link (src/oauth/approvals.ts). Sealing, describing and the nonce store live in `src/confirmation`;
 * every check before this one is `execute`'s.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Metrics } from '../http/metrics.js';
import type { ToolDefinition } from '../runtime/types.js';
import type { Database } from '../store/schema.js';
import { ApiError, type ConfirmationProof, type PreparedCall } from '../dispatch/index.js';
import { claimConfirmationIssuer } from '../dispatch/tool-call.js';
import { digestArguments } from '../confirmation/canonical-args.js';
import { describerFor } from '../confirmation/describe.js';
import { loadConfirmationKey } from '../confirmation/key.js';
import { consumeNonce, purgeExpiredNonces, unavailableError, type NonceUse } from '../confirmation/nonce-store.js';
import { CONFIRMATION_TTL_SECONDS, createNonce, openState, sealState, type ConfirmationClaims } from '../confirmation/state.js';
import type { ConfirmationTarget, DescribeTarget } from '../confirmation/target.js';
import { INVALID_PARAMS, JsonRpcError } from './json-rpc.js';
import type { Era } from './versions.js';
import { clockDate, systemClock, type Clock } from '../runtime/clock.js';
import type { ApprovalBinding, ApprovalLinks } from '../oauth/approvals.js';
import { isPlainObject } from '../runtime/values.js';

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

/** The confirmation of one destructive `tools/call`, in `execute`'s two places. */
export interface DestructiveCallConfirmation {
  /**
   * Before the write (`execute`'s `beforeExecute`): the proof for a resend the person accepted,
   * or nothing when there is no answer yet. Throws `USER_DECLINED` on a decline or cancel,
   * `confirmation_replayed` on a state answered before, `-32602` on a state not issued for this call.
   */
  readonly verify: (request: ConfirmationRequest) => Promise<ConfirmationProof | undefined>;
  /**
   * `execute` answered `needs_confirmation`: the `input_required` result that asks the person.
   * Throws `confirmation_required` when this client or era cannot be asked.
   */
  readonly ask: (request: ConfirmationRequest) => Promise<Readonly<Record<string, unknown>>>;
}

export interface ConfirmationDeps {
  readonly config: Pick<Config, 'confirmationKey' | 'dataDir'>;
  readonly db: Kysely<Database>;
  readonly metrics?: Partial<Metrics> | undefined;
  readonly logger?: Logger | undefined;
  /** The services' clock (src/runtime/clock.ts): the state's expiry, nonce rows and their purge; default the system clock. */
  readonly clock?: Clock | undefined;
  /** Approval links (embedded Account only): `confirmation_required` then carries an `approval_url`. */
  readonly approvals?: ApprovalLinks | undefined;
}

type Outcome = 'requested' | 'accepted' | 'declined' | 'cancelled' | 'replayed' | 'unavailable' | 'conflict' | 'required' | 'invalid_state';
type Answer = 'missing' | 'confirmed' | 'declined' | 'cancelled';

const CONFIRM_KEY = 'confirm';
/**
 * The only maker of ConfirmationProofs, claimed once at load and never exported: `execute`
 * refuses a destructive MCP call without a proof from here (defence in depth, docs/security.md#confirmation).
 */
const issueProof = claimConfirmationIssuer();
/** Roughly one ask in fifty also deletes expired nonces of its workspace (no background timer). */
const PURGE_PROBABILITY = 0.02;

function cannotConfirm(): ApiError {
  return new ApiError('confirmation_required', 'This tool deletes, cancels or moves money and needs a confirmation this client cannot give; nothing was changed.');
}

/** One generic message for every refused state: the client learns nothing about which check failed. */
function invalidState(): JsonRpcError {
  return new JsonRpcError(INVALID_PARAMS, 'Invalid params: requestState is not valid for this call');
}

/** Form elicitation: `elicitation: {}` (form by default) or an object naming `form` (MCP 2026-07-28 §elicitation). */
export function allowsFormElicitation(era: Era, capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  if (!era.modern || capabilities === undefined) return false;
  const elicitation = capabilities['elicitation'];
  if (!isPlainObject(elicitation)) return false;
  return Object.keys(elicitation).length === 0 || isPlainObject(elicitation['form']);
}

/** The person's answer in `inputResponses.confirm`; a malformed answer is a protocol fault. */
function readAnswer(responses: unknown): Answer {
  if (responses === undefined) return 'missing';
  if (!isPlainObject(responses)) throw invalidState();
  const answer = responses[CONFIRM_KEY];
  if (answer === undefined) return 'missing';
  if (!isPlainObject(answer)) throw invalidState();
  switch (answer['action']) {
    case 'accept': {
      const content = answer['content'];
      return isPlainObject(content) && content[CONFIRM_KEY] === true ? 'confirmed' : 'declined';
    }
    case 'decline': return 'declined';
    case 'cancel': return 'cancelled';
    default: throw invalidState();
  }
}

function buildInputRequired(message: string, requestState: string): Record<string, unknown> {
  return {
    resultType: 'input_required',
    inputRequests: {
      [CONFIRM_KEY]: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message,
          requestedSchema: {
            type: 'object',
            properties: { [CONFIRM_KEY]: { type: 'boolean', title: 'Confirm', description: 'Yes runs it now; anything else changes nothing.' } },
            required: [CONFIRM_KEY],
          },
        },
      },
    },
    requestState,
  };
}

/** What both steps need: the sentence's describer and the workspace, when this call can be asked at all. */
interface Askable {
  readonly describe: DescribeTarget;
  readonly workspaceId: string;
}

function askable(request: ConfirmationRequest): Askable | undefined {
  const describe = describerFor(request.tool.operation.operationId);
  const workspaceId = request.prepared.workspaceId;
  if (!allowsFormElicitation(request.era, request.clientCapabilities) || describe === undefined || workspaceId === null) return undefined;
  return { describe, workspaceId };
}

export function createConfirmation(deps: ConfirmationDeps): DestructiveCallConfirmation {
  const clock = deps.clock ?? systemClock;
  const now = (): Date => clockDate(clock);
  // Loaded (embedded: generated) at start-up so the key file exists before the first question;
  // a failure is reported on first use, where loadKey retries.
  let key: Promise<Uint8Array> | undefined = loadConfirmationKey(deps.config, deps.db, clock);
  key.catch(() => undefined);
  const count = (outcome: Outcome): void => { deps.metrics?.confirmations?.inc({ outcome }); };

  async function loadKey(): Promise<Uint8Array> {
    key ??= loadConfirmationKey(deps.config, deps.db, clock);
    try {
      return await key;
    } catch (error) {
      key = undefined; // a later call may succeed (e.g. the data folder became writable)
      deps.logger?.error({ err: error }, 'confirmation: cannot load the sealing key');
      count('unavailable');
      throw unavailableError(error);
    }
  }

  async function seal(request: ConfirmationRequest, workspaceId: string, target: ConfirmationTarget): Promise<Readonly<Record<string, unknown>>> {
    const { caller } = request.prepared;
    const claims: ConfirmationClaims = {
      tool: request.tool.name,
      argsDigest: digestArguments(request.args),
      personId: caller.personId,
      organizationId: caller.organizationId,
      workspaceId,
      version: target.version,
      nonce: createNonce(),
      expiresAt: Math.floor(now().getTime() / 1000) + CONFIRMATION_TTL_SECONDS,
    };
    const requestState = await sealState(await loadKey(), claims);
    count('requested');
    if (Math.random() < PURGE_PROBABILITY) {
      purgeExpiredNonces(deps.db, workspaceId, now()).catch((err: unknown) => deps.logger?.warn({ err }, 'confirmation: purge failed'));
    }
    return buildInputRequired(target.message, requestState);
  }

  /** Decrypts the state and checks it was issued for exactly this call by this person. */
  async function openBoundState(request: ConfirmationRequest, workspaceId: string, token: unknown): Promise<ConfirmationClaims> {
    const sealingKey = await loadKey();
    const claims = await openState(sealingKey, token, Math.floor(now().getTime() / 1000)).catch(() => {
      count('invalid_state');
      throw invalidState();
    });
    const { caller } = request.prepared;
    const bound = claims.tool === request.tool.name
      && claims.argsDigest === digestArguments(request.args)
      && claims.personId === caller.personId
      && claims.organizationId === caller.organizationId
      && claims.workspaceId === workspaceId;
    if (!bound) {
      count('invalid_state');
      throw invalidState();
    }
    return claims;
  }

  /**
   * Decline answers once too: the nonce is burnt, so a declined state can never later be
   * resent as an accept. Best effort — the person declined, so nothing runs either way.
   */
  async function refuse(use: NonceUse, answer: 'declined' | 'cancelled'): Promise<never> {
    try {
      await consumeNonce(deps.db, use, now());
    } catch (error) {
      if (error instanceof ApiError && error.code === 'confirmation_replayed') {
        count('replayed');
        throw error;
      }
      deps.logger?.warn({ err: error }, 'confirmation: could not record a declined confirmation');
    }
    count(answer);
    throw new ApiError('USER_DECLINED', answer === 'cancelled'
      ? 'The person cancelled the confirmation; nothing was changed.'
      : 'The person declined the confirmation; nothing was changed.');
  }

  /**
   * The proof `execute` consumes inside the write's transaction: it serves only the call it was
   * issued for, burns the nonce first (so a replay reads as one), then re-checks the version.
   */
  function proceed(
    request: ConfirmationRequest, describe: DescribeTarget, claims: ConfirmationClaims, use: NonceUse,
    onConsumed?: (trx: Kysely<Database>) => Promise<void>,
  ): ConfirmationProof {
    const issuedFor = request.prepared;
    return issueProof(async (trx, prepared) => {
      const sameCall = prepared.operation.operationId === issuedFor.operation.operationId
        && prepared.caller.personId === claims.personId
        && prepared.caller.organizationId === claims.organizationId
        && prepared.workspaceId === use.workspaceId
        && prepared.input === issuedFor.input;
      if (!sameCall) throw cannotConfirm();
      try {
        await consumeNonce(trx, use, now());
      } catch (error) {
        count(error instanceof ApiError && error.code === 'confirmation_replayed' ? 'replayed' : 'unavailable');
        throw error;
      }
      await onConsumed?.(trx);
      if (claims.version !== null) {
        const current = await describe({ db: trx, workspaceId: use.workspaceId, input: prepared.input, caller: prepared.caller, now });
        if (current.version !== claims.version) {
          count('conflict');
          throw new ApiError('CONFLICT', 'The record changed after the confirmation was asked; nothing was changed. Call the tool again to confirm the current record.');
        }
      }
      count('accepted');
    });
  }

  /** A call that cannot be asked, approved out of band (docs/security.md#approval-links): what it is bound to. */
  function approvalBinding(request: ConfirmationRequest): { describe: DescribeTarget; binding: ApprovalBinding } | undefined {
    const describe = describerFor(request.tool.operation.operationId);
    const workspaceId = request.prepared.workspaceId;
    if (deps.approvals === undefined || describe === undefined || workspaceId === null) return undefined;
    const { caller } = request.prepared;
    return {
      describe,
      binding: { tool: request.tool.name, argsDigest: digestArguments(request.args), personId: caller.personId, organizationId: caller.organizationId, workspaceId },
    };
  }

  /**
   * The proof for a call the person approved through its link: the approval's id is the
   * single-use nonce, and serving the call marks the approval used in the same transaction. A
   * denial is delivered once, as USER_DECLINED. An approval of a record that has changed since is
   * set aside (the next ask offers a fresh link for the current record) instead of answering
   * CONFLICT until it expires.
   */
  async function verifyApproval(request: ConfirmationRequest): Promise<ConfirmationProof | undefined> {
    const bound = approvalBinding(request);
    const approvals = deps.approvals;
    if (bound === undefined || approvals === undefined) return undefined;
    const answered = await approvals.findAnswered(bound.binding);
    if (answered === undefined) return undefined;
    if (answered.decision === 'denied') {
      // The person's last word: no earlier approval of this call may run it after the denial.
      await approvals.markAllUsed(bound.binding);
      count('declined');
      throw new ApiError('USER_DECLINED', 'The person denied this action on its approval page; nothing was changed. Do not retry it unless the person asks again.');
    }
    const { binding } = bound;
    const { prepared } = request;
    if (answered.version !== null) {
      const current = await bound.describe({ db: deps.db, workspaceId: binding.workspaceId, input: prepared.input, caller: prepared.caller, now });
      if (current.version !== answered.version) {
        await approvals.markUsed(answered.id);
        return undefined;
      }
    }
    const claims: ConfirmationClaims = { ...binding, version: answered.version, nonce: `approval:${answered.id}`, expiresAt: answered.expiresAt };
    const use: NonceUse = { nonce: claims.nonce, workspaceId: binding.workspaceId, personId: binding.personId, tool: binding.tool, expiresAt: answered.expiresAt };
    return proceed(request, bound.describe, claims, use, (trx) => approvals.markUsed(answered.id, trx));
  }

  /** confirmation_required with a link where the person can approve this exact call. */
  async function askThroughLink(request: ConfirmationRequest): Promise<never> {
    const bound = approvalBinding(request);
    if (bound === undefined || deps.approvals === undefined) throw cannotConfirm();
    const { prepared } = request;
    const target = await bound.describe({ db: deps.db, workspaceId: bound.binding.workspaceId, input: prepared.input, caller: prepared.caller, now });
    const link = await deps.approvals.create(bound.binding, target.version, target.message, CONFIRMATION_TTL_SECONDS);
    throw new ApiError('confirmation_required',
      'This tool deletes, cancels or moves money and this client cannot ask for a confirmation; nothing was changed. '
      + 'Show the person the approval_url: after they sign in there and approve, call the tool again with exactly the same arguments within 5 minutes, and it runs once.',
      { approval_url: link.url, expires_at: new Date(link.expiresAt * 1000).toISOString(), message: target.message });
  }

  return {
    async verify(request) {
      // A call that cannot be asked can only have been approved through its link; else `ask` answers confirmation_required.
      const call = askable(request);
      if (call === undefined) return verifyApproval(request);
      const { describe, workspaceId } = call;
      const token = request.params['requestState'];
      const responses = request.params['inputResponses'];
      if (token === undefined) {
        // Answers without the state they answer cannot be tied to any question we asked.
        if (responses !== undefined) {
          count('invalid_state');
          throw invalidState();
        }
        return undefined;
      }
      const claims = await openBoundState(request, workspaceId, token);
      let answer: Answer;
      try {
        answer = readAnswer(responses);
      } catch (error) {
        count('invalid_state');
        throw error;
      }
      if (answer === 'missing') return undefined;
      const use: NonceUse = { nonce: claims.nonce, workspaceId, personId: claims.personId, tool: claims.tool, expiresAt: claims.expiresAt };
      if (answer !== 'confirmed') return refuse(use, answer);
      return proceed(request, describe, claims, use);
    },

    async ask(request) {
      const call = askable(request);
      if (call === undefined) {
        count('required');
        return askThroughLink(request);
      }
      const { prepared } = request;
      return seal(request, call.workspaceId, await call.describe({ db: deps.db, workspaceId: call.workspaceId, input: prepared.input, caller: prepared.caller, now }));
    },
  };
}

/** For the caller of a confirmed call whose transaction failed outside the operation's rules. */
export function confirmationUnavailable(cause: unknown): ApiError {
  return unavailableError(cause);
}
