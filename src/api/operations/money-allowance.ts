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
import { holdsPermissionsFor } from '../authorize.js';
import type { OperationContext } from '../context.js';

/** Whether the caller's permissions let them make any move out of the workspace. */
const movesMoneyOut = (ctx: OperationContext): boolean => (ctx.outflows ?? []).some((operation) => holdsPermissionsFor(ctx.caller, operation));

export const handlers = defineOperations({
  'money_allowance.get': async (ctx) => {
    const channel = ctx.caller.channel === 'link' ? 'web' : ctx.caller.channel;
    if (!movesMoneyOut(ctx)) return { body: { channel, limits: [] } };
    return { body: { channel, limits: await readAllowances(ctx, await loadMoneyControls(ctx.db, requireWorkspace(ctx))) } };
  },
});
