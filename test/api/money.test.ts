import { expect } from 'chai';
import fc from 'fast-check';
import { ApiError } from '../../src/api/errors.js';
import { formatCents, parseMoneyInput, parseMoneyInputAllowZero } from '../../src/api/money.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof ApiError ? err.code : 'THREW_OTHER';
  }
}

describe('parseMoneyInput()', () => {
  const accepted: { given: unknown; want: number }[] = [
    { given: '1234.56', want: 123456 },
    { given: '0.01', want: 1 },
    { given: '10', want: 1000 },
    { given: '10.5', want: 1050 },
    { given: 10.5, want: 1050 },
    { given: 0.1, want: 10 },
    { given: 1234.56, want: 123456 },
    { given: 19.99, want: 1999 },
    { given: '999999999999.99', want: 99999999999999 },
    { given: ' 7.00 ', want: 700 },
  ];
  for (const { given, want } of accepted) {
    it(`parses ${JSON.stringify(given)} to ${want} cents`, () => {
      expect(parseMoneyInput(given, 'amount')).to.equal(want);
    });
  }

  const rejected: unknown[] = ['1.234', 1.234, '0', 0, '0.00', '-1', -1, '1e3', 1e21, 1e-7, 'abc', '', '1.', '.5', '1,50',
    '1000000000000', Number.NaN, Number.POSITIVE_INFINITY, null, undefined, true, {}, ['1']];
  for (const given of rejected) {
    it(`rejects ${JSON.stringify(given) ?? String(given)} with VALIDATION_ERROR`, () => {
      expect(codeOf(() => parseMoneyInput(given, 'amount'))).to.equal('VALIDATION_ERROR');
    });
  }

  it('names the field path and never echoes the value', () => {
    try {
      parseMoneyInput('12.345', 'cost_center_allocations[1].amount');
      expect.fail('should throw');
    } catch (err) {
      const details = (err as ApiError).details as { issues: { path: string; message: string }[] };
      expect(details.issues[0]?.path).to.equal('cost_center_allocations[1].amount');
      expect(JSON.stringify(details)).not.to.contain('12.345');
    }
  });

  it('accepts zero only in the allow-zero variant', () => {
    expect(parseMoneyInputAllowZero('0', 'interest_amount')).to.equal(0);
    expect(parseMoneyInputAllowZero(0, 'interest_amount')).to.equal(0);
  });

  it('round-trips every cents value through formatCents (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 99_999_999_999_999 }), (cents) => {
      expect(parseMoneyInput(formatCents(cents), 'amount')).to.equal(cents);
    }));
  });

  it('parses every 2-decimal number exactly like its decimal text (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 9_999_999_999 }), (cents) => {
      const asNumber = cents / 100;
      expect(parseMoneyInput(asNumber, 'amount')).to.equal(cents);
    }));
  });

  it('rejects every amount with a third decimal place (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 999_999 }), fc.integer({ min: 1, max: 9 }), (cents, third) => {
      const text = `${formatCents(cents)}${third}`;
      expect(codeOf(() => parseMoneyInput(text, 'amount'))).to.equal('VALIDATION_ERROR');
    }));
  });

  it('never throws anything but VALIDATION_ERROR for arbitrary input (property)', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.double(), fc.integer(), fc.constant(null)), (value) => {
      const code = codeOf(() => parseMoneyInput(value, 'amount'));
      expect(code === undefined || code === 'VALIDATION_ERROR').to.equal(true);
    }));
  });
});

describe('formatCents()', () => {
  const table: { given: number | string; want: string }[] = [
    { given: 123456, want: '1234.56' },
    { given: 1, want: '0.01' },
    { given: 0, want: '0.00' },
    { given: 100, want: '1.00' },
    { given: -5, want: '-0.05' },
    { given: -123456, want: '-1234.56' },
    { given: '250', want: '2.50' },
    // PostgreSQL sums as text, past Number.MAX_SAFE_INTEGER cents (legacy balances): exact, never a throw.
    { given: '9199999999999908', want: '91999999999999.08' },
    { given: '-123456789012345678901', want: '-1234567890123456789.01' },
  ];
  for (const { given, want } of table) {
    it(`formats ${given} as ${want}`, () => expect(formatCents(given)).to.equal(want));
  }

  it('refuses fractional cents (a programming error)', () => {
    expect(() => formatCents(1.5)).to.throw();
    expect(() => formatCents('12.5')).to.throw();
  });

  it('formats bigint cents exactly, and refuses a number that already lost precision', () => {
    expect(formatCents(9_199_999_999_999_908n)).to.equal('91999999999999.08');
    expect(() => formatCents(9_199_999_999_999_908)).to.throw();
  });
});
