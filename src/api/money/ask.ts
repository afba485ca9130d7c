/**
 * An approval request made outside a live call — the demo seed's (src/seed/approvals.ts) — through
 * the code a real one goes through: the route's argument check, the requester's membership,
 * scopes, permission and Seguridad as `execute` checks them, then in one transaction the money
 * controls' authoritative measure (limits and allowlist held, the records locked) and
 * `createApprovalRequest` (the operation's own confirmation sentence for the requester, the
 * measured items and versions, the stored input, the expiry on the given clock). Only the
 * threshold is not asked: the request is made whatever it is, and a person still decides it.
 *
 *   askForApproval(deps, ask): Promise<OperationOutput>   // the request, as REST's 202 answers it
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { RouteDefinition } from '../../runtime/types.js';
import type { Caller, OperationInput, OperationOutput } from '../context.js';
import type { ListAwareContext } from '../list.js';
import type { ConfirmationDescribers } from '../confirmation/describe.js';
import { assertMembership, assertPermission, assertScope } from '../authorize.js';
import { assertNotBlocked } from '../seguridad.js';
import { compileRouteValidator } from '../validation.js';
import { createDeadline } from '../../runtime/deadline.js';
import { enforceMoneyMove } from './controls.js';
import { loadMoneyControls } from './config.js';
import { createApprovalRequest } from './approvals.js';

export interface AskForApprovalDeps {
  readonly db: Kysely<Database>;
  readonly routes: readonly RouteDefinition[];
  /** The confirmation sentences (createConfirmationDescribers): the request keeps the one its requester would be shown. */
  readonly describers: ConfirmationDescribers;
  /** The services' clock as a `Date`: the request's `created_at` and `expires_at`. */
  readonly now: () => Date;
}

export interface ApprovalAsk {
  /** The request's id (the demo seed's are fixed, so it stays deterministic). */
  readonly id: string;
  /** The requester: their membership, scopes, channel and token type, as their call would carry them. */
  readonly caller: Caller;
  readonly workspaceId: string;
  readonly operationId: string;
  /** The call's path, query and body, as the transport would build them. */
  readonly input: OperationInput;
}

const DEADLINE_MS = 10_000;

export async function askForApproval(deps: AskForApprovalDeps, ask: ApprovalAsk): Promise<OperationOutput> {
  const route = deps.routes.find((r) => r.operation.operationId === ask.operationId);
  const operation = route?.operation;
  if (!route || !operation || operation.outflow === null || !operation.workspaceScoped) throw new Error(`${ask.operationId} is not a money move out`);
  const { caller, workspaceId, input } = ask;
  assertMembership(caller);
  if (!(caller.membership?.isAdmin || caller.membership?.workspaceIds.includes(workspaceId))) throw new Error(`the requester may not reach workspace ${workspaceId}`);
  assertScope(caller, operation);
  assertPermission(caller, operation);
  compileRouteValidator(route)(input);
  await assertNotBlocked(deps.db, workspaceId, caller.channel, operation);
  const describer = deps.describers.describerFor(operation.operationId);
  return deps.db.transaction().execute(async (trx) => {
    const ctx: ListAwareContext = {
      caller, workspaceId, db: trx, now: deps.now, deadline: createDeadline({ now: () => deps.now().getTime() }, DEADLINE_MS),
      bounds: route.bounds, listSpec: route.list,
      findOperation: (id) => deps.routes.find((r) => r.operation.operationId === id)?.operation,
      describe: async (id, described) => (id === operation.operationId && describer
        ? (await describer({ caller, db: trx, workspaceId, input: described, now: deps.now })).message
        : null),
    };
    const decision = await enforceMoneyMove(ctx, operation, input);
    if (!decision) throw new Error(`${operation.operationId} measured no outflow`);
    const controls = decision.kind === 'approval' ? decision.controls : await loadMoneyControls(trx, workspaceId);
    return createApprovalRequest(ctx, operation, input, decision.measured, controls, ask.id);
  });
}
