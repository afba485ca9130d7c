/**
 * Arguments that admit no value (issue 28, fix 2): `enum: []` (legal in 2020-12, refused by ajv)
 * and allOf members whose enums share no value become `not: {}`; the tool that shows such an
 * argument is reported (EMPTY_ENUM, naming tool and argument) and the argument dropped when
 * optional — at any depth of a body — or the tool excluded when it is required (its REST route
 * stays). `--strict` makes each report an error; every tool schema written compiles.
 */
import { expect } from 'chai';
import path from 'node:path';
import { CodegenError } from '../../codegen/errors.js';
import { generate } from '../../codegen/generate.js';
import { toJsonSchema } from '../../codegen/json-schema.js';
import { createAjv } from '../../src/api/validation.js';
import type { ToolDefinition } from '../../src/runtime/types.js';
import { REPO_ROOT } from './support.js';

type Obj = Record<string, unknown>;
const SPEC = path.join(REPO_ROOT, 'test/fixtures/codegen-robust/empty-enum.yaml');

describe('arguments that admit no value', function () {
  this.timeout(60_000);

  it('an empty enum, and allOf enums with nothing in common, become the compilable schema of no value', () => {
    const empty = toJsonSchema({ type: 'string', enum: [] });
    expect(empty).to.deep.equal({ type: 'string', not: {} });
    const disjoint = toJsonSchema({ allOf: [{ type: 'string', enum: ['a', 'b'] }, { enum: ['b', 'c'] }, { enum: ['c'] }] });
    expect(disjoint).to.deep.equal({ type: 'string', not: {} });
    expect(toJsonSchema({ allOf: [{ enum: ['a', 'b'] }, { enum: ['b', 'c'] }] })).to.deep.equal({ type: 'string', enum: ['b'] });
    for (const schema of [empty, disjoint]) {
      const validate = createAjv().compile(schema);
      expect(['a', 'b', 'c', ''].some((value) => validate(value))).to.equal(false);
    }
  });

  describe('in a document', () => {
    let result: Awaited<ReturnType<typeof generate>>;
    const tool = (operationId: string): ToolDefinition | undefined => result.plan.tools.find((t) => t.operation.operationId === operationId);
    before(async () => { result = await generate(SPEC, { typeCheck: false }); });

    it('each argument is reported, naming the tool and the argument, and dropped when optional', () => {
      const list = tool('listThings')!;
      const create = tool('createThing')!;
      const details = result.warnings.filter((w) => w.rule === 'EMPTY_ENUM').map((w) => w.detail);
      expect(details).to.include.members([
        `argument status of ${list.name} allows no value (an empty enum, or allOf enums with no value in common); it is dropped`,
        `argument kind of ${create.name} allows no value (an empty enum, or allOf enums with no value in common); it is dropped`,
        `argument options.mode of ${create.name} allows no value (an empty enum, or allOf enums with no value in common); it is dropped`,
      ]);
      expect(Object.keys((list.inputSchema as Obj).properties as Obj)).to.include('limit').and.not.include('status');
      const properties = (create.inputSchema as Obj).properties as Record<string, Obj>;
      expect(properties).to.have.property('name');
      expect(properties).to.not.have.property('kind');
      expect(Object.keys(properties.options!.properties as Obj)).to.deep.equal(['size']);
    });

    it('a required one excludes the tool, and its REST route stays', () => {
      expect(tool('replaceThing')).to.equal(undefined);
      const [excluded] = result.warnings.filter((w) => w.rule === 'EMPTY_ENUM' && w.detail.includes('is required'));
      expect(excluded?.detail).to.match(/^argument state of \S+ is required and allows no value .*; the tool is excluded \(its REST route stays\)$/);
      expect(excluded?.pointer).to.equal('#/paths/~1things~1{id}/put');
      expect(result.plan.routes.map((r) => r.operation.operationId)).to.include('replaceThing');
    });

    it('every tool schema written compiles with the runtime ajv', () => {
      expect(result.plan.tools).to.have.length(2);
      for (const { inputSchema, argumentSchema } of result.plan.tools) {
        expect(() => createAjv().compile(inputSchema)).to.not.throw();
        expect(() => createAjv().compile(argumentSchema)).to.not.throw();
      }
    });
  });

  it('is an error under --strict, one per argument', async () => {
    const error = await generate(SPEC, { typeCheck: false, strict: true }).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(AggregateError);
    const errors = (error as AggregateError).errors as CodegenError[];
    expect(errors).to.have.length(4);
    expect(errors.every((e) => e.code === 'STRICT' && e.detail.endsWith('[EMPTY_ENUM; not allowed with --strict]'))).to.equal(true);
  });
});
