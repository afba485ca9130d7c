/**
 * A list's page size is read from its contract's `limit` parameter (src/runtime/views.ts
 * `readPageSize`), not from constants kept beside it: REST, MCP and the api layer read the one
 * `ListSpec.pageSize` of the route.
 */
import { expect } from 'chai';
import { operations, routes } from '../../generated/registry.gen.js';
import { readPageSize } from '../../src/runtime/views.js';

describe('page size from the contract', () => {
  it('every list route carries the page size its limit parameter declares', () => {
    const definitions = new Map(operations.map((definition) => [definition.operation.operationId, definition]));
    const lists = routes.filter((route) => route.list !== null);
    expect(lists.length).to.be.above(10);
    for (const route of lists) {
      const limit = definitions.get(route.operation.operationId)?.list?.limit;
      expect(limit, route.operation.operationId).to.not.equal(undefined);
      expect(route.list?.pageSize, route.operation.operationId).to.deep.equal({ default: limit?.['default'], minimum: limit?.['minimum'], maximum: limit?.['maximum'] });
    }
  });

  it('a document that does not bound limit gets 1–100 rows, 25 by default; a default is kept within the bounds', () => {
    expect(readPageSize(undefined)).to.deep.equal({ default: 25, minimum: 1, maximum: 100 });
    expect(readPageSize({ type: 'integer' })).to.deep.equal({ default: 25, minimum: 1, maximum: 100 });
    expect(readPageSize({ type: 'integer', maximum: 10 })).to.deep.equal({ default: 10, minimum: 1, maximum: 10 });
    expect(readPageSize({ type: 'integer', minimum: 5, maximum: 500, default: 50 })).to.deep.equal({ default: 50, minimum: 5, maximum: 500 });
    expect(readPageSize({ type: 'integer', maximum: 20, default: 900 })).to.deep.equal({ default: 20, minimum: 1, maximum: 20 });
    expect(readPageSize({ type: 'integer', minimum: 0, maximum: 1.5, default: 'x' })).to.deep.equal({ default: 25, minimum: 1, maximum: 100 });
  });
});
