/**
 * Pure apportionment arithmetic (docs/domain.md#apportionment): turns the requested split of an
 * amount into integer cents per cost center. Percentages are parsed as decimal text (never
 * floats), rounded half-up to cents, and the rounding residue lands on the last percentage row.
 * Which centers exist and their polarity is allocations.ts's business, not this module's.
 */
import { ApiError, validationError } from '../errors.js';
import { parseMoneyInput } from '../money.js';

/** One requested row after parsing: exactly one of basis points (1% = 100) or cents. */
export interface RequestedShare {
  readonly costCenterId: string;
  readonly basisPoints: number | null;
  readonly cents: number | null;
}

export interface ComputedShare {
  readonly costCenterId: string;
  /** Normalised text with two decimals ("33.33"), or null for amount rows. */
  readonly percentage: string | null;
  readonly cents: number;
}

const PERCENT_TEXT = /^(\d{1,3})(?:\.(\d{1,2}))?$/;

/** "33.33" | 33.33 → 3333 basis points; 0 < p ≤ 100 with at most two decimals, else VALIDATION_ERROR. */
export function parsePercentage(value: unknown, path: string): number {
  let text: string;
  if (typeof value === 'string') text = value.trim();
  else if (typeof value === 'number' && Number.isFinite(value)) text = String(value);
  else throw validationError([{ path, message: 'must be a decimal string or a number' }]);
  const match = PERCENT_TEXT.exec(text);
  if (!match) throw validationError([{ path, message: 'must be a percentage with at most 2 decimal places' }]);
  const points = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (points <= 0 || points > 10_000) throw validationError([{ path, message: 'must be greater than 0 and at most 100' }]);
  return points;
}

function formatBasisPoints(points: number): string {
  return `${Math.floor(points / 100)}.${String(points % 100).padStart(2, '0')}`;
}

/** Validates the raw `cost_center_allocations` array shape: each item exactly one of percentage|amount. */
export function parseRequestedShares(raw: unknown, path = 'cost_center_allocations'): RequestedShare[] {
  if (!Array.isArray(raw)) throw validationError([{ path, message: 'must be an array' }]);
  return raw.map((item: unknown, index) => {
    const at = `${path}[${index}]`;
    if (typeof item !== 'object' || item === null) throw validationError([{ path: at, message: 'must be an object' }]);
    const row = item as Record<string, unknown>;
    const hasPercentage = row['percentage'] !== undefined && row['percentage'] !== null;
    const hasAmount = row['amount'] !== undefined && row['amount'] !== null;
    if (hasPercentage === hasAmount) {
      throw validationError([{ path: at, message: 'must have exactly one of percentage or amount' }]);
    }
    if (typeof row['cost_center_id'] !== 'string') {
      throw validationError([{ path: `${at}.cost_center_id`, message: 'is required' }]);
    }
    return {
      costCenterId: row['cost_center_id'],
      basisPoints: hasPercentage ? parsePercentage(row['percentage'], `${at}.percentage`) : null,
      cents: hasAmount ? parseMoneyInput(row['amount'], `${at}.amount`) : null,
    };
  });
}

/** Half-up rounding of amount × points / 10000 in BigInt: 12-digit amounts × 10000 exceed 2^53. */
function shareOf(totalCents: number, points: number): number {
  return Number((BigInt(totalCents) * BigInt(points) + 5000n) / 10000n);
}

/**
 * Splits `totalCents` over the requested rows. The unrounded split must sum to the total
 * within one cent (docs/domain.md#apportionment); percentage rounding residue goes to the last
 * percentage row so a percentage split always sums exactly. Else UNPROCESSABLE_ENTITY.
 */
export function computeShares(totalCents: number, requested: readonly RequestedShare[]): ComputedShare[] {
  if (requested.length === 0) return [];
  const fixedCents = requested.reduce((sum, r) => sum + (r.cents ?? 0), 0);
  const points = requested.reduce((sum, r) => sum + (r.basisPoints ?? 0), 0);
  // Exact check in units of 1/10000 cent: |10000·fixed + total·points − 10000·total| ≤ 10000.
  const deviation = 10_000n * BigInt(fixedCents) + BigInt(totalCents) * BigInt(points) - 10_000n * BigInt(totalCents);
  if (deviation > 10_000n || deviation < -10_000n) {
    throw new ApiError('UNPROCESSABLE_ENTITY', 'The cost center allocations must add up to the amount (within 0.01).');
  }
  const shares = requested.map((r) => ({
    costCenterId: r.costCenterId,
    percentage: r.basisPoints === null ? null : formatBasisPoints(r.basisPoints),
    cents: r.basisPoints === null ? (r.cents as number) : shareOf(totalCents, r.basisPoints),
  }));
  const lastPercentage = shares.map((s) => s.percentage !== null).lastIndexOf(true);
  if (lastPercentage >= 0) {
    const residue = totalCents - shares.reduce((sum, s) => sum + s.cents, 0);
    const last = shares[lastPercentage] as { cents: number };
    last.cents += residue;
    // Rows rounded half-up can overshoot together (13 cents at 8.75/27.5/12.5/42.5/8.75 % round to
    // 1+4+2+6+1 = 14) and leave the last row under its own share: until it has its share rounded
    // down, the nearest earlier rows that were rounded up give one cent back each.
    const lastFloor = Number((BigInt(totalCents) * BigInt(requested[lastPercentage]?.basisPoints ?? 0)) / 10000n);
    for (let i = lastPercentage - 1; i >= 0 && last.cents < lastFloor; i -= 1) {
      const points = requested[i]?.basisPoints ?? null;
      if (points !== null && (BigInt(totalCents) * BigInt(points)) % 10000n >= 5000n) {
        (shares[i] as { cents: number }).cents -= 1;
        last.cents += 1;
      }
    }
  }
  if (shares.some((s) => s.cents <= 0)) {
    throw new ApiError('UNPROCESSABLE_ENTITY', 'Every cost center allocation must be greater than zero.');
  }
  return shares;
}
