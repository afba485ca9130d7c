/**
 * The route table and the operation handlers match one to one: every OpenAPI operation has an
 * operation function and no handler is left without a route (issue 4, "Done when"), and the
 * coverage requests the table-driven tests send are derived for every route from the spec.
 */
import { expect } from 'chai';
import { routes } from '../../generated/registry.gen.js';
import { handlers } from '../../generated/handlers.gen.js';
import { deriveRequest, takeRandom } from './support/coverage-requests.js';
import { collectBodyIdPointers } from './support/coverage-isolation.js';

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

  it('a coverage request is derived for exactly the routes, each of the route\'s shape, naming every record its body names', async () => {
    for (const route of routes) {
      const request = await deriveRequest(route, takeRandom);
      const template = new RegExp(`^${route.operation.path.replace(/\{\w+\}/g, '[^/?]+')}(\\?limit=100)?$`);
      expect(request.method, route.operation.operationId).to.equal(route.operation.method);
      expect(request.path, route.operation.operationId).to.match(template);
      expect(Object.keys(request.params).sort(), route.operation.operationId).to.deep.equal(route.parameters.filter((p) => p.in === 'path').map((p) => p.name).sort());
      expect(request.body !== undefined, `${route.operation.operationId} has a body exactly when the spec declares one`).to.equal(route.requestBody !== null);
      expect(Object.keys(request.references ?? {}).sort(), `${route.operation.operationId}: body fields naming records`).to.deep.equal(collectBodyIdPointers(route).sort());
    }
  });
});
