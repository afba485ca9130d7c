/**
 * createOperationService: the OperationService over the generated route table. Runs the checks
 * of docs/security.md#check-order-and-error-catalogue in order — membership → scope → permission (both with the
 * resources the operation changes) → workspace → arguments →
 * Seguridad → API budget → money controls (advisory) → hooks → confirmation → (transaction:
 * confirmation proof consumed → idempotency → money controls (authoritative) → operation, or an
 * approval request above the threshold → the move recorded) — and nothing else; transports map requests/responses, operation
 * modules hold the business rules. A destructive call on the `mcp` channel runs only with a
 * ConfirmationProof, whatever the transport decided (defence in depth, docs/security.md#confirmation):
 * without one it is answered `needs_confirmation`. Constraint violations that escape an
 * operation become CONFLICT, never a 500. Answers data, never HTTP (src/api/service.ts).
 * The arguments' check includes the contract's declared spans (src/api/bounds.ts); every call
 * carries a deadline (REQUEST_DEADLINE_MS, src/runtime/deadline.ts) into its context, checked
 * before the operation runs, and a failure once it has passed is the deadline's — answered as
 * an outage with `reason: "deadline"` (docs/operations.md#request-deadline).
 *
 *   createOperationService({db, routes, handlers, budget?, now?}): OperationService
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { OperationRef, RouteDefinition } from '../runtime/types.js';
import { clockDate, systemClock } from '../runtime/clock.js';
import type { Caller, OperationHandler, OperationOutput } from './context.js';
import type { ListAwareContext } from './list.js';
import {
  isConfirmationProof,
  type ApiBudget, type ConfirmationProof, type ExecuteRequest, type ExecuteResult, type OperationService, type PreparedCall, type WorkspaceHint,
} from './service.js';
import { assertMembership, assertPermission, assertScope, canReach, findOmittedKinds, holdsPermissionsFor, resolveWorkspace } from './authorize.js';
import { parseStoredPermissions } from '../identity/permissions.js';
import { markOmitted } from './omitted.js';
import { assertSafeInput, compileRouteValidator, type ArgumentsValidator } from './validation.js';
import { assertNotBlocked } from './seguridad.js';
import { findReplay, hashRequest, storeResponse, type IdempotencyScope } from './idempotency.js';
import { isForeignKeyViolation, isUniqueViolation } from './records.js';
import { ApiError } from './errors.js';
import { assertDeclaredBounds } from './bounds.js';
import { isDatabaseUnavailable } from '../store/db-unavailable.js';
import { createDeadline, DeadlineExceededError, type Deadline } from '../runtime/deadline.js';
import { sql } from 'kysely';
import type { ApprovedMoveRequest, OperationContext, OperationInput, OperationOutput as Output } from './context.js';
import type { ConfirmationDescribers } from './confirmation/describe.js';
import { adviseMoneyMove, enforceMoneyMove, recordMoneyMove } from './money/controls.js';
import { createApprovalRequest } from './money/approvals.js';
import { findMeasure } from './money/measures.js';
import type { MeasuredMove } from './money/types.js';

export interface OperationServiceDeps {
  readonly db: Kysely<Database>;
  readonly routes: readonly RouteDefinition[];
  readonly handlers: Readonly<Record<string, OperationHandler>>;
  /** Absent in unit tests that do not count calls. */
  readonly budget?: ApiBudget | undefined;
  /** The services' clock as a `Date` (src/runtime/clock.ts): `ctx.now`, idempotency windows; default the system clock. */
  readonly now?: () => Date;
  /** The confirmation sentences (src/api/confirmation/describe.ts): an approval request keeps its call's. Absent in unit tests. */
  readonly describers?: ConfirmationDescribers | undefined;
  /** REQUEST_DEADLINE_MS (default 10000): each call's deadline, from its start. */
  readonly requestDeadlineMs?: number;
  /** On PostgreSQL a write's transaction gets what is left of the deadline as its `statement_timeout`. */
  readonly dialect?: 'sqlite' | 'postgres';
  /**
   * PostgreSQL: the sessions' `statement_timeout` (DATABASE_STATEMENT_TIMEOUT_MS), which a write's own
   * never exceeds: the client stops waiting shortly after it (src/store/db.ts). Reads keep it.
   */
  readonly statementTimeoutMs?: number;
  /** The embedded Account's approval-request page (`ctx.approvalPageUrl`); absent with an external Account. */
  readonly approvalPageUrl?: ((workspaceId: string, approvalRequestId: string) => string) | undefined;
}

const DEFAULT_DEADLINE_MS = 10_000;

/**
 * A failure of a call whose deadline has passed is the deadline's (a PostgreSQL statement
 * cancelled by the request's `statement_timeout` included): answered with `reason: "deadline"`.
 */
function blameDeadline(err: unknown, deadline: Deadline): unknown {
  return !(err instanceof DeadlineExceededError) && isDatabaseUnavailable(err) && deadline.expired() ? new DeadlineExceededError({ cause: err }) : err;
}

interface CompiledOperation {
  readonly route: RouteDefinition;
  readonly validate: ArgumentsValidator;
  readonly handler: OperationHandler | undefined;
  /** Whether the route declares the Idempotency-Key header (creates and money-moving POSTs). */
  readonly takesIdempotencyKey: boolean;
}

function indexRoutes(deps: OperationServiceDeps): Map<string, CompiledOperation> {
  const byId = new Map<string, CompiledOperation>();
  for (const route of deps.routes) {
    // An outflow names a measure the money controls have, or the service does not start.
    if (route.operation.outflow !== null) findMeasure(route.operation.outflow);
    // Compiled once, on first use (src/api/validation.ts); test/api/schemas-compile.test.ts compiles
    // every schema in CI, so a broken one fails the build, not a request.
    byId.set(route.operation.operationId, {
      route,
      validate: compileRouteValidator(route),
      handler: deps.handlers[route.operation.operationId],
      takesIdempotencyKey: route.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
    });
  }
  return byId;
}

/** The Seguridad tab itself is never blocked by Seguridad, or an admin could lock the API out for good. */
function isSeguridadItself(operation: OperationRef): boolean {
  return operation.operationId.startsWith('security_settings.');
}

/**
 * The confirmation step's last word: a destructive MCP call needs a proof made by
 * src/mcp/tools/confirmation/ (`'missing'` when none was offered), and anything offered as a proof
 * must be one. Never trusts the dispatcher's choice to ask; `destructive` is the generated
 * classification the tool's `destructiveHint` is rendered from (codegen/classify.ts), so the
 * two cannot disagree.
 */
function checkConfirmationProof(caller: Caller, operation: OperationRef, offered: unknown): ConfirmationProof | 'missing' | undefined {
  const needed = caller.channel === 'mcp' && operation.destructive;
  if (offered === undefined) return needed ? 'missing' : undefined;
  if (isConfirmationProof(offered)) return offered;
  throw new ApiError('confirmation_required', 'This tool deletes, cancels or moves money and needs the person\'s confirmation; nothing was changed.');
}

/** A write's answer: the operation's output, or the stored one of its Idempotency-Key. */
interface WriteAnswer {
  readonly output: OperationOutput;
  readonly replayed: boolean;
}

/** The name a request is hashed under for its Idempotency-Key: the operation, and the kinds its caller may not read. */
function visibleAs(operationId: string, omitted: ReadonlySet<string>): string {
  return omitted.size === 0 ? operationId : `${operationId} omitted:${[...omitted].join(',')}`;
}

/** The services `execute` runs a call with, once the route table is indexed. */
interface Runtime {
  readonly deps: OperationServiceDeps;
  readonly now: () => Date;
  /** The route table, by operationId (an approved money move runs its operation's handler). */
  readonly operations: ReadonlyMap<string, CompiledOperation>;
  /** The operations that move money out, once. */
  readonly outflows: readonly OperationRef[];
}

/** One call past its checks, on its way to the operation. */
interface ReadyCall {
  readonly compiled: CompiledOperation;
  readonly handler: OperationHandler;
  readonly prepared: PreparedCall;
  readonly request: ExecuteRequest;
  /** The kinds of the operation's `shows` the caller may not read (docs/security.md#resources-touched). */
  readonly omitted: ReadonlySet<string>;
  readonly deadline: Deadline;
}

/** The operation's context, on `db` (the write's transaction, or the database for a read). */
function buildContext(runtime: Runtime, call: ReadyCall, db: Kysely<Database>): ListAwareContext {
  const { caller, workspaceId } = call.prepared;
  const { route } = call.compiled;
  return {
    caller, workspaceId, db, now: runtime.now, deadline: call.deadline, bounds: route.bounds, listSpec: route.list, omitted: call.omitted,
    findOperation: (operationId) => runtime.operations.get(operationId)?.route.operation,
    describe: (operationId, input) => describeCall(runtime, { caller, workspaceId, db }, operationId, input),
    outflows: runtime.outflows,
    ...(runtime.deps.approvalPageUrl ? { approvalPageUrl: runtime.deps.approvalPageUrl } : {}),
  };
}

/** A destructive call's confirmation sentence for `caller` (an approval request keeps it); null without a describer. */
async function describeCall(
  runtime: Runtime, on: Pick<OperationContext, 'caller' | 'workspaceId' | 'db'>, operationId: string, input: OperationInput,
): Promise<string | null> {
  const describer = runtime.deps.describers?.describerFor(operationId);
  if (describer === undefined || on.workspaceId === null) return null;
  return (await describer({ caller: on.caller, db: on.db, workspaceId: on.workspaceId, input, now: runtime.now })).message;
}

/** A write's context: its transaction, and the one way to run a money move a second person approved. */
function buildWriteContext(runtime: Runtime, call: ReadyCall, trx: Kysely<Database>): ListAwareContext {
  const ctx = buildContext(runtime, call, trx);
  return { ...ctx, runApprovedMove: (request) => runApprovedMove(runtime, ctx, request) };
}

/**
 * The requester's membership as it is now (the move runs as theirs): active, granted the request's
 * workspace and holding the move's permissions, else CONFLICT — the approval cannot run what its
 * requester may no longer do, and the request stays pending.
 */
async function loadRequesterMembership(approving: OperationContext, personId: string, operation: OperationRef): Promise<NonNullable<Caller['membership']>> {
  const refused = new ApiError('CONFLICT', 'The person who asked for this move can no longer make it (their membership, permissions or workspaces changed); nothing was changed.');
  const row = await approving.db.selectFrom('memberships').select(['id', 'status', 'is_admin', 'permissions'])
    .where('organization_id', '=', approving.caller.organizationId).where('person_id', '=', personId).executeTakeFirst();
  const workspaceId = approving.workspaceId;
  if (!row || row.status !== 'active' || workspaceId === null) throw refused;
  const isAdmin = Number(row.is_admin) === 1;
  const granted = isAdmin || (await approving.db.selectFrom('membership_workspaces').select('workspace_id')
    .where('membership_id', '=', row.id).where('workspace_id', '=', workspaceId).executeTakeFirst()) !== undefined;
  if (!granted) throw refused;
  const membership: NonNullable<Caller['membership']> = {
    status: 'active', isAdmin, permissions: new Set(parseStoredPermissions(row.permissions)),
    workspaceIds: [workspaceId], workspaceNames: approving.caller.membership?.workspaceNames ?? new Map(),
  };
  if (!holdsPermissionsFor({ ...approving.caller, personId, membership }, operation)) throw refused;
  return membership;
}

/** One measured item as a comparable key: its record, amount, version, payee and account. */
const itemKey = (item: { recordId: string | null; kind: string; cents: number; version: number | null; payeePersonId: string | null; accountId: string | null }): string =>
  JSON.stringify([item.kind, item.recordId, item.cents, item.version, item.payeePersonId, item.accountId]);

/** Whether the move measured now is the one approved: the same items (as a multiset) and the same total. */
function sameMove(measured: MeasuredMove, request: ApprovedMoveRequest): boolean {
  if (measured.totalCents !== request.approvedTotalCents || measured.items.length !== request.approvedItems.length) return false;
  const approved = request.approvedItems.map(itemKey).sort();
  const now = measured.items.map(itemKey).sort();
  return approved.every((key, index) => key === now[index]);
}

/**
 * An approved request's move, in the approving call's transaction (docs/security.md#money-controls):
 * its operation's own handler with the original arguments (validated again against the route),
 * as the requester on their channel; the limits and the allowlist held again, never the
 * threshold; a measured record whose version changed since the request is refused (CONFLICT),
 * nothing half-done; the move recorded with the request's id.
 */
async function runApprovedMove(runtime: Runtime, approving: OperationContext, request: ApprovedMoveRequest): Promise<Output> {
  const compiled = runtime.operations.get(request.operationId);
  const operation = compiled?.route.operation;
  if (!compiled?.handler || !operation || operation.outflow === null || operation.workspaceScoped === false) {
    throw new Error(`An approval request names ${request.operationId}, which is not a money move out`);
  }
  compiled.validate(request.input);
  const membership = await loadRequesterMembership(approving, request.requester.personId, operation);
  const caller = { ...approving.caller, personId: request.requester.personId, channel: request.requester.channel, tokenType: request.requester.tokenType, membership };
  // The move's own activity entries name the request and both people (docs/security.md#money-controls).
  const activityDetails = { approval_request_id: request.approvalRequestId, requested_by: request.requester.personId, approved_by: approving.caller.personId };
  // The move's result is kept with the request and read by the requester and the approvers: it
  // leaves out what either of the two people of this decision may not read.
  const omitted = new Set([...findOmittedKinds(caller, operation), ...findOmittedKinds(approving.caller, operation)]);
  const ctx: ListAwareContext = { ...approving, caller, omitted, bounds: compiled.route.bounds, listSpec: compiled.route.list, activityDetails };
  const decision = await enforceMoneyMove(ctx, operation, request.input, { approvedRequestId: request.approvalRequestId });
  if (!decision) throw new Error(`${request.operationId} measured no outflow`);
  if (!sameMove(decision.measured, request)) {
    throw new ApiError('CONFLICT', 'This move would no longer do exactly what was approved (a record, an amount, a payee or an account changed since it was asked); nothing was changed. Ask again.');
  }
  const output = await compiled.handler(ctx, request.input);
  await recordMoneyMove(ctx, decision.measured, request.approvalRequestId);
  return markOmitted(output, omitted);
}

/** The Idempotency-Key scope of a write: only on a route that declares the header, in a workspace, with a key. */
function idempotencyScopeOf(call: ReadyCall): IdempotencyScope | null {
  const { operation, caller, workspaceId, input } = call.prepared;
  return input.idempotencyKey && workspaceId && call.compiled.takesIdempotencyKey
    ? { workspaceId, personId: caller.personId, key: input.idempotencyKey, operationId: operation.operationId }
    : null;
}

/** PostgreSQL can cancel a statement: none of this transaction's outlives the request's deadline. */
async function limitStatementTime(runtime: Runtime, trx: Kysely<Database>, deadline: Deadline): Promise<void> {
  if (runtime.deps.dialect !== 'postgres') return;
  const timeout = Math.min(deadline.remainingMs(), runtime.deps.statementTimeoutMs ?? Number.POSITIVE_INFINITY);
  await sql`select set_config('statement_timeout', ${String(Math.max(1, Math.floor(timeout)))}, true)`.execute(trx);
}

/** Inside the write's transaction: the proof consumed, the transport's hook, a replay or the operation. */
async function writeInTransaction(
  runtime: Runtime, call: ReadyCall, proof: ConfirmationProof | undefined, trx: Kysely<Database>, scope: IdempotencyScope | null, hash: string,
): Promise<WriteAnswer> {
  await limitStatementTime(runtime, trx, call.deadline);
  // The confirmation is burnt with the write or not at all (docs/security.md#confirmation).
  await proof?.consumeInTransaction(trx, call.prepared);
  await call.request.hooks?.inTransaction?.(trx, call.prepared);
  const startedAt = runtime.now();
  if (scope) {
    const replay = await findReplay(trx, scope, hash, startedAt);
    if (replay) return { output: replay, replayed: true };
  }
  const ctx = buildWriteContext(runtime, call, trx);
  const { operation, input } = call.prepared;
  // The money controls' authoritative check (docs/security.md#money-controls): serialised per
  // workspace, measured with the records locked; above the threshold the move waits for a second person.
  const decision = await enforceMoneyMove(ctx, operation, input);
  call.deadline.check();
  const output = decision?.kind === 'approval'
    ? await createApprovalRequest(ctx, operation, input, decision.measured, decision.controls)
    : await call.handler(ctx, input);
  if (decision?.kind === 'run') await recordMoneyMove(ctx, decision.measured, null);
  if (scope) await storeResponse(trx, scope, hash, output, startedAt);
  return { output, replayed: false };
}

/** A write that failed: the winner's stored answer to a concurrent first use of its key, CONFLICT for a constraint, else the error. */
async function answerFailedWrite(
  runtime: Runtime, caught: unknown, deadline: Deadline, scope: IdempotencyScope | null, hash: string,
): Promise<WriteAnswer> {
  const err = blameDeadline(caught, deadline);
  // Two concurrent first uses of one key: the loser's insert hits the primary key and its
  // transaction rolls back; answer it from what the winner stored.
  if (scope && isUniqueViolation(err)) {
    const replay = await findReplay(runtime.deps.db, scope, hash, runtime.now());
    if (replay) return { output: replay, replayed: true };
  }
  // A race the operation's own checks could not see (two creates of one unique name): the
  // database constraint decided, and the caller gets CONFLICT rather than a 500.
  if (isUniqueViolation(err) || isForeignKeyViolation(err)) {
    throw new ApiError('CONFLICT', 'The request conflicts with the current state of a record.', undefined, { cause: err });
  }
  throw err;
}

async function runWrite(runtime: Runtime, call: ReadyCall, proof: ConfirmationProof | undefined): Promise<WriteAnswer> {
  const scope = idempotencyScopeOf(call);
  // What the caller may read is part of the request: a replay under another token that reads
  // less is a different request (CONFLICT), never the stored answer with records it may not see.
  const hash = scope ? hashRequest(visibleAs(call.prepared.operation.operationId, call.omitted), call.prepared.input) : '';
  try {
    return await runtime.deps.db.transaction().execute((trx) => writeInTransaction(runtime, call, proof, trx, scope, hash));
  } catch (caught) {
    return answerFailedWrite(runtime, caught, call.deadline, scope, hash);
  }
}

async function runRead(runtime: Runtime, call: ReadyCall): Promise<OperationOutput> {
  const ctx = buildContext(runtime, call, runtime.deps.db);
  try {
    call.deadline.check();
    return await call.handler(ctx, call.prepared.input);
  } catch (err) {
    throw blameDeadline(err, call.deadline);
  }
}

/** The arguments' check: the transport's own (MCP: the tool's inputSchema) or the route's schemas, then the declared spans. */
function checkArguments(compiled: CompiledOperation, request: ExecuteRequest): void {
  if (request.checkArguments) {
    // The transport validated the arguments the client sent against the schema the client saw
    // (MCP: the tool's inputSchema), so they are validated once, with the client's names.
    request.checkArguments();
    assertSafeInput(request.input);
  } else {
    const { validate } = compiled;
    validate(request.input);
  }
  assertDeclaredBounds(compiled.route.bounds, request.input);
}

/** Membership → scope → permission → workspace: one function for `execute` and `authorize`, so both answer alike. */
async function authorizeCall(runtime: Runtime, operation: OperationRef, caller: Caller, hint: WorkspaceHint): Promise<string | null> {
  assertMembership(caller);
  assertScope(caller, operation);
  assertPermission(caller, operation);
  return operation.workspaceScoped ? resolveWorkspace(runtime.deps.db, caller, hint) : null;
}

/**
 * The money controls' advisory check, before the confirmation is asked: nobody is asked to
 * approve a move the limits or the payee allowlist would refuse now (docs/security.md#money-controls).
 */
async function adviseMoney(runtime: Runtime, compiled: CompiledOperation, request: ExecuteRequest, workspaceId: string | null, deadline: Deadline): Promise<void> {
  const operation = compiled.route.operation;
  if (operation.outflow === null || workspaceId === null) return;
  const ctx: OperationContext = {
    caller: request.caller, workspaceId, db: runtime.deps.db, now: runtime.now, deadline, bounds: compiled.route.bounds,
    omitted: findOmittedKinds(request.caller, operation),
  };
  await adviseMoneyMove(ctx, operation, request.input);
}

/** Every check before the confirmation, in order; answers the workspace and the budget after this call. */
async function checkCall(runtime: Runtime, compiled: CompiledOperation, request: ExecuteRequest, deadline: Deadline) {
  const operation = compiled.route.operation;
  const { caller } = request;
  const workspaceId = await authorizeCall(runtime, operation, caller, request.workspace);
  request.hooks?.authorized?.(workspaceId);
  checkArguments(compiled, request);
  if (workspaceId && !isSeguridadItself(operation)) await assertNotBlocked(runtime.deps.db, workspaceId, caller.channel, operation);
  const budget = await runtime.deps.budget?.consume(caller.personId, caller.organizationId, operation.readOnly ? 'read' : 'write');
  await adviseMoney(runtime, compiled, request, workspaceId, deadline);
  return { workspaceId, budget };
}

async function execute(runtime: Runtime, compiled: CompiledOperation, request: ExecuteRequest): Promise<ExecuteResult> {
  const { route, handler } = compiled;
  const operation = route.operation;
  const { caller } = request;
  const deadline = createDeadline({ now: () => runtime.now().getTime() }, runtime.deps.requestDeadlineMs ?? DEFAULT_DEADLINE_MS);
  const { workspaceId, budget } = await checkCall(runtime, compiled, request, deadline);
  // A route without a handler is a deployment bug; it still gets every check above first.
  if (!handler) throw new Error(`No handler for operationId: ${request.operationId}`);
  const prepared: PreparedCall = { operation, caller, workspaceId, input: request.input };
  const offered: unknown = await request.hooks?.beforeExecute?.(prepared);
  const proof = checkConfirmationProof(caller, operation, offered);
  if (proof === 'missing') return { kind: 'needs_confirmation', prepared };
  const answered = { ...(budget ? { budget } : {}) };
  // The records of kinds the caller may not read are left out (docs/security.md#resources-touched).
  const omitted = findOmittedKinds(caller, operation);
  const call: ReadyCall = { compiled, handler, prepared, request, omitted, deadline };
  // A read (a GET, or an operation that changes nothing, codegen/classify.ts) runs outside a write's transaction and key.
  if (operation.readOnly) {
    return { kind: 'done', output: markOmitted(await runRead(runtime, call), omitted), replayed: false, ...answered };
  }
  const { output, replayed } = await runWrite(runtime, call, proof);
  return { kind: 'done', output: markOmitted(output, omitted), replayed, ...answered };
}

export function createOperationService(deps: OperationServiceDeps): OperationService {
  const operations = indexRoutes(deps);
  const outflows = [...operations.values()].map((compiled) => compiled.route.operation).filter((operation) => operation.outflow !== null);
  const runtime: Runtime = { deps, now: deps.now ?? (() => clockDate(systemClock)), operations, outflows };

  function findOperation(operationId: string): CompiledOperation {
    const compiled = operations.get(operationId);
    if (!compiled) throw new Error(`Unknown operationId: ${operationId}`);
    return compiled;
  }

  return {
    execute(request) {
      // findOperation throws for an unknown id: a rejected promise, as an async function answers.
      try {
        return execute(runtime, findOperation(request.operationId), request);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    async authorize(request) {
      return authorizeCall(runtime, findOperation(request.operationId).route.operation, request.caller, request.workspace);
    },
    canReach(caller, operation: OperationRef) {
      return canReach(caller, operation);
    },
  };
}
