/**
 * The route table and the operation handlers match one to one: every OpenAPI operation has an
 * operation function and no handler is left without a route (issue 4, "Done when").
 */
import { expect } from 'chai';
import { routes } from '../../generated/registry.gen.js';
import { handlers } from '../../src/api/operations/index.js';
import { REQUESTS } from './support/coverage-requests.js';

describe('operation coverage (routes ↔ handlers)', () => {
  const routeIds = routes.map((route) => route.operation.operationId);

  it('the generated route table is not empty and has no duplicate operationId', () => {
    expect(routeIds.length).to.be.greaterThan(0);
    expect(new Set(routeIds).size).to.equal(routeIds.length);
  });

  it('every route has a handler', () => {
    expect(routeIds.filter((id) => typeof handlers[id] !== 'function')).to.deep.equal([]);
  });

  it('every handler has a route', () => {
    expect(Object.keys(handlers).filter((id) => !routeIds.includes(id))).to.deep.equal([]);
  });

  it('the coverage request table names exactly the routes (so the table-driven tests cover every operation)', () => {
    expect(routeIds.filter((id) => !REQUESTS[id]), 'routes without a coverage request').to.deep.equal([]);
    expect(Object.keys(REQUESTS).filter((id) => !routeIds.includes(id)), 'coverage requests without a route').to.deep.equal([]);
  });
});
