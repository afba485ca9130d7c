/**
 * generate() in process over the fixture specs: Kobana conventions (filters, body flattening,
 * annotations, routes), generic OpenAPI 3.0/3.1 documents, template injection and bad specs.
 */
import { expect } from 'chai';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CodegenError } from '../../codegen/errors.js';
import { generate } from '../../codegen/generate.js';
import { writeOutput } from '../../codegen/emit/write.js';
import { typeCheckOutput } from '../../codegen/emit/check.js';
import { NO_PERMISSION } from '../../src/identity/permissions.js';
import type { OperationDefinition, ToolDefinition } from '../../src/runtime/types.js';
import { FIXTURES, makeTempDir, MINI_SPEC, readYaml, walkSchema, writeSpec, type Doc } from './support.js';

type Schema = Record<string, any>; // assertions dig into generated JSON

const toolOf = (tools: readonly ToolDefinition[], name: string): ToolDefinition => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
};

async function expectCodegenError(file: string, code: CodegenError['code'], pointer: string | RegExp, message?: RegExp): Promise<void> {
  try {
    await generate(file, { typeCheck: false });
  } catch (error) {
    expect(error).to.be.instanceOf(CodegenError);
    const failure = error as CodegenError;
    expect(failure.code, failure.message).to.equal(code);
    expect(failure.file).to.match(new RegExp(`${path.basename(file).replace('.', '\\.')}$`));
    if (typeof pointer === 'string') expect(failure.pointer).to.equal(pointer);
    else expect(failure.pointer).to.match(pointer);
    expect(failure.message.startsWith(`${failure.file}${failure.pointer}: `)).to.equal(true);
    if (message) expect(failure.message).to.match(message);
    return;
  }
  expect.fail(`expected ${code}`);
}

describe('generate() on the Kobana fixture spec', function () {
  this.timeout(60_000);
  let result: Awaited<ReturnType<typeof generate>>;
  before(async () => { result = await generate(MINI_SPEC); });

  it('plans a tool per operation except x-mcp exclude, and a route for every operation', () => {
    // hand-kept-ok: the tools of the fixture spec test/fixtures/specs/finance-mini.yaml, not of the registry
    expect(result.plan.tools.map((t) => t.name)).to.deep.equal([
      'finance_attachments_upload', 'finance_payables_cancel', 'finance_payables_create', 'finance_payables_delete',
      'finance_payables_get', 'finance_payables_list', 'finance_payables_settle', 'finance_payables_update',
      'finance_transfers_create', 'finance_workspaces_list',
    ]);
    expect(result.plan.routes).to.have.length(12);
    expect(result.plan.operations.filter((o) => o.definition.toolName === null).map((o) => o.definition.operation.operationId)).to.deep.equal(['security_settings.get', 'security_settings.update']);
  });

  it('builds filters: the value for eq-only, a list for eq/in, an operator object for a range', () => {
    // Forms and their reasons: src/runtime/tool-schema.ts (planFilterSchema); the argument schema keeps the bounds.
    const tool = toolOf(result.plan.tools, 'finance_payables_list');
    const filters = (tool.argumentSchema as Schema).properties.filters;
    expect(filters.additionalProperties).to.equal(false);
    expect(filters.properties.company_id).to.deep.equal({ type: 'string', format: 'uuid' });
    expect(filters.properties.status).to.deep.equal({
      type: 'array', items: { type: 'string', enum: ['pending', 'paid', 'cancelled'] }, minItems: 1, maxItems: 100, description: 'Payable status.',
    });
    expect(filters.properties.due_date).to.deep.equal({
      type: 'object', description: 'Due date.', propertyNames: { enum: ['eq', 'gte', 'gt', 'lte', 'lt'] }, additionalProperties: { type: 'string', format: 'date' },
    });
    const shown = (tool.inputSchema as Schema).properties.filters;
    expect(shown.properties.status).to.deep.equal({ type: 'array', items: { type: 'string', enum: ['pending', 'paid', 'cancelled'] }, description: 'Payable status.' });
  });

  it('derives the ListSpec from the list parameters', () => {
    const route = result.plan.routes.find((r) => r.operation.operationId === 'payables.list');
    expect(route?.list?.sortFields).to.deep.equal(['due_date', 'amount']);
    expect(route?.list?.defaultSort).to.equal('-due_date');
    expect(route?.list?.fields).to.deep.equal(['id', 'description', 'amount', 'due_date', 'status']);
    expect(route?.list?.filters.due_date).to.deep.equal({ operators: ['eq', 'gte', 'gt', 'lte', 'lt'], schema: { type: 'string', format: 'date' } });
    expect(route?.parameters).to.deep.equal([]);
    const workspaces = toolOf(result.plan.tools, 'finance_workspaces_list');
    expect(Object.keys(workspaces.args)).to.deep.equal(['limit', 'cursor']);
    expect(workspaces.operation.workspaceScoped).to.equal(false);
  });

  it('flattens the JSON body, maps headers to snake_case and keeps the route\'s content types json first', () => {
    const upload = toolOf(result.plan.tools, 'finance_attachments_upload');
    expect(upload.args).to.deep.include({ idempotency_key: { in: 'header', name: 'Idempotency-Key' }, file_name: { in: 'body', name: 'file_name' } });
    expect((upload.inputSchema as Schema).required).to.deep.equal(['file_name', 'content_type', 'content_base64']);
    const route = result.plan.routes.find((r) => r.operation.operationId === 'attachments.upload');
    expect(Object.keys(route?.requestBody?.content ?? {})).to.deep.equal(['application/json', 'multipart/form-data']);
    expect(route?.successStatus).to.equal(201);
    const settle = toolOf(result.plan.tools, 'finance_payables_settle');
    expect(settle.args.id).to.deep.equal({ in: 'path', name: 'id' });
    // A decimal is validated as a string or a number and shown as a string (the form the texts teach).
    expect((settle.argumentSchema as Schema).properties.amount.type).to.deep.equal(['string', 'number']);
    expect((settle.inputSchema as Schema).properties.amount.type).to.equal('string');
    expect(settle.operation).to.deep.equal({
      operationId: 'payables.settle', method: 'POST', path: '/v1/payables/{id}/settle',
      scopes: ['finance.payables.write', 'finance.money.write'], permission: 'payables.settle', movesMoney: true, outflow: 'payable-settlement', workspaceScoped: true,
      readOnly: false, destructive: true, idempotent: false,
      // No x-kobana-confirm: the generic sentence over the record its own GET returns.
      confirmation: { template: 'Settle a payable {name|description|title|file_name|id}?', target: 'payables.get' },
      // x-kobana-touches, resolved: the payable it settles and shows, under the operation's own permission and scopes.
      changes: [{ kind: 'payables', permission: 'payables.settle', scopes: ['finance.payables.write', 'finance.money.write'] }],
      shows: [{ kind: 'payables', permission: 'payables.settle', scopes: ['finance.payables.write', 'finance.money.write'] }],
      sums: [],
    });
    expect(result.plan.routes.find((r) => r.operation.operationId === 'payables.settle')?.koaPath).to.equal('/v1/payables/:id/settle');
  });

  it('derives annotations from method, action and money, overridable by x-mcp.annotations', async () => {
    const hints = (name: string) => { const a = toolOf(result.plan.tools, name).annotations; return [a.readOnlyHint, a.destructiveHint, a.idempotentHint]; };
    expect(hints('finance_payables_list')).to.deep.equal([true, false, true]);
    expect(hints('finance_payables_create')).to.deep.equal([false, false, false]);
    expect(hints('finance_payables_update')).to.deep.equal([false, false, true]);
    expect(hints('finance_payables_delete')).to.deep.equal([false, true, true]);
    expect(hints('finance_payables_cancel')).to.deep.equal([false, true, false]);
    expect(hints('finance_transfers_create')).to.deep.equal([false, true, false]);
    const dir = makeTempDir();
    try {
      const doc = readYaml(MINI_SPEC);
      doc.paths['/v1/payables/{id}/cancel'].post['x-mcp'] = { name: 'finance_cancel_bill', annotations: { idempotentHint: true } };
      const overridden = await generate(writeSpec(dir, 'override.yaml', doc), { typeCheck: false });
      const tool = toolOf(overridden.plan.tools, 'finance_cancel_bill');
      expect([tool.annotations.destructiveHint, tool.annotations.idempotentHint]).to.deep.equal([true, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('classifies once: the annotations are the OperationRef fields execute enforces, and an explicit hint moves both', async () => {
    for (const tool of result.plan.tools) {
      const { readOnly, destructive, idempotent } = tool.operation;
      expect([tool.annotations.readOnlyHint, tool.annotations.destructiveHint, tool.annotations.idempotentHint], tool.name).to.deep.equal([readOnly, destructive, idempotent]);
    }
    const dir = makeTempDir();
    try {
      const doc = readYaml(MINI_SPEC);
      doc.paths['/v1/payables/{id}'].patch['x-mcp'] = { annotations: { destructiveHint: true } };
      const marked = await generate(writeSpec(dir, 'marked.yaml', doc), { typeCheck: false });
      const update = toolOf(marked.plan.tools, 'finance_payables_update');
      expect([update.operation.destructive, update.annotations.destructiveHint]).to.deep.equal([true, true]);
      expect(marked.plan.routes.find((r) => r.operation.operationId === 'payables.update')?.operation.destructive).to.equal(true);
      expect(update.operation.confirmation).to.deep.equal({ template: 'Update a payable {name|description|title|file_name|id}?', target: 'payables.get' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads x-kobana-confirm: a template over the target its GET reads, or a named describer', () => {
    const ref = (id: string) => result.plan.routes.find((r) => r.operation.operationId === id)?.operation;
    expect(ref('payables.delete')?.confirmation).to.deep.equal({ template: 'Delete a payable {name|description|title|file_name|id}?', target: 'payables.get' });
    expect(ref('transfers.create')?.confirmation).to.deep.equal({ describer: 'transfer' });
    expect(ref('payables.get')?.confirmation).to.equal(null);
  });

  it('emits one resource template per GET /v1/<resource>/{id}', () => {
    expect(result.plan.resourceTemplates.map((t) => [t.uriTemplate, t.name])).to.deep.equal([['kobana://finance/payables/{id}', 'finance_payables_get']]);
  });

  it('type-checks the output against src/runtime (a wrong value, a broken frame, import or registry fails the build)', async () => {
    // Only the TypeScript modules (permissions.gen.md and the review copies are documents).
    const code = new Map([...result.files].filter(([relative]) => relative.endsWith('.ts')));
    expect([...code.keys()]).to.include.members(['registry.gen.ts', 'definitions/schemas.gen.ts', 'operations/payables_list.gen.ts']);
    const firstSchema = /^export const (schema_\w+): JsonSchema = /m.exec(code.get('definitions/schemas.gen.ts') ?? '')?.[0] ?? '';
    expect(firstSchema).to.not.equal('');
    const breaks: [file: string, from: string, to: string][] = [
      ['operations/payables_list.gen.ts', '"readOnly": true', '"readOnly": "yes"'],
      ['operations/payables_list.gen.ts', '"operators": [\n', '"operators": ["like", '],
      ['operations/payables_list.gen.ts', '"method": "GET"', '"method": "HEAD"'],
      // A frame naming a shared schema the shared module does not export.
      ['operations/payables_list.gen.ts', "} from '../definitions/schemas.gen.js';", "  schema_nowhere,\n} from '../definitions/schemas.gen.js';"],
      // The shared module's structure: an export that is not a schema.
      ['definitions/schemas.gen.ts', firstSchema, `${firstSchema}"not a schema" ?? `],
      ['registry.gen.ts', 'buildViews(operations)', 'buildViews(operation_payables_list)'],
    ];
    for (const [file, from, to] of breaks) {
      const text = code.get(file) ?? '';
      expect(text, from).to.include(from);
      const failure = await typeCheckOutput(new Map(code).set(file, text.replace(from, to)), { specFile: 'spec.yaml' }).then(() => null, (error: unknown) => error);
      expect(failure, to).to.be.instanceOf(CodegenError);
      expect((failure as CodegenError).message, to).to.match(/does not type-check/);
    }
    await typeCheckOutput(code, { specFile: 'spec.yaml' });
  });

  it('is deterministic: two runs produce identical files', async () => {
    const again = await generate(MINI_SPEC);
    expect([...again.files]).to.deep.equal([...result.files]);
  });
});

describe('generate() on generic OpenAPI documents', function () {
  this.timeout(60_000);

  it('handles OpenAPI 3.0: no operationId, nullable, allOf/oneOf, recursion, external relative $ref, non-ASCII, and type-checks', async () => {
    const { plan, files } = await generate(path.join(FIXTURES, 'generic-3.0.yaml'));
    expect(plan.tools.map((t) => t.name)).to.deep.equal([
      'delete_pet', 'get_pets', 'post_pets', 'replace_pet', 'show_pet_by_id', 'upload_photo',
    ]);
    const post = toolOf(plan.tools, 'post_pets');
    const properties = (post.inputSchema as Schema).properties;
    expect(properties.nickname.type).to.deep.equal(['string', 'null']);
    // A union is typed by its own branches, with nothing beside them.
    expect(properties.kind.type).to.equal(undefined);
    expect(properties.kind.oneOf.map((branch: Schema) => branch.type)).to.deep.equal(['string', 'integer']);
    expect(properties.name.description).to.equal('Nome do animal — ação ✓');
    expect(properties.owner.properties.pets.items.description).to.match(/Recursive reference/);
    // No permission model of its own: none is made up, and its scopes are those of its security, as written.
    expect(post.operation.permission).to.equal(NO_PERMISSION);
    expect(post.operation.scopes).to.deep.equal(['pets:write', 'pets:read']);
    expect(post.operation.workspaceScoped).to.equal(false);
    expect(toolOf(plan.tools, 'get_pets').description).to.equal('Lista os animais. 日本語のテキスト 🐾');
    const replace = toolOf(plan.tools, 'replace_pet');
    expect((replace.inputSchema as Schema).required).to.deep.equal(['pet_id', 'name']);
    expect(replace.args.pet_id).to.deep.equal({ in: 'path', name: 'petId' });
    expect(toolOf(plan.tools, 'upload_photo').args.body).to.deep.equal({ in: 'body', name: '' });
    expect(files.get('operations/get_pets.gen.ts')).to.include('日本語のテキスト 🐾');
    for (const tool of plan.tools) assertStrictClientSafe(tool);
  });

  it('handles OpenAPI 3.1: type lists, recursive $ref, allOf inside properties, +json bodies, and type-checks', async () => {
    const { plan } = await generate(path.join(FIXTURES, 'generic-3.1.yaml'));
    expect(plan.tools.map((t) => t.name)).to.deep.equal([
      'catalog_items_search', 'create_catalog_item', 'delete_catalog_items_by_item_id_relations_by_relation_id',
    ]);
    const create = toolOf(plan.tools, 'create_catalog_item');
    const node = (create.inputSchema as Schema).properties.node;
    expect(node.properties.parent.description).to.match(/Recursive reference/);
    expect(node.properties.mixed.properties).to.have.keys('value', 'weight');
    expect((create.inputSchema as Schema).properties.labels.items).to.be.an('object');
    expect(toolOf(plan.tools, 'catalog_items_search').title).to.equal('Buscar itens 🔎');
    for (const tool of plan.tools) assertStrictClientSafe(tool);
  });

  it('keeps hostile description text as data: {{ }}, */, backticks, ${x} and non-ASCII survive a round trip', async () => {
    const hostile = 'Uses {{#each tools}}{{this}}{{/each}} and {{{raw}}} */ /* `backtick` ${process.exit(1)} \'quote\' "dq" \\ </script> \u2028 ção 🧾';
    const dir = makeTempDir();
    try {
      const doc: Doc = readYaml(MINI_SPEC);
      doc.paths['/v1/payables/{id}'].get.description = hostile;
      doc.paths['/v1/payables/{id}'].get.summary = '*/ }} `title` ${x}';
      const { plan, files } = await generate(writeSpec(dir, 'hostile.yaml', doc));
      // The tool shows the text without code-span backticks (toShownText); the operation keeps it exactly.
      expect(toolOf(plan.tools, 'finance_payables_get').description).to.equal(hostile.replace(/`/g, ''));
      const out = path.join(dir, 'generated');
      writeOutput(out, files);
      const module = (await import(pathToFileURL(path.join(out, 'operations/payables_get.gen.ts')).href)) as { operation: OperationDefinition };
      expect(module.operation.description).to.equal(hostile);
      expect(module.operation.title).to.equal('*/ }} `title` ${x}');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('generate() on bad specs', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => { dir = makeTempDir(); });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const variant = (name: string, edit: (doc: Doc) => void): string => {
    const doc = readYaml(MINI_SPEC);
    edit(doc);
    return writeSpec(dir, name, doc);
  };

  it('fails an invalid document naming the file and the offending pointer', async () => {
    const file = variant('invalid.yaml', (doc) => { doc.paths['/v1/payables'].post.responses = 'nope'; });
    await expectCodegenError(file, 'INVALID_DOCUMENT', /^#\/paths\/~1v1~1payables\/post/);
  });

  it('fails a remote $ref (http and https) before any fetch', async () => {
    const file = variant('remote.yaml', (doc) => { doc.paths['/v1/payables'].post.requestBody.content['application/json'].schema = { $ref: 'https://example.invalid/schemas.yaml#/X' }; });
    await expectCodegenError(file, 'REMOTE_REF', '#/paths/~1v1~1payables/post/requestBody/content/application~1json/schema/$ref', /only local files/);
  });

  it('fails a remote $ref inside an external relative file without connecting to it', async () => {
    let connections = 0;
    const server = createServer((socket) => { connections += 1; socket.destroy(); });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as { port: number }).port;
      writeFileSync(path.join(dir, 'external.yaml'), `Thing:\n  $ref: 'http://127.0.0.1:${port}/x.yaml#/Thing'\n`);
      const file = variant('uses-external.yaml', (doc) => { doc.components.schemas.Workspace = { $ref: './external.yaml#/Thing' }; });
      // The error names the file the remote $ref is written in, and its pointer there.
      const failure = await generate(file, { typeCheck: false }).then(() => null, (error: unknown) => error);
      expect(failure).to.be.instanceOf(CodegenError);
      expect((failure as CodegenError).code).to.equal('REMOTE_REF');
      expect((failure as CodegenError).message).to.match(/external\.yaml#\/Thing\/\$ref: remote \$ref is not allowed: only local files are read/);
      expect(connections).to.equal(0);
    } finally {
      server.close();
    }
  });

  it('fails a tool name clash naming both operations', async () => {
    const file = variant('clash.yaml', (doc) => { doc.paths['/v1/payables/{id}/cancel'].post['x-mcp'] = { name: 'finance_payables_get' }; });
    await expectCodegenError(file, 'NAME_CLASH', /^#\/paths\/~1v1~1payables~1\{id\}(~1cancel\/post|\/get)$/, /finance_payables_get .*clashes with .*(GET \/v1\/payables\/\{id\}|POST \/v1\/payables\/\{id\}\/cancel)/);
  });

  it('fails an invalid x-mcp name instead of rewriting it', async () => {
    const file = variant('badname.yaml', (doc) => { doc.paths['/v1/payables'].get['x-mcp'] = { name: 'Finance-List' }; });
    await expectCodegenError(file, 'INVALID_NAME', '#/paths/~1v1~1payables/get/x-mcp/name', /must match/);
  });

  it('fails a Kobana operation without x-kobana-permission', async () => {
    const file = variant('noperm.yaml', (doc) => { delete doc.paths['/v1/payables'].get['x-kobana-permission']; });
    await expectCodegenError(file, 'MISSING_EXTENSION', '#/paths/~1v1~1payables/get');
  });

  it('fails a Kobana operation without x-kobana-touches, naming it (docs/security.md#resources-touched)', async () => {
    const file = variant('notouches.yaml', (doc) => { delete doc.paths['/v1/payables'].get['x-kobana-touches']; });
    await expectCodegenError(file, 'MISSING_EXTENSION', '#/paths/~1v1~1payables/get', /x-kobana-touches is required .*payables\.list/);
  });

  it('resolves x-kobana-touches against the permission catalogue and the scope grammar, and fails what they do not define', async () => {
    const file = variant('touches.yaml', (doc) => {
      doc.paths['/v1/transfers'].post['x-kobana-touches'] = { changes: ['transactions.transfer', 'payables.settle'], shows: ['transactions', 'payables'], sums: ['receivables'] };
    });
    const ref = (await generate(file, { typeCheck: false })).plan.routes.find((r) => r.operation.operationId === 'transfers.create')?.operation;
    // Settling payables needs the settle permission, the payables write scope and the money scope; showing them, the view permission and read scope.
    expect(ref?.changes).to.deep.equal([
      { kind: 'transactions', permission: 'transactions.transfer', scopes: ['finance.transactions.write', 'finance.money.write'] },
      { kind: 'payables', permission: 'payables.settle', scopes: ['finance.payables.write', 'finance.money.write'] },
    ]);
    // Records of the operation's own kind are governed by its own permission and scopes.
    expect(ref?.shows).to.deep.equal([
      { kind: 'transactions', permission: 'transactions.transfer', scopes: ['finance.transactions.write', 'finance.money.write'] },
      { kind: 'payables', permission: 'payables.view', scopes: ['finance.payables'] },
    ]);
    expect(ref?.sums).to.deep.equal(['receivables']);
    const cases: [string, unknown, string, RegExp][] = [
      ['badperm.yaml', { changes: ['payables.pay'], shows: [] }, '/x-kobana-touches/changes/0', /payables\.pay is not a permission of the catalogue/],
      ['badkind.yaml', { changes: [], shows: ['statements'] }, '/x-kobana-touches/shows/0', /statements has no statements\.view permission/],
      ['badsum.yaml', { changes: [], shows: [], sums: ['ledgers'] }, '/x-kobana-touches/sums/0', /ledgers is not a kind/],
      ['noshows.yaml', { changes: [] }, '/x-kobana-touches', /changes and shows \(both required\)/],
      ['getwrites.yaml', { changes: ['payables.manage'], shows: [] }, '/x-kobana-touches/changes', /payables\.list is a GET: it changes nothing/],
      // Leaving out another kind's records is declared in the contract: the answer's meta.omitted.
      ['undeclared.yaml', { changes: [], shows: ['payables', 'receivables'] }, '/x-kobana-touches/shows', /may leave out receivables records: .*must declare meta\.omitted/],
    ];
    for (const [name, touches, at, message] of cases) {
      const broken = variant(name, (doc) => { doc.paths['/v1/payables'].get['x-kobana-touches'] = touches; });
      await expectCodegenError(broken, 'INVALID_EXTENSION', `#/paths/~1v1~1payables/get${at}`, message);
    }
  });

  it('fails a destructive operation that has no confirmation sentence, naming it', async () => {
    const file = variant('noconfirm.yaml', (doc) => { delete doc.paths['/v1/transfers'].post['x-kobana-confirm']; });
    await expectCodegenError(file, 'MISSING_EXTENSION', '#/paths/~1v1~1transfers/post', /destructive operation transfers\.create has no confirmation sentence/);
  });

  it('fails a malformed x-kobana-confirm template, or one on an operation that is not destructive', async () => {
    const broken = variant('badtemplate.yaml', (doc) => { doc.paths['/v1/payables/{id}'].delete['x-kobana-confirm'] = 'Delete {description?'; });
    await expectCodegenError(broken, 'INVALID_EXTENSION', '#/paths/~1v1~1payables~1{id}/delete/x-kobana-confirm', /without its "}"/);
    const misplaced = variant('readconfirm.yaml', (doc) => { doc.paths['/v1/payables/{id}'].get['x-kobana-confirm'] = 'Read {description}?'; });
    await expectCodegenError(misplaced, 'INVALID_EXTENSION', '#/paths/~1v1~1payables~1{id}/get/x-kobana-confirm', /payables\.get is not one/);
  });

  it('refuses an unknown describer, and the title describer on an operation that is not a title\'s, at build time', async () => {
    const typo = variant('typodescriber.yaml', (doc) => { doc.paths['/v1/payables/{id}'].delete['x-kobana-confirm'] = { describer: 'transactoin' }; });
    await expectCodegenError(typo, 'INVALID_EXTENSION', '#/paths/~1v1~1payables~1{id}/delete/x-kobana-confirm/describer', /describer "transactoin" cannot describe payables\.delete/);
    const misapplied = variant('titletransfer.yaml', (doc) => { doc.paths['/v1/transfers'].post['x-kobana-confirm'] = { describer: 'title' }; });
    await expectCodegenError(misapplied, 'INVALID_EXTENSION', '#/paths/~1v1~1transfers/post/x-kobana-confirm/describer', /describer "title" cannot describe transfers\.create/);
  });

  it('refuses destructiveHint false on an operation that moves money, on a delete and on a cancel', async () => {
    const file = variant('moneysafe.yaml', (doc) => { doc.paths['/v1/transfers'].post['x-mcp'] = { annotations: { destructiveHint: false } }; });
    await expectCodegenError(file, 'INVALID_EXTENSION', '#/paths/~1v1~1transfers/post/x-mcp/annotations/destructiveHint', /moves money is always destructive/);
    const deletion = variant('deletesafe.yaml', (doc) => { doc.paths['/v1/payables/{id}'].delete['x-mcp'] = { annotations: { destructiveHint: false } }; });
    await expectCodegenError(deletion, 'INVALID_EXTENSION', '#/paths/~1v1~1payables~1{id}/delete/x-mcp/annotations/destructiveHint', /a delete, a cancel .* always destructive/);
  });

  it('refuses readOnlyHint true on an operation that does not declare changes: [] (a delete could otherwise skip confirmation and the write budget)', async () => {
    const file = variant('readonlydelete.yaml', (doc) => { doc.paths['/v1/payables/{id}'].delete['x-mcp'] = { annotations: { readOnlyHint: true, destructiveHint: true } }; });
    await expectCodegenError(file, 'INVALID_EXTENSION', '#/paths/~1v1~1payables~1{id}/delete/x-mcp/annotations/readOnlyHint', /a DELETE operation that does not declare x-kobana-touches changes: \[\] is not read-only/);
  });

  it('fails an unknown filter operator', async () => {
    const file = variant('badfilter.yaml', (doc) => { doc.paths['/v1/payables'].get.parameters[4]['x-kobana-filter'].operators = ['eq', 'like']; });
    await expectCodegenError(file, 'INVALID_EXTENSION', /x-kobana-filter$/);
  });
});

/** The same checks registry.test.ts runs over our spec, for documents we do not control. */
function assertStrictClientSafe(tool: ToolDefinition): void {
  expect(tool.name).to.match(/^[a-z][a-z0-9_]{0,63}$/);
  const schema = tool.inputSchema as Schema;
  expect(schema.type).to.equal('object');
  for (const key of ['anyOf', 'oneOf', 'allOf']) expect(schema).to.not.have.property(key);
  walkSchema(schema, (node, at) => {
    // Typed, or a union whose branches (walked too) are.
    if (node.type === undefined) expect(node.anyOf ?? node.oneOf, `${tool.name} ${at}`).to.be.an('array').that.is.not.empty;
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('array')) expect(node.items ?? node.prefixItems, `${tool.name} ${at}`).to.not.equal(undefined);
  });
}
