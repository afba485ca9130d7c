/**
 * The boundary fuzzer's value generator (test/fuzz/support/schema-bounds.ts, pattern-extremes.ts,
 * files.ts, x-kobana-bounds.ts) reads what a schema states: a bound added to a schema shows up in
 * its values without a change to the fuzzer, and a contract keyword it cannot read is reported.
 */
import { expect } from 'chai';
import { largestFileSizes } from './support/files.js';
import { patternExtremes } from './support/pattern-extremes.js';
import { maximalValue, slotBounds, type SchemaContext } from './support/schema-bounds.js';
import { resolveLazy } from './support/lazy.js';
import { unknownExtensionKeywords } from './support/x-kobana-bounds.js';

const context: SchemaContext = { ids: () => ['5eed0001-0000-4000-8000-000000000001'] };

function values(schema: Record<string, unknown>): unknown[] {
  return slotBounds(schema, context, 'x', {}).map((bound) => resolveLazy(bound.value));
}

describe('boundary fuzzer values', () => {
  it('reads number, length and item bounds from the standard keywords', () => {
    expect(values({ type: 'integer', minimum: 1, maximum: 100 })).to.include.members([1, 100, 0, 101]);
    const texts = values({ type: 'string', minLength: 2, maxLength: 7 }).filter((v): v is string => typeof v === 'string');
    expect(texts.map((t) => [...t].length)).to.include.members([2, 1, 7, 8]);
    expect(texts.some((t) => t.includes('\u0000'))).to.equal(true);
    expect(texts.some((t) => /[\ud800-\udfff]/.test(t))).to.equal(true);
    const lists = values({ type: 'array', maxItems: 3, items: { type: 'string', enum: ['a', 'b'] } }).filter(Array.isArray);
    expect(lists.map((l) => l.length)).to.include.members([0, 3, 4]);
  });

  it('gives dates at the calendar edges and just past them', () => {
    expect(values({ type: 'string', format: 'date' })).to.include.members(['0001-01-01', '9999-12-31', '0000-12-31', '10000-01-01']);
  });

  it('derives the shortest, longest and overlong strings of a pattern', () => {
    expect(patternExtremes('^\\d{1,12}(\\.\\d{1,2})?$')).to.deep.equal({ shortest: '0', longest: '999999999999.99', overlong: '9999999999999.99' });
    expect(patternExtremes('^(\\d{11}|\\d{14})$')?.longest).to.equal('99999999999999');
    expect(patternExtremes('^(?=lookahead)$')).to.equal(null);
  });

  it('builds the largest value of an object from each property', () => {
    const largest = resolveLazy(maximalValue({ type: 'object', properties: { n: { type: 'integer', maximum: 9 }, s: { type: 'string', maxLength: 4 } } }, context, undefined));
    expect(largest).to.deep.include({ n: 9 });
    expect([...((largest as { s: string }).s)].length).to.equal(4);
  });

  it('sizes the largest files from a base64 maxLength', () => {
    // 10 MiB = 10,485,760 bytes is 13,981,016 base64 characters, and so are the two bytes more.
    expect(largestFileSizes(13_981_016)).to.deep.equal([10_485_760, 10_485_761, 10_485_762]);
  });

  it('reports an x-kobana keyword it has no values for', () => {
    expect(unknownExtensionKeywords({ properties: { a: { type: 'string', 'x-kobana-unheard-of': 3 } } })).to.deep.equal(['x-kobana-unheard-of']);
  });
});
