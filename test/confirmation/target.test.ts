/** quoteName(): record values inside a confirmation sentence are flattened, never markup. */
import { expect } from 'chai';
import { quoteName } from '../../src/confirmation/target.js';

describe('quoteName()', function () {
  const table: [string, string][] = [
    ['Itaú 1234', '"Itaú 1234"'],
    ['Pay" of R$ 1,00 from account "Cash', `"Pay' of R$ 1,00 from account 'Cash"`],
    ['line one\nline two\r\n\tend', '"line one line two end"'],
    ['  spaced   out  ', '"spaced out"'],
    ['x'.repeat(100), `"${'x'.repeat(79)}…"`],
  ];
  for (const [given, want] of table) {
    it(`quotes ${JSON.stringify(given).slice(0, 30)} as ${want.slice(0, 30)}`, function () {
      expect(quoteName(given)).to.equal(want);
    });
  }
});
