/**
 * money_allowance.get: the caller's own allowance (docs/security.md#money-controls) — for each
 * spending limit that applies to them on this channel, what is used, what is left and when it
 * resets. Any member may read their own; the configuration itself (other people's limits, the
 * allowlist, the approval thresholds) stays in the Seguridad settings, which no agent reads.
 */
import { defineOperations } from '../define-operations.js';
import { loadMoneyControls } from '../money/config.js';
import { readAllowances } from '../money/limits.js';
import { requireWorkspace } from '../records.js';

export const handlers = defineOperations({
  'money_allowance.get': async (ctx) => {
    const controls = await loadMoneyControls(ctx.db, requireWorkspace(ctx));
    const channel = ctx.caller.channel === 'link' ? 'web' : ctx.caller.channel;
    return { body: { channel, limits: await readAllowances(ctx, controls) } };
  },
});
