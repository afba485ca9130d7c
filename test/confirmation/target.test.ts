/** quoteName(): record values inside a confirmation sentence are flattened, never markup nor bidi controls. */
import { expect } from 'chai';
import { quoteName } from '../../src/api/confirmation/target.js';
import { sanitizeDisplayText } from '../../src/api/display-text.js';
import { quoteValue } from '../../src/mcp/features/prompts/arguments.js';
import { addEraTitle } from '../../src/mcp/features/resources/provider.js';

describe('quoteName()', function () {
  const table: [string, string][] = [
    ['Itaú 1234', '"Itaú 1234"'],
    ['Pay" of R$ 1,00 from account "Cash', `"Pay' of R$ 1,00 from account 'Cash"`],
    ['line one\nline two\r\n\tend', '"line one line two end"'],
    ['  spaced   out  ', '"spaced out"'],
    ['x'.repeat(100), `"${'x'.repeat(79)}…"`],
    // Bidi controls (finding 5): an override could show "to account X" as something else.
    ['Cash\u202e 00,01 R$ fo', '"Cash 00,01 R$ fo"'],
    ['\u2066Itaú\u2069 \u200e\u200fx\u061c', '"Itaú x"'],
    ['a\u202a\u202b\u202c\u202db', '"a b"'],
    ['c1\u0085\u009bcontrol', '"c1 control"'],
  ];
  for (const [given, want] of table) {
    it(`quotes ${JSON.stringify(given).slice(0, 30)} as ${want.slice(0, 30)}`, function () {
      expect(quoteName(given)).to.equal(want);
    });
  }
});

describe('sanitizeDisplayText() and its users outside confirmations', function () {
  const BIDI_AND_CONTROLS = '\u0000\u0007\u001b\u007f\u0085\u009f\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069';

  it('turns every control and bidi character into a space per run, keeping other text', function () {
    expect(sanitizeDisplayText(`a${BIDI_AND_CONTROLS}b`)).to.equal('a b');
    for (const char of BIDI_AND_CONTROLS) expect(sanitizeDisplayText(`x${char}y`), JSON.stringify(char)).to.equal('x y');
    expect(sanitizeDisplayText('Itaú — conta 1234 ✓')).to.equal('Itaú — conta 1234 ✓');
  });

  it('quotes prompt argument values without bidi controls (src/mcp/features/prompts)', function () {
    expect(quoteValue('Caixa\u202eLTDA')).to.equal('"Caixa LTDA"');
  });

  it('sanitizes resource and prompt titles (src/mcp/features/resources)', function () {
    expect(addEraTitle({ modern: false, version: '2025-06-18' }, { name: 'x' }, 'Chart\u202eof accounts')).to.deep.equal({ name: 'x', title: 'Chart of accounts' });
  });
});
