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
import { compileRouteValidator, createAjv } from '../../src/api/validation.js';
import type { RouteDefinition, ToolDefinition } from '../../src/runtime/types.js';
import { REPO_ROOT } from './support.js';

type Obj = Record<string, unknown>;
const SPEC = path.join(REPO_ROOT, 'test/fixtures/codegen-robust/empty-enum.yaml');
const REACH = path.join(REPO_ROOT, 'test/fixtures/codegen-robust/no-value-reach.yaml');
const WHY = 'allows no value (an empty enum, or allOf enums with no value in common)';

/** Whether the REST route of `operationId` takes `input` (its validator throws VALIDATION_ERROR otherwise). */
function routeTakes(routes: readonly RouteDefinition[], operationId: string, input: { query?: object; body?: unknown }): boolean {
  const route = routes.find((r) => r.operation.operationId === operationId)!;
  try {
    compileRouteValidator(route)({ path: { id: 'x' }, query: {}, ...input } as never);
    return true;
  } catch {
    return false;
  }
}

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

    it('only the tool loses them: the REST route keeps the document\'s schemas and refuses any value for them', () => {
      const { routes } = result.plan;
      expect(routeTakes(routes, 'listThings', { query: { limit: '2' } })).to.equal(true);
      expect(routeTakes(routes, 'listThings', { query: { status: 'a' } })).to.equal(false);
      expect(routeTakes(routes, 'createThing', { body: { name: 'n', options: { size: 1 } } })).to.equal(true);
      expect(routeTakes(routes, 'createThing', { body: { name: 'n', options: { mode: 'a' } } })).to.equal(false);
      expect(routeTakes(routes, 'createThing', { body: { name: 'n', kind: 'a' } })).to.equal(false);
    });

    it('every tool schema written compiles with the runtime ajv', () => {
      expect(result.plan.tools).to.have.length(2);
      for (const { inputSchema, argumentSchema } of result.plan.tools) {
        expect(() => createAjv().compile(inputSchema)).to.not.throw();
        expect(() => createAjv().compile(argumentSchema)).to.not.throw();
      }
    });
  });

  describe('beyond a plain enum', () => {
    let result: Awaited<ReturnType<typeof generate>>;
    const tool = (operationId: string): ToolDefinition | undefined => result.plan.tools.find((t) => t.operation.operationId === operationId);
    const details = (): string[] => result.warnings.filter((w) => w.rule === 'EMPTY_ENUM').map((w) => w.detail);
    before(async () => { result = await generate(REACH, { typeCheck: false }); });

    it('a list filter, and a union none of whose branches admits a value, are dropped', () => {
      const list = tool('listWidgets')!;
      expect(details()).to.include.members([`argument filters.colour of ${list.name} ${WHY}; it is dropped`, `argument shape of ${list.name} ${WHY}; it is dropped`]);
      const properties = (list.inputSchema as Obj).properties as Record<string, Obj>;
      expect(properties).to.not.have.property('shape');
      expect(Object.keys(properties.filters!.properties as Obj)).to.deep.equal(['size']);
      expect(routeTakes(result.plan.routes, 'listWidgets', { query: { shape: 'a' } })).to.equal(false);
    });

    it('a required array of at least one item whose items admit no value excludes the tool', () => {
      expect(tool('createWidget')).to.equal(undefined);
      expect(details()).to.include(`argument tags of create_widget is required and ${WHY}; the tool is excluded (its REST route stays)`);
    });

    it('an optional body whose required property admits no value: the tool takes no body', () => {
      const update = tool('updateWidget')!;
      expect(Object.keys((update.inputSchema as Obj).properties as Obj)).to.deep.equal(['id']);
      expect(details()).to.include(`the optional request body of ${update.name} requires reason, which ${WHY}; the tool takes no body`);
      expect(routeTakes(result.plan.routes, 'updateWidget', { body: { reason: 'a' } })).to.equal(false);
    });

    it('is decided from the JSON content the tool reads, not another content type', () => {
      const replace = tool('replaceWidget')!;
      expect(Object.keys((replace.inputSchema as Obj).properties as Obj)).to.deep.equal(['id', 'name']);
      expect(result.warnings.filter((w) => w.rule === 'EMPTY_ENUM' && w.detail.includes(replace.name))).to.deep.equal([]);
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
