/**
 * money_allowance.get: the caller's own allowance (docs/security.md#money-controls) — for each
 * spending limit that applies to them on this channel, what is used, what is left and when it
 * resets. Any member may read their own; the configuration itself (other people's limits, the
 * allowlist, the approval thresholds) stays in the Seguridad settings, which no agent reads. A
 * member who may make no move out has no allowance: the answer lists no limit, so a workspace-wide
 * total's `used` (everyone's moves) is told only to those it limits.
 */
import { defineOperations } from '../define-operations.js';
import { loadMoneyControls } from '../money/config.js';
import { readAllowances } from '../money/limits.js';
import { requireWorkspace } from '../records.js';
import { assertPermission } from '../authorize.js';
import type { Caller, OperationContext } from '../context.js';
import type { OperationRef } from '../../runtime/types.js';

function mayMake(caller: Caller, operation: OperationRef): boolean {
  try {
    assertPermission(caller, operation);
    return true;
  } catch {
    return false;
  }
}

/** Whether the caller's permissions let them make any move out of the workspace. */
const movesMoneyOut = (ctx: OperationContext): boolean => (ctx.outflows ?? []).some((operation) => mayMake(ctx.caller, operation));

export const handlers = defineOperations({
  'money_allowance.get': async (ctx) => {
    const controls = await loadMoneyControls(ctx.db, requireWorkspace(ctx));
    const channel = ctx.caller.channel === 'link' ? 'web' : ctx.caller.channel;
    return { body: { channel, limits: movesMoneyOut(ctx) ? await readAllowances(ctx, controls) : [] } };
  },
});
