/** The person's answer read back from `inputResponses` (src/mcp/tools/confirmation/elicitation.ts): a value, never a throw. */
import { expect } from 'chai';
import { allowsFormElicitation, readAnswer } from '../../../src/mcp/tools/confirmation/elicitation.js';

describe('readAnswer()', function () {
  const cases: [unknown, ReturnType<typeof readAnswer>][] = [
    [undefined, 'missing'],
    [{}, 'missing'],
    [{ confirm: { action: 'accept', content: { confirm: true } } }, 'confirmed'],
    [{ confirm: { action: 'accept', content: { confirm: false } } }, 'declined'],
    [{ confirm: { action: 'accept' } }, 'declined'],
    [{ confirm: { action: 'decline' } }, 'declined'],
    [{ confirm: { action: 'cancel' } }, 'cancelled'],
    [{ confirm: { action: 'maybe' } }, 'invalid'],
    [{ confirm: 'yes' }, 'invalid'],
    ['yes', 'invalid'],
  ];
  for (const [responses, expected] of cases) {
    it(`reads ${JSON.stringify(responses)} as ${expected}`, function () {
      expect(readAnswer(responses)).to.equal(expected);
    });
  }
});

describe('allowsFormElicitation()', function () {
  const modern = { modern: true, version: '2026-07-28', clientCapabilities: undefined } as const;
  it('takes `elicitation: {}` and an object naming form, in the modern era only', function () {
    expect(allowsFormElicitation(modern, { elicitation: {} })).to.equal(true);
    expect(allowsFormElicitation(modern, { elicitation: { form: {} } })).to.equal(true);
    expect(allowsFormElicitation(modern, { elicitation: { url: {} } })).to.equal(false);
    expect(allowsFormElicitation(modern, undefined)).to.equal(false);
    expect(allowsFormElicitation({ ...modern, modern: false, version: '2025-06-18' }, { elicitation: {} })).to.equal(false);
  });
});
