/**
 * An account's balance (credits − debits of its transactions) and its bound. The sum is exact
 * (SQL integer arithmetic, read back as text into a bigint), so a balance over the bound — legacy
 * data — still renders instead of failing. Every write that adds, moves, re-prices or removes a
 * transaction calls assertBalancesWithinBound in its own database transaction, after the write,
 * so the operation is refused (and rolled back) when an account would end up out of bounds.
 *
 *   computeAccountBalance(ctx, accountId): Promise<bigint>      // signed cents
 *   assertBalancesWithinBound(ctx, accountIds): Promise<void>   // UNPROCESSABLE_ENTITY past ±MAX_BALANCE_CENTS
 */
import { sql } from 'kysely';
import type { OperationContext } from '../context.js';
import { ApiError } from '../errors.js';
import { formatCents, MAX_BALANCE_CENTS } from '../money.js';
import { requireWorkspace } from '../records.js';

export async function computeAccountBalance(ctx: OperationContext, accountId: string): Promise<bigint> {
  const row = await ctx.db.selectFrom('transactions')
    .select(sql<string>`cast(coalesce(sum(case when type = 'credit' then amount_cents else -amount_cents end), 0) as text)`.as('balance'))
    .where('workspace_id', '=', requireWorkspace(ctx)).where('financial_account_id', '=', accountId)
    .executeTakeFirst();
  return BigInt(row?.balance ?? '0');
}

/**
 * Concurrent writes to one account each check their own result, so two racing writes may end a
 * little past the bound; reading such a balance still works (see the module comment).
 */
export async function assertBalancesWithinBound(ctx: OperationContext, accountIds: readonly string[]): Promise<void> {
  for (const accountId of new Set(accountIds)) {
    const balance = await computeAccountBalance(ctx, accountId);
    if (balance > MAX_BALANCE_CENTS || balance < -MAX_BALANCE_CENTS) {
      throw new ApiError(
        'UNPROCESSABLE_ENTITY',
        `An account balance must stay within ±${formatCents(MAX_BALANCE_CENTS)}; nothing was changed.`,
        { financial_account_id: accountId },
      );
    }
  }
}
