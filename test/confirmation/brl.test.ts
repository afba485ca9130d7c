/** formatBrl(): integer cents → the Brazilian way of writing reais, digit by digit. */
import { expect } from 'chai';
import fc from 'fast-check';
import { formatBrl } from '../../src/api/confirmation/brl.js';

describe('formatBrl()', function () {
  const table: [number, string][] = [
    [1, 'R$ 0,01'],
    [10, 'R$ 0,10'],
    [100, 'R$ 1,00'],
    [99999, 'R$ 999,99'],
    [100000, 'R$ 1.000,00'],
    [123456, 'R$ 1.234,56'],
    [100000000, 'R$ 1.000.000,00'],
    [99999999999999, 'R$ 999.999.999.999,99'],
    [0, 'R$ 0,00'],
    [-123456, '-R$ 1.234,56'],
  ];
  for (const [cents, want] of table) {
    it(`formats ${cents} cents as "${want}"`, function () {
      expect(formatBrl(cents)).to.equal(want);
    });
  }

  it('throws for a non-integer number of cents', function () {
    expect(() => formatBrl(1.5)).to.throw(/integer/);
  });

  it('round-trips: removing the separators gives back the cents (property)', function () {
    fc.assert(fc.property(fc.integer({ min: 0, max: 99999999999999 }), (cents) => {
      const text = formatBrl(cents);
      expect(text).to.match(/^R\$ \d{1,3}(\.\d{3})*,\d{2}$/);
      expect(Number(text.slice(3).replace(/\./g, '').replace(',', ''))).to.equal(cents);
    }));
  });
});
