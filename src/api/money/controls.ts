/**
 * The money controls' place in the check chain (docs/security.md#money-controls), called by
 * src/api/execute.ts for every operation with an outflow (`x-kobana-moves-money.outflow`):
 *
 * - **advisory**, after the API budget and before the confirmation: the call is measured on the
 *   database as it is and held to the limits and the payee allowlist, so nobody is asked to
 *   confirm what would be refused now;
 * - **authoritative**, inside the write's transaction: when a rolling limit applies, the
 *   workspace's money moves are serialised (`pg_advisory_xact_lock` on PostgreSQL; SQLite runs
 *   one write transaction at a time), the call is measured again with its records locked, limits and allowlist checked
 *   again, and above the approval threshold the move becomes an approval request instead;
 * - **recorded**: after the operation ran, one `money_moves` row per item in the same
 *   transaction, so only successful moves count, on every replica; an undo never deletes one.
 *
 *   adviseMoneyMove(ctx, operation, input): Promise<MeasuredMove | null>
 *   enforceMoneyMove(ctx, operation, input, {approvedRequestId?}): Promise<MoneyDecision | null>
 *   recordMoneyMove(ctx, measured, approvalRequestId): Promise<void>
 */
import { randomUUID } from 'node:crypto';
import { PostgresAdapter, sql } from 'kysely';
import type { OperationContext, OperationInput } from '../context.js';
import type { OperationRef } from '../../runtime/types.js';
import { requireWorkspace } from '../records.js';
import { loadMoneyControls, type MoneyControls } from './config.js';
import { applicableLimits, assertWithinLimits, isControlledChannel } from './limits.js';
import { assertPayeesAllowed } from './allowlist.js';
import { needsApproval } from './approvals.js';
import { measureMove } from './measures.js';
import type { MeasuredMove } from './types.js';

export type MoneyDecision =
  | { readonly kind: 'run'; readonly measured: MeasuredMove }
  | { readonly kind: 'approval'; readonly measured: MeasuredMove; readonly controls: MoneyControls };

/** Whether anything in the configuration could refuse this caller's move before it is confirmed. */
function checksBeforeConfirmation(controls: MoneyControls, ctx: OperationContext): boolean {
  const { channel } = ctx.caller;
  return isControlledChannel(channel) && (applicableLimits(controls, ctx.caller).length > 0 || controls.allowlistChannels.includes(channel));
}

async function holdToControls(ctx: OperationContext, controls: MoneyControls, measured: MeasuredMove): Promise<void> {
  await assertWithinLimits(ctx, controls, measured);
  await assertPayeesAllowed(ctx, controls, measured.items);
}

/** Before the confirmation: refuses now what the transaction would refuse (LIMIT_EXCEEDED, SECURITY_BLOCKED). */
export async function adviseMoneyMove(ctx: OperationContext, operation: OperationRef, input: OperationInput): Promise<MeasuredMove | null> {
  if (operation.outflow === null) return null;
  const controls = await loadMoneyControls(ctx.db, requireWorkspace(ctx));
  if (!checksBeforeConfirmation(controls, ctx)) return null;
  const measured = await measureMove(ctx, operation, input, { lock: false });
  if (measured) await holdToControls(ctx, controls, measured);
  return measured;
}

/** One money move at a time per workspace, across replicas, until the transaction ends. */
async function serialiseMoneyMoves(ctx: OperationContext): Promise<void> {
  if (!(ctx.db.getExecutor().adapter instanceof PostgresAdapter)) return; // SQLite: one write transaction at a time
  await sql`select pg_advisory_xact_lock(hashtextextended(${`money-moves:${requireWorkspace(ctx)}`}, 0))`.execute(ctx.db);
}

/**
 * Inside the write's transaction, before the operation: the authoritative check. Null for an
 * operation that moves nothing out. An approved request's move (`approvedRequestId`) is held to
 * the limits and the allowlist again, never to the threshold.
 */
export async function enforceMoneyMove(
  ctx: OperationContext, operation: OperationRef, input: OperationInput, options: { readonly approvedRequestId?: string } = {},
): Promise<MoneyDecision | null> {
  if (operation.outflow === null) return null;
  const controls = await loadMoneyControls(ctx.db, requireWorkspace(ctx));
  // Only a rolling window depends on what concurrent moves commit: with none applying, nothing
  // needs the moves of the workspace one after the other.
  if (applicableLimits(controls, ctx.caller).some((limit) => limit.window !== 'move')) await serialiseMoneyMoves(ctx);
  const measured = await measureMove(ctx, operation, input, { lock: true });
  if (!measured) return null;
  await holdToControls(ctx, controls, measured);
  if (options.approvedRequestId === undefined && needsApproval(controls, ctx.caller.channel, measured)) return { kind: 'approval', measured, controls };
  return { kind: 'run', measured };
}

/** After the operation ran, in its transaction: one row per item, what the limits count from now on. */
export async function recordMoneyMove(ctx: OperationContext, measured: MeasuredMove, approvalRequestId: string | null): Promise<void> {
  if (measured.items.length === 0) return;
  const { channel } = ctx.caller;
  if (channel === 'link') throw new Error('a download link cannot move money');
  const occurredAt = ctx.now().toISOString();
  await ctx.db.insertInto('money_moves').values(measured.items.map((item) => ({
    id: randomUUID(), workspace_id: requireWorkspace(ctx), operation_id: measured.operationId, channel,
    person_id: ctx.caller.personId, token_type: ctx.caller.tokenType, amount_cents: item.cents,
    record_id: item.recordId, approval_request_id: approvalRequestId, occurred_at: occurredAt,
  }))).execute();
}
