/**
 * Every schema the server validates with compiles under the server's ajv options. The server
 * compiles a schema on its first use (src/api/validation.ts: start-up time and memory), so this
 * is where a schema that does not compile is caught: in CI, not in a request. The schemas are
 * static build output (generated/), so compiling them here covers every running server.
 */
import { expect } from 'chai';
import { createAjv } from '../../src/api/validation.js';
import { routes, tools } from '../../generated/registry.gen.js';
import type { JsonSchema } from '../../src/runtime/types.js';

/** Route parameters, JSON bodies, list filter fields; tool arguments as checked and as shown. */
function collectSchemas(): Map<string, JsonSchema> {
  const schemas = new Map<string, JsonSchema>();
  for (const route of routes) {
    const id = route.operation.operationId;
    for (const parameter of route.parameters) schemas.set(`${id} ${parameter.in} ${parameter.name}`, parameter.schema);
    const body = route.requestBody?.content['application/json'];
    if (body) schemas.set(`${id} body`, body);
  }
  for (const tool of tools) {
    schemas.set(`${tool.name} inputSchema`, tool.inputSchema);
    const argumentSchema = (tool as { argumentSchema?: JsonSchema }).argumentSchema;
    if (argumentSchema) schemas.set(`${tool.name} argumentSchema`, argumentSchema);
  }
  return schemas;
}

describe('every route and tool schema compiles with the server\'s ajv', function () {
  this.timeout(60_000);

  it('compiles all of them (the server compiles each on first use)', () => {
    const ajv = createAjv();
    const schemas = collectSchemas();
    expect(schemas.size).to.be.greaterThan(routes.length);
    const failures: string[] = [];
    for (const [where, schema] of schemas) {
      try {
        ajv.compile(schema as object);
      } catch (err) {
        failures.push(`${where}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    expect(failures).to.deep.equal([]);
  });

  it('would catch a schema that does not compile', () => {
    expect(() => createAjv().compile({ type: 'object', properties: { a: { $ref: '#/nowhere' } } })).to.throw();
  });
});
