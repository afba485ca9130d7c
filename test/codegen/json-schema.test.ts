import { expect } from 'chai';
import { toJsonSchema } from '../../codegen/json-schema.js';

describe('toJsonSchema()', () => {
  it('turns OpenAPI 3.0 nullable into a null type', () => {
    expect(toJsonSchema({ type: 'string', nullable: true })).to.deep.equal({ type: ['string', 'null'] });
  });

  it('rewrites 3.0 boolean exclusiveMinimum into the 2020-12 number form', () => {
    expect(toJsonSchema({ type: 'number', minimum: 0, exclusiveMinimum: true })).to.deep.equal({ type: 'number', exclusiveMinimum: 0 });
    expect(toJsonSchema({ type: 'number', minimum: 0, exclusiveMinimum: false })).to.deep.equal({ type: 'number', minimum: 0 });
  });

  it('keeps the money schema exactly (type list, pattern, exclusiveMinimum)', () => {
    const money = { type: ['string', 'number'], pattern: '^\\d{1,12}(\\.\\d{1,2})?$', exclusiveMinimum: 0 };
    expect(toJsonSchema(money)).to.deep.equal(money);
  });

  it('merges allOf into one object schema with the union of properties and required', () => {
    const out = toJsonSchema({
      allOf: [
        { type: 'object', required: ['a'], properties: { a: { type: 'string' } } },
        { type: 'object', required: ['b'], properties: { b: { type: 'integer' } } },
      ],
    });
    expect(out).to.deep.equal({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'integer' } }, required: ['a', 'b'] });
  });

  it('drops OpenAPI-only keywords and turns example into examples', () => {
    const out = toJsonSchema({ type: 'string', example: 'x', xml: { name: 'a' }, 'x-kobana-filter': {}, discriminator: { propertyName: 't' } });
    expect(out).to.deep.equal({ type: 'string', examples: ['x'] });
  });

  it('cuts an object cycle into a typed stub instead of looping', () => {
    const node: Record<string, unknown> = { type: 'object', properties: {} };
    (node.properties as Record<string, unknown>).child = node;
    (node.properties as Record<string, unknown>).children = { type: 'array', items: node };
    const out = toJsonSchema(node) as { properties: Record<string, { type: unknown; items?: { type: unknown } }> };
    expect(out.properties.child?.type).to.equal('object');
    expect(out.properties.children?.items?.type).to.equal('object');
    expect(JSON.stringify(out)).to.include('Recursive reference');
  });

  it('infers a type for untyped schemas and items for arrays', () => {
    expect(toJsonSchema({ enum: ['a', 'b'] })).to.deep.equal({ type: 'string', enum: ['a', 'b'] });
    expect(toJsonSchema({ properties: { a: { format: 'uuid' } } })).to.deep.equal({ type: 'object', properties: { a: { type: 'string', format: 'uuid' } } });
    const list = toJsonSchema({ type: 'array' }) as { items: { type: unknown } };
    expect(list.items.type).to.be.an('array').that.includes('string');
    // A union is typed by its branches: no sibling type or items for every branch to match as well.
    expect(toJsonSchema({ oneOf: [{ type: 'string' }, { type: 'integer' }] })).to.deep.equal({ oneOf: [{ type: 'string' }, { type: 'integer' }] });
    expect(toJsonSchema({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] })).to.not.have.any.keys('type', 'items');
    const any = toJsonSchema({}) as { type: unknown; items: unknown };
    expect(any.type).to.include('object');
    expect(any.items).to.be.an('object');
  });
});
