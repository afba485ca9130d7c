/**
 * A second approver (maker-checker, docs/security.md#money-controls): above the workspace's
 * threshold for the channel, a confirmed money move becomes an approval request instead of
 * running; another person — never the requester — who holds `approvals.approve` and everything
 * the move itself needs approves it (the move then runs once, as the requester's, through
 * `ctx.runApprovedMove`) or rejects it. Expiry is read, never written: a pending request whose
 * `expires_at` passed (the services' clock) reads `expired` and can no longer be decided.
 *
 *   needsApproval(controls, channel, measured): boolean
 *   createApprovalRequest(ctx, operation, input, measured, controls, id?): Promise<OperationOutput>
 *   decideApprovalRequest(ctx, id, decision): Promise<OperationOutput>   // approve (runs the move) or reject
 *   readApprovalRequest(ctx, id) / approvalListDefinition(ctx)           // what approvals.get and approvals.list answer
 */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { ApprovalRequestsTable } from '../../store/schema.js';
import type { Caller, Channel, OperationContext, OperationInput, OperationOutput } from '../context.js';
import type { OperationRef } from '../../runtime/types.js';
import { ApiError, notFound } from '../errors.js';
import { assertPermission, assertScope, holdsPermission, holdsPermissionsFor } from '../authorize.js';
import { recordActivity } from '../audit.js';
import { assertNotBlocked } from '../seguridad.js';
import { formatCents } from '../money.js';
import { requireWorkspace } from '../records.js';
import { listColumns, type AnySelect, type ListDefinition } from '../list.js';
import type { MoneyControls } from './config.js';
import type { MeasuredMove, MoneyItem } from './types.js';

type Row = Selectable<ApprovalRequestsTable>;
const LABEL = 'Approval request';
const PENDING = 'pending_approval';
const APPROVE_PERMISSION = 'approvals.approve';
const HOUR_MS = 3_600_000;

/** Whether the move's total is above the threshold of its channel (never on the panel). */
export function needsApproval(controls: MoneyControls, channel: Channel, measured: MeasuredMove): boolean {
  if (channel !== 'api' && channel !== 'mcp') return false;
  const threshold = controls.approvalThresholdCents[channel];
  return threshold !== null && measured.totalCents > threshold;
}

/** The one value every item shares (the counterparty, the account), else null. */
function shared(items: readonly MoneyItem[], pick: (item: MoneyItem) => string | null): string | null {
  const values = new Set(items.map(pick));
  return values.size === 1 ? [...values][0] ?? null : null;
}

/** The input a request keeps to run the move later: its path, query and body — never the idempotency key. */
function storedInput(input: OperationInput): string {
  return JSON.stringify({ path: input.path, query: input.query, ...(input.body === undefined ? {} : { body: input.body }) });
}

/** The operation's confirmation sentence for the requester (src/api/confirmation/describe.ts), the one the person confirmed. */
async function describeMove(ctx: OperationContext, operation: OperationRef, input: OperationInput): Promise<string> {
  const sentence = await ctx.describe?.(operation.operationId, input);
  if (typeof sentence !== 'string' || sentence === '') throw new Error(`${operation.operationId} has no confirmation sentence for its approval request`);
  return sentence;
}

/**
 * One live request per record: a title already waiting for a second person is not asked for again
 * (an approver would otherwise see two requests and could approve both; the second could never
 * run). Its rows are locked by the measure, so two concurrent asks for one title see each other.
 */
async function assertNoLiveRequest(ctx: OperationContext, measured: MeasuredMove, now: Date): Promise<void> {
  const ids = measured.items.flatMap((item) => (item.recordId === null ? [] : [item.recordId]));
  if (ids.length === 0) return;
  const live = await ctx.db.selectFrom('approval_requests').select('id')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('status', '=', PENDING).where('expires_at', '>', now.toISOString())
    .where((eb) => eb.or(ids.map((id) => eb('items', 'like', `%"record_id":${JSON.stringify(id)}%`))))
    .orderBy('created_at').limit(1).executeTakeFirst();
  if (live) {
    throw new ApiError('CONFLICT', 'A record of this move already waits for a second person\'s approval; nothing was changed. Read that request, or ask for it to be rejected first.', {
      approval_request_id: live.id,
    });
  }
}

/**
 * Inside the move's transaction, instead of the operation: the request row (the sentence, the
 * stored input, the measured items with their versions, the expiry on the services' clock),
 * the requester's activity entry, and the request as the answer (`outcome: 'pending_approval'`).
 * `id`: a fresh UUID, unless the caller names one (the demo seed's requests have fixed ids).
 */
export async function createApprovalRequest(
  ctx: OperationContext, operation: OperationRef, input: OperationInput, measured: MeasuredMove, controls: MoneyControls, id: string = randomUUID(),
): Promise<OperationOutput> {
  const workspaceId = requireWorkspace(ctx);
  const { caller } = ctx;
  if (caller.channel === 'link') throw new Error('a download link cannot ask for a money move');
  const now = ctx.now();
  await assertNoLiveRequest(ctx, measured, now);
  const row: Row = {
    id, workspace_id: workspaceId, operation_id: operation.operationId, input: storedInput(input),
    sentence: await describeMove(ctx, operation, input), amount_cents: measured.totalCents,
    items: JSON.stringify(measured.items.map((item) => ({
      record_id: item.recordId, kind: item.kind, cents: item.cents, payee_person_id: item.payeePersonId, account_id: item.accountId, version: item.version, label: item.label,
    }))),
    person_id: shared(measured.items, (item) => item.payeePersonId), financial_account_id: shared(measured.items, (item) => item.accountId),
    requested_by: caller.personId, requested_via: caller.channel, token_type: caller.tokenType, status: PENDING,
    created_at: now.toISOString(), expires_at: new Date(now.getTime() + controls.approvalExpiryHours * HOUR_MS).toISOString(),
    decided_by: null, decided_via: null, decided_at: null, decision_reason: null, result: null, version: 1,
  };
  await ctx.db.insertInto('approval_requests').values(row).execute();
  await recordActivity(ctx, {
    operation: operation.operationId, resource: 'approvals', recordId: row.id,
    details: { approval_request_id: row.id, outcome: PENDING, requested_by: caller.personId },
  });
  return { outcome: 'pending_approval', body: toApprovalJson(ctx, row, now) };
}

/** `pending_approval` reads `expired` once `expires_at` has passed. */
function effectiveStatus(row: Pick<Row, 'status' | 'expires_at'>, now: Date): string {
  return row.status === PENDING && row.expires_at <= now.toISOString() ? 'expired' : row.status;
}

interface StoredItem {
  record_id: string | null; kind: string; cents: number; label: string; version: number | null;
  payee_person_id?: string | null; account_id?: string | null;
}

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** The contract's ApprovalRequest. */
export function toApprovalJson(ctx: Pick<OperationContext, 'approvalPageUrl'>, row: Row, now: Date): Record<string, unknown> {
  const items = parseJson<StoredItem[]>(row.items, []);
  return {
    id: row.id, status: effectiveStatus(row, now), operation: row.operation_id, tool: `finance_${row.operation_id.replace(/\./g, '_')}`,
    description: row.sentence, amount: formatCents(row.amount_cents),
    items: items.map((item) => ({ record_id: item.record_id, kind: item.kind, amount: formatCents(item.cents), label: item.label })),
    person_id: row.person_id, financial_account_id: row.financial_account_id,
    requested_by: row.requested_by, requested_via: row.requested_via, created_at: row.created_at, expires_at: row.expires_at,
    approval_url: ctx.approvalPageUrl ? ctx.approvalPageUrl(row.workspace_id, row.id) : null,
    decided_by: row.decided_by, decided_via: row.decided_via, decided_at: row.decided_at, reason: row.decision_reason,
    result: parseJson<unknown>(row.result, null),
  };
}

function moveOf(ctx: OperationContext, row: Pick<Row, 'operation_id'>): OperationRef {
  const move = ctx.findOperation?.(row.operation_id);
  if (!move) throw new Error(`an approval request names ${row.operation_id}, which the service does not have`);
  return move;
}

/** Whether the person (their panel permissions, whatever their token) may decide requests of `move`. */
function mayDecideMove(caller: Caller, move: OperationRef): boolean {
  return holdsPermission(caller, APPROVE_PERMISSION) && holdsPermissionsFor(caller, move);
}

/** The operations of the workspace's requests the caller may decide (a handful: the money moves out). */
async function decidableOperations(ctx: OperationContext): Promise<string[]> {
  const rows = await ctx.db.selectFrom('approval_requests').select('operation_id').distinct().where('workspace_id', '=', requireWorkspace(ctx)).execute();
  return rows.map((row) => row.operation_id).filter((id) => {
    const move = ctx.findOperation?.(id);
    return move !== undefined && mayDecideMove(ctx.caller, move);
  });
}

/**
 * What the caller sees (approvals.list, approvals.get): the requests they made or decided, and
 * those of the moves they may decide. Anything else reads as not found.
 */
function visibleTo(qb: AnySelect, caller: Caller, decidable: readonly string[]): AnySelect {
  return qb.where((eb) => eb.or([
    eb('requested_by', '=', caller.personId),
    eb('decided_by', '=', caller.personId),
    ...(decidable.length > 0 ? [eb('operation_id', 'in', decidable)] : []),
  ]));
}

/** `status`: a request's status (`expired` computed from `expires_at`), or `pending`: waiting and the caller's to approve. */
function filterStatus(qb: AnySelect, value: unknown, caller: Caller, now: string, decidable: readonly string[]): AnySelect {
  switch (value) {
    case 'pending':
      if (decidable.length === 0) return qb.where(sql<boolean>`1 = 0`);
      return qb.where('status', '=', PENDING).where('expires_at', '>', now).where('requested_by', '<>', caller.personId).where('operation_id', 'in', decidable);
    case PENDING:
      return qb.where('status', '=', PENDING).where('expires_at', '>', now);
    case 'expired':
      return qb.where('status', '=', PENDING).where('expires_at', '<=', now);
    default:
      return qb.where('status', '=', String(value));
  }
}

/** approvals.list's definition for this caller, at this instant. */
export async function approvalListDefinition(ctx: OperationContext): Promise<ListDefinition<'approval_requests'>> {
  const decidable = await decidableOperations(ctx);
  const now = ctx.now();
  return {
    table: 'approval_requests',
    resourceLabel: LABEL,
    columns: listColumns({ id: 'uuid', created_at: 'timestamp' }),
    baseWhere: (qb) => visibleTo(qb, ctx.caller, decidable),
    customFilters: { status: (qb, _operator, value) => filterStatus(qb, value, ctx.caller, now.toISOString(), decidable) },
    toJson: (rows) => rows.map((row) => toApprovalJson(ctx, row, now)),
  };
}

async function findRequest(ctx: OperationContext, id: string): Promise<Row> {
  const row = await ctx.db.selectFrom('approval_requests').selectAll().where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(LABEL);
  return row;
}

function isVisible(ctx: OperationContext, row: Row): boolean {
  const { personId } = ctx.caller;
  if (row.requested_by === personId || row.decided_by === personId) return true;
  const move = ctx.findOperation?.(row.operation_id);
  return move !== undefined && mayDecideMove(ctx.caller, move);
}

/** approvals.get: one request the caller may see (else NOT_FOUND, as for one that does not exist). */
export async function readApprovalRequest(ctx: OperationContext, id: string): Promise<OperationOutput> {
  const row = await findRequest(ctx, id);
  if (!isVisible(ctx, row)) throw notFound(LABEL);
  return { body: toApprovalJson(ctx, row, ctx.now()) };
}

/**
 * Who may decide: another person than the requester, holding everything the move itself needs —
 * its permission and those of what it changes, its scopes on this token — with the move not
 * blocked by Seguridad on the approver's channel nor on the requester's (it runs there).
 */
async function assertMayDecide(ctx: OperationContext, row: Row, move: OperationRef): Promise<void> {
  if (row.requested_by === ctx.caller.personId) {
    throw new ApiError('insufficient_permission', 'The person who asked for this money move cannot approve or reject it; another person must.', {
      permission: APPROVE_PERMISSION, reason: 'own_request',
    });
  }
  assertPermission(ctx.caller, move);
  assertScope(ctx.caller, move);
  const workspaceId = requireWorkspace(ctx);
  await assertNotBlocked(ctx.db, workspaceId, ctx.caller.channel, move);
  await assertNotBlocked(ctx.db, workspaceId, row.requested_via, move);
}

/** Why a request can no longer be decided: it was decided, or it expired (CONFLICT, nothing changed). */
function notPending(row: Row, now: Date): ApiError {
  const status = effectiveStatus(row, now);
  const message = status === 'expired'
    ? 'This approval request expired; nothing was changed. The move must be asked for again.'
    : `This approval request was already ${status}; nothing was changed.`;
  return new ApiError('CONFLICT', message, { approval_request_id: row.id, status });
}

/** Claims the pending, unexpired row for this decision: one claim wins across replicas (the row's lock decides). */
async function claim(ctx: OperationContext, row: Row, status: 'approved' | 'rejected', reason: string | null): Promise<Date> {
  const now = ctx.now();
  const channel = ctx.caller.channel;
  if (channel !== 'api' && channel !== 'web') throw new ApiError('insufficient_permission', 'Approval requests are decided over REST or on the Account\'s approval page only.', { permission: APPROVE_PERMISSION });
  const result = await ctx.db.updateTable('approval_requests')
    .set({ status, decided_by: ctx.caller.personId, decided_via: channel, decided_at: now.toISOString(), decision_reason: reason, version: sql<number>`version + 1` })
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', row.id)
    .where('status', '=', PENDING).where('expires_at', '>', now.toISOString())
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw notPending(await findRequest(ctx, row.id), now);
  return now;
}

/** Codes of a move refused as it would run now (a record changed, a limit reached, a payee refused): the request stays pending. */
const MOVE_REFUSALS: ReadonlySet<string> = new Set(['CONFLICT', 'LIMIT_EXCEEDED', 'SECURITY_BLOCKED', 'UNPROCESSABLE_ENTITY', 'NOT_FOUND', 'VALIDATION_ERROR']);

async function runMove(ctx: OperationContext, row: Row): Promise<OperationOutput> {
  if (!ctx.runApprovedMove) throw new Error('approving needs a write context (ctx.runApprovedMove)');
  const input = parseJson<OperationInput>(row.input, { path: {}, query: {} });
  const items = parseJson<StoredItem[]>(row.items, []);
  const approvedItems = items.map((item) => ({
    recordId: item.record_id, kind: item.kind, cents: item.cents, version: item.version, payeePersonId: item.payee_person_id ?? null, accountId: item.account_id ?? null,
  }));
  try {
    return await ctx.runApprovedMove({
      operationId: row.operation_id, input: { path: input.path ?? {}, query: input.query ?? {}, ...(input.body === undefined ? {} : { body: input.body }) },
      requester: { personId: row.requested_by, channel: row.requested_via, tokenType: row.token_type }, approvalRequestId: row.id, approvedItems, approvedTotalCents: Number(row.amount_cents),
    });
  } catch (err) {
    if (!(err instanceof ApiError) || !MOVE_REFUSALS.has(err.code)) throw err;
    throw new ApiError(err.code, `${err.message} The approval request stays pending until it expires or is rejected.`, err.details, { cause: err });
  }
}

export type ApprovalDecision = { readonly kind: 'approve' } | { readonly kind: 'reject'; readonly reason: string | null };

/**
 * approvals.approve / approvals.reject, in the call's transaction: the checks of assertMayDecide,
 * the claim, then for an approval the move (exactly once: a refusal rolls the claim back with
 * it) and its result; the decider's activity entry names both people.
 */
export async function decideApprovalRequest(ctx: OperationContext, id: string, decision: ApprovalDecision): Promise<OperationOutput> {
  const row = await findRequest(ctx, id);
  // A request the caller may not see is not found, whatever they try to do with it (as approvals.get answers).
  if (!isVisible(ctx, row)) throw notFound(LABEL);
  const move = moveOf(ctx, row);
  await assertMayDecide(ctx, row, move);
  const status = decision.kind === 'approve' ? 'approved' : 'rejected';
  const decidedAt = await claim(ctx, row, status, decision.kind === 'reject' ? decision.reason : null);
  let result: string | null = null;
  if (decision.kind === 'approve') {
    const output = await runMove(ctx, row);
    result = JSON.stringify(output.body ?? null);
    await ctx.db.updateTable('approval_requests').set({ result }).where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', row.id).execute();
  }
  const decider = decision.kind === 'approve' ? 'approved_by' : 'rejected_by';
  await recordActivity(ctx, {
    operation: `approvals.${decision.kind}`, resource: 'approvals', recordId: row.id,
    details: { approval_request_id: row.id, operation: row.operation_id, requested_by: row.requested_by, [decider]: ctx.caller.personId },
  });
  const decided: Row = {
    ...row, status, decided_by: ctx.caller.personId, decided_via: ctx.caller.channel as 'api' | 'web', decided_at: decidedAt.toISOString(),
    decision_reason: decision.kind === 'reject' ? decision.reason : null, result, version: row.version + 1,
  };
  return { body: toApprovalJson(ctx, decided, decidedAt) };
}
