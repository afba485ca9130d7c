import { expect } from 'chai';
import { parseTraceParent, readMetaTraceParent } from '../../src/http/trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const VALID = `00-${TRACE}-${SPAN}-01`;

describe('W3C traceparent (src/http/trace-context.ts)', function () {
  it('reads the trace id, the parent id and the sampled flag of a version-00 value', function () {
    expect(parseTraceParent(VALID)).to.deep.equal({ traceId: TRACE, spanId: SPAN, sampled: true });
    expect(parseTraceParent(`00-${TRACE}-${SPAN}-00`)).to.deep.equal({ traceId: TRACE, spanId: SPAN, sampled: false });
    // Only bit 0 is `sampled`: 0x02 (random, Level 2) alone is not sampled, 0x03 is.
    expect(parseTraceParent(`00-${TRACE}-${SPAN}-02`)?.sampled).to.equal(false);
    expect(parseTraceParent(`00-${TRACE}-${SPAN}-03`)?.sampled).to.equal(true);
  });

  const refused: ReadonlyArray<[string, unknown]> = [
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with more after the flags', `${VALID}-extra`],
    ['version 00 with a trailing space', `${VALID} `],
    ['a leading space', ` ${VALID}`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['a short parent id', `00-${TRACE}-${SPAN.slice(1)}-01`],
    ['one-digit flags', `00-${TRACE}-${SPAN}-1`],
    ['non-hex flags', `00-${TRACE}-${SPAN}-0g`],
    ['underscores for dashes', `00_${TRACE}_${SPAN}_01`],
    ['a non-hex version', `0x-${TRACE}-${SPAN}-01`],
    ['two values joined (a repeated header)', `${VALID}, ${VALID}`],
    ['a later version followed by something that is not a dash', `cc-${TRACE}-${SPAN}-01x`],
    ['an empty string', ''],
    ['a number', 42],
    ['undefined', undefined],
  ];
  for (const [what, value] of refused) {
    it(`ignores ${what}`, function () {
      expect(parseTraceParent(value)).to.equal(undefined);
    });
  }

  it('reads a later version by its version-00 fields, as the recommendation asks', function () {
    expect(parseTraceParent(`cc-${TRACE}-${SPAN}-01`)).to.deep.equal({ traceId: TRACE, spanId: SPAN, sampled: true });
    expect(parseTraceParent(`cc-${TRACE}-${SPAN}-01-what-the-future-holds`)).to.deep.equal({ traceId: TRACE, spanId: SPAN, sampled: true });
  });

  it('keeps a tracestate within 512 characters, and only with a valid traceparent', function () {
    expect(parseTraceParent(VALID, 'rojo=00f067aa0ba902b7')).to.deep.equal({ traceId: TRACE, spanId: SPAN, sampled: true, traceState: 'rojo=00f067aa0ba902b7' });
    expect(parseTraceParent(VALID, `a=${'x'.repeat(511)}`)).to.not.have.property('traceState');
    expect(parseTraceParent(VALID, '')).to.not.have.property('traceState');
    expect(parseTraceParent('00-nope', 'rojo=1')).to.equal(undefined);
  });

  it('reads params._meta.traceparent (and tracestate) of an MCP message', function () {
    expect(readMetaTraceParent({ name: 't', _meta: { traceparent: VALID, tracestate: 'congo=t61rcWkgMzE' } }))
      .to.deep.equal({ traceId: TRACE, spanId: SPAN, sampled: true, traceState: 'congo=t61rcWkgMzE' });
    expect(readMetaTraceParent({ name: 't' })).to.equal(undefined);
    expect(readMetaTraceParent({ _meta: null })).to.equal(undefined);
    expect(readMetaTraceParent({ _meta: [VALID] })).to.equal(undefined);
    expect(readMetaTraceParent({ _meta: { traceparent: 7 } })).to.equal(undefined);
    expect(readMetaTraceParent({ _meta: { traceparent: VALID.toUpperCase() } })).to.equal(undefined);
  });
});
