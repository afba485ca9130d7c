/**
 * Spending limits (docs/security.md#money-controls): an amount per move, a total per rolling
 * 24 h and a count per rolling hour, each for the channels it names and optionally one person
 * and one token type. They count the rows of `money_moves` — outflows that ran, written in the
 * move's own transaction — over windows placed by the application's clock (its instant is
 * passed into the SQL), so replicas and tests agree on them.
 *
 *   applicableLimits(controls, caller): SpendingLimit[]     // the limits a call on the caller's channel meets
 *   assertWithinLimits(ctx, controls, measured): Promise<void>  // LIMIT_EXCEEDED {limit, window, used, requested, resets_at} (+ index, record_id of a batch's item over a per-move cap)
 *   readAllowances(ctx, controls): Promise<Allowance[]>     // used / remaining / resets_at per applicable limit
 */
import { sql } from 'kysely';
import type { Caller, OperationContext } from '../context.js';
import { ApiError } from '../errors.js';
import { formatCents } from '../money.js';
import { requireWorkspace } from '../records.js';
import type { ControlledChannel, LimitWindow, MoneyControls, SpendingLimit } from './config.js';
import type { MeasuredMove } from './types.js';

const WINDOW_MS: Readonly<Record<Exclude<LimitWindow, 'move'>, number>> = { '24h': 24 * 3_600_000, '1h': 3_600_000 };

export function isControlledChannel(channel: Caller['channel']): channel is ControlledChannel {
  return channel === 'api' || channel === 'mcp';
}

/** The limits that apply to a move by this caller on its channel (none on the panel). */
export function applicableLimits(controls: MoneyControls, caller: Caller): SpendingLimit[] {
  const { channel } = caller;
  if (!isControlledChannel(channel)) return [];
  return controls.limits.filter((limit) => limit.channels.includes(channel)
    && (limit.madeBy === null || limit.madeBy === caller.personId)
    && (limit.tokenType === null || limit.tokenType === caller.tokenType));
}

/** The moves a rolling limit counts: its channels, person and token type, inside the window ending now. */
function countedMoves(ctx: OperationContext, limit: SpendingLimit, since: string) {
  let query = ctx.db.selectFrom('money_moves')
    .where('workspace_id', '=', requireWorkspace(ctx))
    .where('occurred_at', '>', since)
    .where('channel', 'in', [...limit.channels]);
  if (limit.madeBy !== null) query = query.where('person_id', '=', limit.madeBy);
  if (limit.tokenType !== null) query = query.where('token_type', '=', limit.tokenType);
  return query;
}

interface WindowUse { readonly used: number; readonly since: string; readonly nowMs: number }

async function readWindowUse(ctx: OperationContext, limit: SpendingLimit & { window: '24h' | '1h' }): Promise<WindowUse> {
  const nowMs = ctx.now().getTime();
  const since = new Date(nowMs - WINDOW_MS[limit.window]).toISOString();
  const row = await countedMoves(ctx, limit, since)
    .select([sql<string | number>`coalesce(sum(amount_cents), 0)`.as('total'), sql<string | number>`count(*)`.as('moves')])
    .executeTakeFirst();
  const used = limit.window === '1h' ? Number(row?.moves ?? 0) : Number(row?.total ?? 0);
  return { used, since, nowMs };
}

/**
 * When the window will have room for `requested` again: the moment enough of the oldest counted
 * moves leave it. Null when `requested` alone is over the limit (no wait makes it fit).
 */
async function findResetsAt(ctx: OperationContext, limit: SpendingLimit & { window: '24h' | '1h' }, use: WindowUse, requested: number, cap: number): Promise<string | null> {
  if (requested > cap) return null;
  let excess = use.used + requested - cap;
  if (excess <= 0) return null;
  const rows = await countedMoves(ctx, limit, use.since).select(['amount_cents', 'occurred_at']).orderBy('occurred_at').orderBy('id').execute();
  for (const row of rows) {
    excess -= limit.window === '1h' ? 1 : Number(row.amount_cents);
    if (excess <= 0) return new Date(Date.parse(row.occurred_at) + WINDOW_MS[limit.window]).toISOString();
  }
  return null;
}

function isRolling(limit: SpendingLimit): limit is SpendingLimit & { window: '24h' | '1h' } {
  return limit.window !== 'move';
}

const show = (limit: SpendingLimit, value: number): string | number => (limit.window === '1h' ? value : formatCents(value));

const MESSAGES: Readonly<Record<LimitWindow, string>> = {
  move: 'The move is over the workspace\'s limit per money move on this channel; nothing was changed. Do not retry it: tell the person (only a Seguridad admin can change the limits).',
  '24h': 'The move would exceed the workspace\'s 24-hour total for money moves on this channel; nothing was changed. Do not retry before details.resets_at (null: it never fits this limit); tell the person.',
  '1h': 'The move would exceed the workspace\'s number of money moves per hour on this channel; nothing was changed. Do not retry before details.resets_at (null: it never fits this limit); tell the person.',
};

/** The refusal; for a call of several items (a batch, a reconciliation) the per-move one names the item over the cap. */
function exceeded(limit: SpendingLimit, cap: number, used: number | null, requested: number, resetsAt: string | null, item?: { index: number; recordId: string | null }): ApiError {
  return new ApiError('LIMIT_EXCEEDED', MESSAGES[limit.window], {
    limit: show(limit, cap), window: limit.window, used: used === null ? null : show(limit, used), requested: show(limit, requested), resets_at: resetsAt,
    ...(item ? { index: item.index, record_id: item.recordId } : {}),
  });
}

/** Refuses the move when one applicable limit would be exceeded: each item against a per-move cap, the whole call against the windows. */
export async function assertWithinLimits(ctx: OperationContext, controls: MoneyControls, measured: MeasuredMove): Promise<void> {
  for (const limit of applicableLimits(controls, ctx.caller)) {
    if (!isRolling(limit)) {
      const cap = limit.amountCents as number;
      const index = measured.items.findIndex((item) => item.cents > cap);
      const over = measured.items[index];
      if (over) throw exceeded(limit, cap, null, over.cents, null, measured.items.length > 1 ? { index, recordId: over.recordId } : undefined);
      continue;
    }
    const cap = (limit.window === '1h' ? limit.count : limit.amountCents) as number;
    const requested = limit.window === '1h' ? measured.items.length : measured.totalCents;
    const use = await readWindowUse(ctx, limit);
    if (use.used + requested > cap) throw exceeded(limit, cap, use.used, requested, await findResetsAt(ctx, limit, use, requested, cap));
  }
}

/** One applicable limit as its caller may read it (docs/security.md#money-controls: their own allowance only). */
export interface Allowance {
  readonly window: LimitWindow;
  readonly limit: string | number;
  readonly used: string | number | null;
  readonly remaining: string | number | null;
  readonly resets_at: string | null;
}

/** The caller's own allowance: for each limit that applies to them, what is used, what is left and when the oldest counted move leaves the window. */
export async function readAllowances(ctx: OperationContext, controls: MoneyControls): Promise<Allowance[]> {
  const answers: Allowance[] = [];
  for (const limit of applicableLimits(controls, ctx.caller)) {
    if (!isRolling(limit)) {
      answers.push({ window: 'move', limit: formatCents(limit.amountCents as number), used: null, remaining: null, resets_at: null });
      continue;
    }
    const cap = (limit.window === '1h' ? limit.count : limit.amountCents) as number;
    const use = await readWindowUse(ctx, limit);
    const oldest = use.used === 0 ? null : await countedMoves(ctx, limit, use.since).select('occurred_at').orderBy('occurred_at').orderBy('id').limit(1).executeTakeFirst();
    answers.push({
      window: limit.window, limit: show(limit, cap), used: show(limit, use.used), remaining: show(limit, Math.max(0, cap - use.used)),
      resets_at: oldest ? new Date(Date.parse(oldest.occurred_at) + WINDOW_MS[limit.window]).toISOString() : null,
    });
  }
  return answers;
}
