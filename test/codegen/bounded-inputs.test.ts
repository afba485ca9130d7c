/**
 * Bounded inputs, declared (issue 25 Build 1): every input an operation takes — path, query and
 * header parameters, list parameters, JSON and multipart body fields, at any depth — carries its
 * bound in the contract, so the generated definitions (and the contract-driven fuzzer built on
 * them) see it: a string has `maxLength`, an `enum`, a `format` or a `pattern`; an array
 * `maxItems` (or `uniqueItems` over an enum); a number `maximum`. A new operation whose input has no bound fails here, naming it.
 * Cross-field bounds are `x-kobana-bounds` (openapi/README.md#extensions).
 */
import { expect } from 'chai';
import { operations } from '../../generated/registry.gen.js';
import type { JsonSchema, OperationDefinition } from '../../src/runtime/types.js';

/** Every input schema of an operation that declares no bound, as `operationId where`. */
function unbounded(definition: OperationDefinition): string[] {
  const found: string[] = [];
  const id = definition.operation.operationId;
  const walk = (schema: JsonSchema | null | undefined, where: string): void => {
    if (!schema || typeof schema !== 'object') return;
    const types = ([] as unknown[]).concat(schema['type'] ?? []);
    const bounded = (key: string) => schema[key] !== undefined;
    if (types.includes('string') && !['maxLength', 'enum', 'format', 'pattern', 'const'].some(bounded)) found.push(`${id} ${where}: string without maxLength`);
    // Distinct values of an enum are as many as the enum at most.
    const distinctEnum = schema['uniqueItems'] === true && Array.isArray((schema['items'] as JsonSchema | undefined)?.['enum']);
    if (types.includes('array') && !bounded('maxItems') && !distinctEnum) found.push(`${id} ${where}: array without maxItems`);
    if ((types.includes('integer') || types.includes('number')) && !['maximum', 'exclusiveMaximum', 'enum'].some(bounded)) found.push(`${id} ${where}: number without maximum`);
    for (const [name, property] of Object.entries((schema['properties'] ?? {}) as Record<string, JsonSchema>)) walk(property, `${where}.${name}`);
    walk(schema['items'] as JsonSchema | undefined, `${where}[]`);
  };
  for (const parameter of definition.parameters) walk(parameter.schema, `${parameter.in} ${parameter.name}`);
  if (definition.list) {
    walk(definition.list.limit, 'query limit');
    walk(definition.list.cursor, 'query cursor');
    walk(definition.list.sort?.schema, 'query sort');
    walk(definition.list.fields, 'query fields');
    for (const filter of definition.list.filters) walk(filter.schema, `filter ${filter.name}`);
  }
  for (const [type, schema] of Object.entries(definition.requestBody?.content ?? {})) walk(schema, `body (${type})`);
  return found;
}

describe('the contract bounds every input of every operation', () => {
  it('no parameter or body field without its bound', () => {
    expect(operations.flatMap(unbounded)).to.deep.equal([]);
  });

  it('every declared date span names date inputs and a positive bound', () => {
    for (const definition of operations) {
      for (const span of definition.bounds?.spans ?? []) {
        const schemaOf = (name: string) => definition.parameters.find((p) => p.name === name)?.schema
          ?? (definition.requestBody?.content['application/json']?.['properties'] as Record<string, JsonSchema> | undefined)?.[name];
        expect(schemaOf(span.from)?.['format'], `${definition.operation.operationId} ${span.from}`).to.equal('date');
        expect(schemaOf(span.to)?.['format'], `${definition.operation.operationId} ${span.to}`).to.equal('date');
        expect(span.maxDays).to.be.greaterThan(0);
      }
    }
  });
});
