/**
 * A second approver (maker-checker, docs/security.md#money-controls): above the workspace's
 * threshold for the channel, a confirmed money move becomes an approval request instead of
 * running.
 *
 *   needsApproval(controls, channel, measured): boolean
 *   createApprovalRequest(ctx, operation, input, measured, controls): Promise<OperationOutput>
 *
 * First version (lead): part C of issue 29 builds the request.
 */
import type { Channel, OperationContext, OperationInput, OperationOutput } from '../context.js';
import type { OperationRef } from '../../runtime/types.js';
import type { MoneyControls } from './config.js';
import type { MeasuredMove } from './types.js';

/** Whether the move's total is above the threshold of its channel (never on the panel). */
export function needsApproval(controls: MoneyControls, channel: Channel, measured: MeasuredMove): boolean {
  if (channel !== 'api' && channel !== 'mcp') return false;
  const threshold = controls.approvalThresholdCents[channel];
  return threshold !== null && measured.totalCents > threshold;
}

export async function createApprovalRequest(
  ctx: OperationContext, operation: OperationRef, input: OperationInput, measured: MeasuredMove, controls: MoneyControls,
): Promise<OperationOutput> {
  void ctx; void input; void measured; void controls;
  throw new Error(`approval requests are not built yet (${operation.operationId})`);
}
