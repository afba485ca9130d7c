import { expect } from 'chai';
import fc from 'fast-check';
import { ApiError } from '../../../src/api/errors.js';
import { computeShares, parsePercentage, parseRequestedShares, type RequestedShare } from '../../../src/api/rules/apportionment.js';

const pct = (costCenterId: string, p: string): RequestedShare => ({ costCenterId, basisPoints: parsePercentage(p, 'p'), cents: null });
const amt = (costCenterId: string, cents: number): RequestedShare => ({ costCenterId, basisPoints: null, cents });

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
  return undefined;
}

describe('computeShares()', () => {
  const table: { given: { total: number; rows: RequestedShare[] }; want: number[] }[] = [
    { given: { total: 10000, rows: [pct('a', '33.33'), pct('b', '33.33'), pct('c', '33.33')] }, want: [3333, 3333, 3334] },
    { given: { total: 10000, rows: [pct('a', '50'), pct('b', '50')] }, want: [5000, 5000] },
    { given: { total: 1001, rows: [pct('a', '50'), pct('b', '50')] }, want: [501, 500] },
    { given: { total: 100, rows: [pct('a', '33.34'), pct('b', '33.33'), pct('c', '33.33')] }, want: [33, 33, 34] },
    { given: { total: 10000, rows: [pct('a', '100')] }, want: [10000] },
    { given: { total: 10000, rows: [amt('a', 2500), amt('b', 7500)] }, want: [2500, 7500] },
    { given: { total: 10000, rows: [amt('a', 2500), pct('b', '75')] }, want: [2500, 7500] },
    { given: { total: 10000, rows: [amt('a', 2500), amt('b', 7499)] }, want: [2500, 7499] },
    { given: { total: 999_999_999_999_99, rows: [pct('a', '33.33'), pct('b', '66.67')] }, want: [33_330_000_000_000, 66_669_999_999_999] },
  ];
  for (const { given, want } of table) {
    it(`splits ${given.total} cents into ${want.join(', ')}`, () => {
      expect(computeShares(given.total, given.rows).map((s) => s.cents)).to.deep.equal(want);
    });
  }

  it('returns an empty split for an empty request', () => {
    expect(computeShares(100, [])).to.deep.equal([]);
  });

  it('keeps the percentage text normalised to two decimals', () => {
    expect(computeShares(100, [pct('a', '50'), pct('b', '50.0')]).map((s) => s.percentage)).to.deep.equal(['50.00', '50.00']);
  });

  it('rejects percentages that do not reach the amount with UNPROCESSABLE_ENTITY', () => {
    expect(codeOf(() => computeShares(10000, [pct('a', '50'), pct('b', '30')]))).to.equal('UNPROCESSABLE_ENTITY');
  });

  it('rejects amounts off by more than one cent with UNPROCESSABLE_ENTITY', () => {
    expect(codeOf(() => computeShares(10000, [amt('a', 2500), amt('b', 7498)]))).to.equal('UNPROCESSABLE_ENTITY');
    expect(codeOf(() => computeShares(10000, [amt('a', 2500), amt('b', 7502)]))).to.equal('UNPROCESSABLE_ENTITY');
  });

  it('never leaves the last row under its share when the rows rounded half-up overshoot together (property counterexample)', () => {
    // 13 cents at 8.75 / 27.5 / 12.5 / 42.5 / 8.75 %: half-up gives 1+4+2+6+1 = 14, the last row would get 0.
    const rows = [875, 2750, 1250, 4250, 875].map((p, i) => ({ costCenterId: `c${i}`, basisPoints: p, cents: null }));
    expect(computeShares(13, rows).map((s) => s.cents)).to.deep.equal([1, 4, 2, 5, 1]);
  });

  it('always sums a percentage split to the amount exactly (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000_000 }),
        fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 12 }),
        (total, weights) => {
          // Scale the weights to basis points that sum to exactly 10000.
          const sum = weights.reduce((a, b) => a + b, 0);
          const points = weights.map((w) => Math.max(1, Math.floor((w * 10_000) / sum)));
          const drift = 10_000 - points.reduce((a, b) => a + b, 0);
          points[points.length - 1] = (points[points.length - 1] as number) + drift;
          fc.pre(points.every((p) => p > 0 && p <= 10_000));
          fc.pre(points.every((p) => Number((BigInt(total) * BigInt(p)) / 10000n) >= 1));
          const rows = points.map((p, i) => ({ costCenterId: `c${i}`, basisPoints: p, cents: null }));
          const shares = computeShares(total, rows);
          expect(shares.reduce((a, s) => a + s.cents, 0)).to.equal(total);
        },
      ),
    );
  });
});

describe('parsePercentage()', () => {
  const table: { given: unknown; want: number | string }[] = [
    { given: '33.33', want: 3333 },
    { given: 33.33, want: 3333 },
    { given: '100', want: 10000 },
    { given: '0.01', want: 1 },
    { given: '0', want: 'VALIDATION_ERROR' },
    { given: '100.01', want: 'VALIDATION_ERROR' },
    { given: '33.333', want: 'VALIDATION_ERROR' },
    { given: 1e-7, want: 'VALIDATION_ERROR' },
    { given: '-5', want: 'VALIDATION_ERROR' },
    { given: true, want: 'VALIDATION_ERROR' },
  ];
  for (const { given, want } of table) {
    it(`parses ${JSON.stringify(given)} as ${want}`, () => {
      if (typeof want === 'number') expect(parsePercentage(given, 'p')).to.equal(want);
      else expect(codeOf(() => parsePercentage(given, 'p'))).to.equal(want);
    });
  }
});

describe('parseRequestedShares()', () => {
  it('rejects an item with both percentage and amount with VALIDATION_ERROR', () => {
    expect(codeOf(() => parseRequestedShares([{ cost_center_id: 'x', percentage: '50', amount: '10.00' }]))).to.equal('VALIDATION_ERROR');
  });
  it('rejects an item with neither with VALIDATION_ERROR', () => {
    expect(codeOf(() => parseRequestedShares([{ cost_center_id: 'x' }]))).to.equal('VALIDATION_ERROR');
  });
  it('parses amount rows to cents', () => {
    expect(parseRequestedShares([{ cost_center_id: 'x', amount: '10.5' }])).to.deep.equal([{ costCenterId: 'x', basisPoints: null, cents: 1050 }]);
  });
});
