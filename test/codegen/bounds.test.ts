/**
 * `x-kobana-bounds` in the generator (codegen/bounds.ts, openapi/README.md#extensions): what the
 * document says becomes `OperationDefinition.bounds` in camelCase; a span that names no date
 * input, an unknown key or a bound that is not a positive integer fails the build, naming where.
 */
import { expect } from 'chai';
import { extractBounds, type BoundFields } from '../../codegen/bounds.js';
import { CodegenError } from '../../codegen/errors.js';
import type { JsonSchema } from '../../src/runtime/types.js';

const DATE: JsonSchema = { type: 'string', format: 'date' };
const FIELDS: BoundFields = { query: new Map<string, JsonSchema>([['from', DATE], ['to', DATE], ['name', { type: 'string', maxLength: 9 }]]), body: new Map<string, JsonSchema>([['until', DATE]]) };

function refusal(raw: unknown): CodegenError {
  try {
    extractBounds('v1.yaml', '#/paths/~1x/get', raw, FIELDS);
  } catch (err) {
    if (err instanceof CodegenError) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('codegen: x-kobana-bounds', () => {
  it('absent → null; declared → camelCase, unset counts null', () => {
    expect(extractBounds('v1.yaml', '#/p', undefined, FIELDS)).to.equal(null);
    expect(extractBounds('v1.yaml', '#/p', { spans: [{ from: 'from', to: 'until', max_days: 31 }], max_scanned: 5 }, FIELDS)).to.deep.equal({
      spans: [{ from: 'from', to: 'until', maxDays: 31 }], maxScanned: 5, maxPerWorkspace: null, maxLines: null, maxTags: null,
    });
  });

  it('refuses a span over a non-date field, an unknown key and a bound that is not a positive integer', () => {
    expect(refusal({ spans: [{ from: 'from', to: 'name', max_days: 3 }] }).pointer).to.equal('#/paths/~1x/get/x-kobana-bounds/spans/0');
    expect(refusal({ spans: [{ from: 'from', to: 'to', max_days: 0 }] }).code).to.equal('INVALID_EXTENSION');
    expect(refusal({ max_rows: 3 }).pointer).to.equal('#/paths/~1x/get/x-kobana-bounds/max_rows');
    expect(refusal({ max_tags: 1.5 }).pointer).to.equal('#/paths/~1x/get/x-kobana-bounds/max_tags');
    expect(refusal([1]).code).to.equal('INVALID_EXTENSION');
  });
});
