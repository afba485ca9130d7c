/**
 * Stored apportionments (`allocations` rows) of payables, receivables and transactions:
 * validating the requested cost centers (exist in the workspace, right polarity), replacing a
 * record's split, recomputing it when the amount changes, and reading it back as JSON.
 * The arithmetic is apportionment.ts's; which record owns the split is the caller's.
 */
import { randomUUID } from 'node:crypto';
import type { OperationContext } from '../context.js';
import { ApiError } from '../errors.js';
import { formatCents } from '../money.js';
import { lockRow, requireWorkspace } from '../records.js';
import { computeShares, parseRequestedShares, type ComputedShare, type RequestedShare } from './apportionment.js';

export type AllocationParent = 'payable' | 'receivable' | 'transaction';
/** Money going out is apportioned to cost centers, money coming in to revenue centers; `both` takes either. */
export type CenterPolarity = 'cost' | 'revenue';

export interface AllocationJson {
  readonly cost_center_id: string;
  readonly percentage: string | null;
  readonly amount: string;
}

async function checkCenters(ctx: OperationContext, shares: readonly RequestedShare[], polarity: CenterPolarity): Promise<void> {
  const ids = shares.map((s) => s.costCenterId);
  if (new Set(ids).size !== ids.length) {
    throw new ApiError('UNPROCESSABLE_ENTITY', 'Each cost center may appear only once in an apportionment.');
  }
  if (ids.length === 0) return;
  // FOR SHARE on PostgreSQL: a concurrent cost-center delete cannot slip between this check and the insert.
  for (const id of [...ids].sort()) await lockRow(ctx, 'cost_centers', id, 'share');
  const rows = await ctx.db.selectFrom('cost_centers').select(['id', 'type'])
    .where('workspace_id', '=', requireWorkspace(ctx)).where('id', 'in', ids).execute();
  if (rows.length !== ids.length) throw new ApiError('UNPROCESSABLE_ENTITY', 'A cost center of the apportionment does not exist in this workspace.');
  if (rows.some((r) => r.type !== 'both' && r.type !== polarity)) {
    throw new ApiError('UNPROCESSABLE_ENTITY', `The apportionment accepts only ${polarity} or both cost centers.`);
  }
}

/** Parses and validates a requested `cost_center_allocations` array against `totalCents`. */
export async function prepareAllocations(
  ctx: OperationContext, raw: unknown, totalCents: number, polarity: CenterPolarity,
): Promise<ComputedShare[]> {
  const requested = parseRequestedShares(raw);
  await checkCenters(ctx, requested, polarity);
  return computeShares(totalCents, requested);
}

/** The stored split as a request again, to recompute it for a new amount or re-check it for a new polarity. */
async function readStoredRequest(ctx: OperationContext, parentType: AllocationParent, parentId: string): Promise<RequestedShare[]> {
  const rows = await ctx.db.selectFrom('allocations').select(['cost_center_id', 'percentage', 'amount_cents'])
    .where('workspace_id', '=', requireWorkspace(ctx)).where('parent_type', '=', parentType).where('parent_id', '=', parentId)
    .orderBy('position').execute();
  return rows.map((r) => ({
    costCenterId: r.cost_center_id,
    // Stored percentages are normalised "dd.dd" text; parse digit by digit, never as a float.
    basisPoints: r.percentage === null ? null : Number(r.percentage.replace('.', '')),
    cents: r.percentage === null ? Number(r.amount_cents) : null,
  }));
}

/**
 * The split a PATCH leaves: the new array when given; otherwise the stored one re-checked when
 * the amount or polarity changed (percentages recomputed, fixed amounts must still add up);
 * otherwise null (leave the rows as they are).
 */
export async function planAllocationUpdate(
  ctx: OperationContext, parentType: AllocationParent, parentId: string,
  change: { raw: unknown; totalCents: number; polarity: CenterPolarity; amountOrPolarityChanged: boolean },
): Promise<ComputedShare[] | null> {
  if (change.raw !== undefined) return prepareAllocations(ctx, change.raw, change.totalCents, change.polarity);
  if (!change.amountOrPolarityChanged) return null;
  const stored = await readStoredRequest(ctx, parentType, parentId);
  if (stored.length === 0) return null;
  await checkCenters(ctx, stored, change.polarity);
  return computeShares(change.totalCents, stored);
}

export async function deleteAllocations(ctx: OperationContext, parentType: AllocationParent, parentId: string): Promise<void> {
  await ctx.db.deleteFrom('allocations')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('parent_type', '=', parentType).where('parent_id', '=', parentId)
    .execute();
}

export async function replaceAllocations(
  ctx: OperationContext, parentType: AllocationParent, parentId: string, shares: readonly ComputedShare[],
): Promise<void> {
  const workspaceId = requireWorkspace(ctx);
  await deleteAllocations(ctx, parentType, parentId);
  if (shares.length === 0) return;
  await ctx.db.insertInto('allocations').values(shares.map((s, position) => ({
    id: randomUUID(), workspace_id: workspaceId, parent_type: parentType, parent_id: parentId,
    cost_center_id: s.costCenterId, percentage: s.percentage, amount_cents: s.cents, position,
  }))).execute();
}

/** Splits of many records at once (lists): parent id → rows in position order. */
export async function loadAllocations(
  ctx: OperationContext, parentType: AllocationParent, parentIds: readonly string[],
): Promise<Map<string, AllocationJson[]>> {
  const byParent = new Map<string, AllocationJson[]>();
  if (parentIds.length === 0) return byParent;
  const rows = await ctx.db.selectFrom('allocations').select(['parent_id', 'cost_center_id', 'percentage', 'amount_cents'])
    .where('workspace_id', '=', requireWorkspace(ctx)).where('parent_type', '=', parentType).where('parent_id', 'in', [...parentIds])
    .orderBy('parent_id').orderBy('position').execute();
  for (const r of rows) {
    const list = byParent.get(r.parent_id) ?? [];
    list.push(toAllocationJson(r));
    byParent.set(r.parent_id, list);
  }
  return byParent;
}

export function toAllocationJson(row: { cost_center_id: string; percentage: string | null; amount_cents: number }): AllocationJson {
  return { cost_center_id: row.cost_center_id, percentage: row.percentage, amount: formatCents(row.amount_cents) };
}
