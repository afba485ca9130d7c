/**
 * Loading real-world documents (issue 16): multi-file references and operation objects given as
 * `$ref`, `$ref` keys inside data (example, default, const), Swagger 2.0, OpenAPI 3.1 forms, the
 * tolerated quirks reported as warnings (errors under `strict`), and truly invalid documents failing
 * with the file and pointer of the offending text and the rule broken.
 */
import { expect } from 'chai';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { CodegenError, formatWarning, type SpecWarning } from '../../codegen/errors.js';
import { generate } from '../../codegen/generate.js';
import { loadSpec } from '../../codegen/load-spec.js';
import { planSpec, type SpecPlan } from '../../codegen/plan-spec.js';
import type { ToolDefinition } from '../../src/runtime/types.js';
import { FIXTURES, makeTempDir, runCli } from './support.js';

type Schema = Record<string, any>; // assertions dig into generated JSON

const MULTI_FILE = path.join(FIXTURES, 'multi-file/openapi.yaml');
const SWAGGER_2 = path.join(FIXTURES, 'swagger-2.0.yaml');
const QUIRKS_31 = path.join(FIXTURES, 'quirks-3.1.yaml');

const toolOf = (plan: SpecPlan, name: string): ToolDefinition => {
  const tool = plan.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} (have ${plan.tools.map((t) => t.name).join(', ')})`);
  return tool;
};
const bodySchema = (plan: SpecPlan, operationId: string): Schema => {
  const planned = plan.operations.find((o) => o.definition.operation.operationId === operationId);
  return planned?.definition.requestBody?.content['application/json'] as Schema;
};
const where = (warning: SpecWarning) => `${warning.rule} ${warning.file}${warning.pointer}`;

async function plan(file: string): Promise<{ plan: SpecPlan; warnings: readonly SpecWarning[] }> {
  const spec = await loadSpec(file);
  return { plan: planSpec(spec), warnings: spec.warnings };
}

async function expectError(file: string, code: CodegenError['code'], at: string | RegExp, message?: RegExp): Promise<CodegenError> {
  try {
    await plan(file);
  } catch (error) {
    expect(error, String(error)).to.be.instanceOf(CodegenError);
    const failure = error as CodegenError;
    expect(failure.code, failure.message).to.equal(code);
    if (typeof at === 'string') expect(`${failure.file}${failure.pointer}`).to.match(new RegExp(`${at.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    else expect(`${failure.file}${failure.pointer}`).to.match(at);
    if (message) expect(failure.message).to.match(message);
    return failure;
  }
  return expect.fail(`expected ${code}`);
}

describe('loading a multi-file document (operation-level $ref, path-item $ref, $ref inside data)', function () {
  this.timeout(60_000);
  let loaded: Awaited<ReturnType<typeof plan>>;
  before(async () => { loaded = await plan(MULTI_FILE); });

  it('reads operations given as $ref to another file, and a path item given as $ref', () => {
    expect(loaded.plan.tools.map((t) => t.name)).to.deep.equal([
      'things_create', 'things_delete', 'things_get', 'things_list', 'things_notes_add',
    ]);
    const create = toolOf(loaded.plan, 'things_create');
    expect(create.operation.scopes).to.deep.equal(['things:write']);
    expect((create.inputSchema as Schema).required).to.include('name');
    // `#/Thing` inside schemas/thing.yaml is that file's own pointer, followed across files (and its cycle cut).
    expect((create.inputSchema as Schema).properties.parent.type).to.equal('object');
    // A property called "default" is a schema, not a default value.
    expect((create.inputSchema as Schema).properties.default).to.include({ type: 'string' });
  });

  it('keeps $ref keys inside example, examples and default values as data: not followed, not an error', () => {
    const note = bodySchema(loaded.plan, 'things.notes.add');
    expect(note.properties.text.examples).to.deep.equal([{ $ref: 'https://example.invalid/not-a-reference.json' }]);
    expect(note.properties.meta.default).to.deep.equal({ $ref: '#/this/pointer/does/not/exist' });
    expect(note.properties.meta.examples).to.deep.equal([{ $ref: 'http://127.0.0.1:9/never-fetched' }]);
    expect(bodySchema(loaded.plan, 'things.create').properties.name.examples).to.deep.equal([{ $ref: './not-a-file-either.yaml' }]);
  });

  it('never connects to a URL written as a $ref inside data', async () => {
    let connections = 0;
    const server = createServer((socket) => { connections += 1; socket.destroy(); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = makeTempDir();
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/data.json`;
      const file = path.join(dir, 'data-refs.yaml');
      writeFileSync(file, [
        'openapi: 3.1.0', "info: {title: t, version: '1'}", 'paths:', '  /x:', '    post:', '      operationId: x.create',
        '      requestBody:', '        content:', '          application/json:',
        `            example: {$ref: '${url}'}`,
        `            examples: {one: {value: {$ref: '${url}'}}}`,
        '            schema:', '              type: object', '              properties:',
        `                a: {type: object, default: {$ref: '${url}'}, const: {$ref: '${url}'}, examples: [{$ref: '${url}'}]}`,
        `      x-code-samples: [{lang: sh, source: {$ref: '${url}'}}]`,
        "      responses: {'200': {description: ok}}", '',
      ].join('\n'));
      const { plan: planned } = await plan(file);
      expect(bodySchema(planned, 'x.create').properties.a.default).to.deep.equal({ $ref: url });
      expect(connections).to.equal(0);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rewrites `:id` templates, drops unknown media-type keys and empty path items, and reports each as a warning naming file and pointer', () => {
    expect(toolOf(loaded.plan, 'things_get').operation.path).to.equal('/things/{id}');
    expect(loaded.warnings.map(where)).to.have.members([
      'COLON_PATH_TEMPLATE test/fixtures/specs/multi-file/openapi.yaml#/paths/~1things~1:id',
      'OPERATION_REF test/fixtures/specs/multi-file/openapi.yaml#/paths/~1things/get/$ref',
      'OPERATION_REF test/fixtures/specs/multi-file/openapi.yaml#/paths/~1things/post/$ref',
      'EMPTY_PATH_ITEM test/fixtures/specs/multi-file/openapi.yaml#/paths/~1empty',
      'EMPTY_PATH_ITEM test/fixtures/specs/multi-file/openapi.yaml#/paths/~1unused',
      'UNKNOWN_MEDIA_TYPE_KEY test/fixtures/specs/multi-file/openapi.yaml#/paths/~1things~1{thingId}~1notes/post/requestBody/content/application~1json/schemaVersion',
    ]);
  });

  it('strict turns every warning into a STRICT error naming file and pointer, before anything is rendered', async () => {
    try {
      await generate(MULTI_FILE, { strict: true });
      expect.fail('expected the strict run to fail');
    } catch (error) {
      expect(error).to.be.instanceOf(AggregateError);
      const failures = (error as AggregateError).errors as CodegenError[];
      expect(failures.map((failure) => failure.code)).to.deep.equal(Array(6).fill('STRICT'));
      expect(failures.map((failure) => failure.message)).to.include(
        'test/fixtures/specs/multi-file/openapi.yaml#/paths/~1things/get/$ref: the get operation of /things is a $ref (only path items may be references); it is read from resources/things/list.yml [OPERATION_REF; not allowed with --strict]');
    }
  });

  it('the CLI prints a warning as one line; with --strict it prints it as an error and exits 1 without writing', () => {
    expect(formatWarning(loaded.warnings.find((w) => w.rule === 'COLON_PATH_TEMPLATE')!))
      .to.equal('test/fixtures/specs/multi-file/openapi.yaml#/paths/~1things~1:id: path /things/:id uses :name segments; read as /things/{id} [COLON_PATH_TEMPLATE]');
    const dir = makeTempDir();
    try {
      const tiny = path.join(dir, 'tiny.yaml');
      writeFileSync(tiny, "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /things/:id:\n    get:\n      operationId: things.get\n      responses: {'200': {description: ok}}\n");
      const strict = runCli(['--spec', tiny, '--out', path.join(dir, 'never'), '--strict']);
      expect(strict.status).to.equal(1);
      expect(strict.stderr).to.match(/^error: .*tiny\.yaml#\/paths\/~1things~1:id: path \/things\/:id uses :name segments; read as \/things\/\{id\} \[COLON_PATH_TEMPLATE; not allowed with --strict\]$/m);
      expect(strict.stderr).to.not.match(/\n\s+at /);
      expect(existsSync(path.join(dir, 'never'))).to.equal(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('our own contract has no warning, so CI can run it under --strict (the document\'s and the names\')', async () => {
    const own = await loadSpec('openapi/v1.yaml');
    expect(own.warnings).to.deep.equal([]);
    const planned = planSpec(own);
    expect(planned.warnings).to.deep.equal([]);
    expect(planned.tools.length).to.be.greaterThan(0);
  });
});

describe('loading Swagger 2.0 and OpenAPI 3.1 documents', function () {
  this.timeout(60_000);

  it('converts Swagger 2.0 (in: body, formData, definitions, consumes, a relative file) and plans it as 3.0', async () => {
    const spec = await loadSpec(SWAGGER_2);
    expect([spec.source, spec.openapi]).to.deep.equal(['2.0', '3.0']);
    const swagger = planSpec(spec);
    expect(swagger.tools.map((t) => t.name)).to.deep.equal([
      'create_entry', 'delete_entry', 'get_entry', 'list_entries', 'upload_receipt',
    ]);
    const create = toolOf(swagger, 'create_entry');
    expect(create.args).to.deep.include({ amount: { in: 'body', name: 'amount' }, account: { in: 'body', name: 'account' } });
    expect((create.inputSchema as Schema).required).to.deep.equal(['amount', 'account']);
    expect((create.inputSchema as Schema).properties.amount.type).to.deep.equal(['number', 'null']); // x-nullable
    expect(bodySchema(swagger, 'createEntry').properties.account.properties.code.pattern).to.equal('^[0-9]{4}$'); // ./shared/account.yaml
    expect(create.operation.scopes).to.deep.equal(['ledger.write']);
    const route = swagger.routes.find((r) => r.operation.operationId === 'uploadReceipt');
    expect(Object.keys(route?.requestBody?.content ?? {})).to.deep.equal(['multipart/form-data']);
    expect(toolOf(swagger, 'upload_receipt').args.entry_id).to.deep.equal({ in: 'path', name: 'entryId' });
    expect(bodySchema(swagger, 'createEntry').properties.amount.examples).to.deep.equal([{ $ref: 'https://example.invalid/amount.json' }]);
  });

  it('reads 3.1 forms: type lists, const, $defs reached from outside, examples, null in a type list, $ref inside const as data', async () => {
    const { plan: forms } = await plan(QUIRKS_31);
    const properties = (toolOf(forms, 'transfers_create').inputSchema as Schema).properties;
    // The validated schema keeps the type list; the shown one shows a decimal as a string.
    expect((toolOf(forms, 'transfers_create').argumentSchema as Schema).properties.amount.type).to.deep.equal(['string', 'number']);
    expect(properties.amount.type).to.equal('string');
    // `#/components/schemas/Transfer/$defs/Money`, a pointer into another schema's $defs.
    expect(bodySchema(forms, 'transfers.create').properties.amount.pattern).to.equal('^[0-9]+(\\.[0-9]{1,2})?$');
    expect(properties.currency).to.deep.include({ const: 'BRL', type: 'string' });
    expect(properties.memo.type).to.deep.equal(['string', 'null']);
    expect(properties.marker.const).to.deep.equal({ $ref: '#/not/a/pointer' });
    expect(bodySchema(forms, 'transfers.create').properties.memo.examples).to.deep.equal(['rent', { $ref: 'https://example.invalid/memo.json' }]);
  });
});

describe('loading broken documents', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = makeTempDir();
    mkdirSync(path.join(dir, 'ops'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const root = (name: string, paths: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, `openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n${paths}`);
    return file;
  };

  it('names the file and pointer of an invalid operation inside a referenced file, and the rule', async () => {
    writeFileSync(path.join(dir, 'ops/broken.yaml'), "operationId: broken\nresponses:\n  '200':\n    description: ok\n    content: 7\n");
    const file = root('uses-broken.yaml', '  /x:\n    get:\n      $ref: ops/broken.yaml\n');
    await expectError(file, 'INVALID_DOCUMENT', /ops\/broken\.yaml#\/responses\/200\/content$/, /invalid OpenAPI document: must be object \[OpenAPI 3\.0 schema: type\]/);
  });

  it('names the referencing file and pointer when a $ref target file or pointer does not exist', async () => {
    const missingFile = root('missing-file.yaml', '  /x:\n    $ref: ops/nowhere.yaml\n');
    await expectError(missingFile, 'INVALID_DOCUMENT', 'missing-file.yaml#/paths/~1x/$ref', /\$ref file "ops\/nowhere\.yaml" does not exist/);
    writeFileSync(path.join(dir, 'ops/item.yaml'), 'get:\n  responses: {}\n');
    const missingPointer = root('missing-pointer.yaml', '  /x:\n    $ref: "ops/item.yaml#/post"\n');
    await expectError(missingPointer, 'INVALID_DOCUMENT', 'missing-pointer.yaml#/paths/~1x/$ref', /\$ref target "ops\/item\.yaml#\/post" does not exist/);
  });

  it('fails a remote $ref in a referenced file naming that file and pointer, without connecting', async () => {
    let connections = 0;
    const server = createServer((socket) => { connections += 1; socket.destroy(); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      writeFileSync(path.join(dir, 'ops/remote.yaml'), `get:\n  responses:\n    '200':\n      description: ok\n      content:\n        application/json:\n          schema: {$ref: 'http://127.0.0.1:${port}/s.yaml'}\n`);
      const file = root('uses-remote.yaml', '  /x:\n    $ref: ops/remote.yaml\n');
      await expectError(file, 'REMOTE_REF', 'ops/remote.yaml#/get/responses/200/content/application~1json/schema/$ref', /only local files are read/);
      expect(connections).to.equal(0);
    } finally {
      server.close();
    }
  });

  it('refuses a document that is neither Swagger 2.0 nor OpenAPI 3.x', async () => {
    const file = path.join(dir, 'raml.yaml');
    writeFileSync(file, 'swagger: "1.2"\npaths: {}\n');
    await expectError(file, 'INVALID_DOCUMENT', 'raml.yaml#', /only Swagger 2\.0 and OpenAPI 3\.0\.x\/3\.1\.x/);
  });
});
