/**
 * The calendar helpers of prompt arguments and completions: ISO weeks, month ranges, periods
 * and the LIKE prefix pattern — tables of {given, want} plus round-trip properties.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { formatIsoWeek, listMonths, listWeeks, readMonthRange, readWeekRange } from '../../../../src/mcp/features/prompts/calendar.js';
import { buildPrefixPattern } from '../../../../src/mcp/features/completions/records.js';
import { readPeriod } from '../../../../src/mcp/features/prompts/arguments.js';

describe('formatIsoWeek()', function () {
  const cases = [
    { given: '2026-01-01', want: '2026-W01' },
    { given: '2021-01-03', want: '2020-W53' },
    { given: '2024-12-30', want: '2025-W01' },
    { given: '2026-11-30', want: '2026-W49' },
    { given: '2026-12-31', want: '2026-W53' },
  ];
  for (const { given, want } of cases) {
    it(`returns ${want} for ${given}`, function () {
      expect(formatIsoWeek(new Date(`${given}T00:00:00Z`))).to.equal(want);
    });
  }

  it('round-trips through readWeekRange for any day', function () {
    fc.assert(fc.property(fc.integer({ min: 0, max: 365 * 200 }), (offset) => {
      const day = new Date(Date.UTC(1950, 0, 1) + offset * 86_400_000);
      const week = formatIsoWeek(day);
      const range = readWeekRange(week);
      expect(range).not.to.equal(null);
      const iso = day.toISOString().slice(0, 10);
      expect(iso >= (range?.monday ?? '') && iso <= (range?.sunday ?? '')).to.equal(true);
    }));
  });
});

describe('readWeekRange()', function () {
  const cases = [
    { given: '2026-W01', want: { monday: '2025-12-29', sunday: '2026-01-04' } },
    { given: '2026-W53', want: { monday: '2026-12-28', sunday: '2027-01-03' } },
    { given: '2025-W53', want: null },
    { given: '2026-W00', want: null },
    { given: '2026-w05', want: null },
  ];
  for (const { given, want } of cases) {
    it(`returns ${JSON.stringify(want)} for ${given}`, function () {
      expect(readWeekRange(given)).to.deep.equal(want);
    });
  }
});

describe('readMonthRange() and readPeriod()', function () {
  it('knows month lengths, leap years included', function () {
    expect(readMonthRange('2028-02')).to.deep.equal({ first: '2028-02-01', last: '2028-02-29' });
    expect(readMonthRange('2026-02')).to.deep.equal({ first: '2026-02-01', last: '2026-02-28' });
    expect(readMonthRange('2026-13')).to.equal(null);
  });

  const periods = [
    { given: '2026-03', want: { from: '2026-03-01', to: '2026-03-31' } },
    { given: '2026-03-05..2026-03-09', want: { from: '2026-03-05', to: '2026-03-09' } },
    { given: '2026-03-09..2026-03-05', want: null },
    { given: '2026-02-30..2026-03-05', want: null },
    { given: '2026-03-05..2026-03-09..2026-03-10', want: null },
    { given: 'last week', want: null },
  ];
  for (const { given, want } of periods) {
    it(`reads period ${given} as ${JSON.stringify(want)}`, function () {
      expect(readPeriod(given)).to.deep.equal(want);
    });
  }
});

describe('listMonths() and listWeeks()', function () {
  it('lists 12 recent months and 3 ahead, and distinct weeks', function () {
    const today = new Date('2026-01-15T10:00:00Z');
    expect(listMonths(today, 11, 3)).to.deep.equal([
      '2025-02', '2025-03', '2025-04', '2025-05', '2025-06', '2025-07', '2025-08', '2025-09', '2025-10', '2025-11', '2025-12',
      '2026-01', '2026-02', '2026-03', '2026-04',
    ]);
    const weeks = listWeeks(today, 8, 8);
    expect(new Set(weeks).size).to.equal(17);
    expect(weeks[8]).to.equal('2026-W03');
  });
});

describe('buildPrefixPattern()', function () {
  const cases = [
    { given: 'Alu', want: 'alu%' },
    { given: '50%_off\\', want: '50\\%\\_off\\\\%' },
    { given: '', want: '%' },
  ];
  for (const { given, want } of cases) {
    it(`escapes ${JSON.stringify(given)} as ${JSON.stringify(want)}`, function () {
      expect(buildPrefixPattern(given)).to.equal(want);
    });
  }
});
