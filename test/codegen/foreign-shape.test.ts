/**
 * Foreign documents in their own shape (issue 28, Build 3): without the root extension
 * `x-kobana-codegen` (codegen/settings.ts, docs/generator.md#document-settings) a document's tools
 * are named by its operationIds alone, take no `workspace_id` argument and need the permission the
 * document declares (none: it has no permission model) with the scopes of its own `security`.
 *
 * - The real-world corpus (test/fixtures/real-specs) through the CLI given only `--spec` and `--out`
 *   (which document, which folder — nothing about its shape), read back from what it wrote: the
 *   review copy of tools/list and the operation modules.
 * - GitHub's REST description (1,000+ operations, `@octokit/openapi`), planned in process: under
 *   the old `finance_` prefix hundreds of its names were cut to 64 characters and hashed.
 * - Each setting of `x-kobana-codegen` turns its part of Kobana's shape on, and a bad value is a
 *   CodegenError naming `file#/x-kobana-codegen/<key>`.
 */
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { buildPointer, CodegenError } from '../../codegen/errors.js';
import { generate } from '../../codegen/generate.js';
import { loadSpec, type OpenApiDocument } from '../../codegen/load-spec.js';
import { operationSlug } from '../../codegen/naming.js';
import { planSpec } from '../../codegen/plan-spec.js';
import { NO_PERMISSION } from '../../src/identity/permissions.js';
import type { OperationDefinition, OperationRef } from '../../src/runtime/types.js';
import { skipWithReason } from '../helpers/mocha.js';
import { FIXTURES, makeTempDir, readYaml, REPO_ROOT, runCli, writeSpec, type Doc } from './support.js';

type Obj = Record<string, unknown>;

/** The corpus documents' root files (test/fixtures/real-specs/<name>/SOURCE.md says where each comes from). */
const CORPUS: ReadonlyArray<readonly [string, string]> = [
  ['slack-web-api', 'slack_web_openapi_v2_without_examples.json'],
  ['decentraland-catalyst', 'openapi/catalyst.yaml'],
  ['redocly-cafe', 'openapi/openapi.yaml'],
  ['readme-schema-types', 'schema-types.json'],
  ['swagger-petstore-3', 'openapi.yaml'],
];
const GITHUB = path.join(REPO_ROOT, 'node_modules/@octokit/openapi/generated/api.github.com.json');
const MAX_NAME_LENGTH = 64;

/** What a client is shown of one tool, with the operation it runs. */
interface ShownTool {
  readonly name: string;
  readonly inputSchema: Obj;
  readonly operation: OperationRef;
}

/** The operations (their pointers) whose name a DERIVED_TOOL_NAME warning reports as derived or disambiguated. */
function derivedNames(pointers: readonly string[]): Set<string> {
  return new Set(pointers.map((pointer) => pointer.replace(/\/operationId$/, '')));
}

/** The pointers of the DERIVED_TOOL_NAME lines the CLI printed (`warning: <file>#<pointer>: … [DERIVED_TOOL_NAME]`). */
function printedDerivedNames(stderr: string): Set<string> {
  const lines = stderr.split('\n').filter((line) => line.startsWith('warning: ') && line.endsWith('[DERIVED_TOOL_NAME]'));
  return derivedNames(lines.map((line) => /#(\/\S*?): /.exec(line)?.[0].slice(0, -2) ?? ''));
}

/** Every scope any security requirement of the document names (root and operations). */
function declaredScopes(document: OpenApiDocument): Set<string> {
  const requirements = [document.security, ...Object.values(document.paths ?? {}).flatMap((item) => Object.values(item ?? {}).map((op) => (op as Obj | null)?.security))];
  return new Set(requirements.flatMap((list) => (Array.isArray(list) ? list : []))
    .flatMap((requirement: Obj) => Object.values(requirement ?? {}).flatMap((scopes) => (Array.isArray(scopes) ? scopes.map(String) : []))));
}

/**
 * The shape of a document without settings: no `finance_` name, no `workspace_id` argument, no
 * operation inside a workspace, a name cut only when its own slug is over 64 characters, and no
 * permission made up (none, and only the document's own scopes). Returns how many names were cut.
 */
function assertOwnShape(tools: readonly ShownTool[], derived: ReadonlySet<string>, document: OpenApiDocument): number {
  expect(tools).to.not.be.empty;
  const scopes = declaredScopes(document);
  let cut = 0;
  for (const { name, inputSchema, operation } of tools) {
    expect(name, name).to.not.match(/^finance_/);
    expect(Object.keys((inputSchema.properties ?? {}) as Obj), name).to.not.include('workspace_id');
    expect(operation.workspaceScoped, name).to.equal(false);
    expect(operation.permission, name).to.equal(NO_PERMISSION);
    expect([...operation.changes, ...operation.shows, ...operation.sums], name).to.deep.equal([]);
    expect(operation.scopes.filter((scope) => !scopes.has(scope)), `${name}: scopes the document does not declare`).to.deep.equal([]);
    if (derived.has(buildPointer('paths', operation.path, operation.method.toLowerCase()))) continue;
    const slug = operationSlug(operation.operationId, operation.method, operation.path);
    if (slug.length <= MAX_NAME_LENGTH) {
      expect(name, `${operation.method} ${operation.path}`).to.equal(slug);
    } else {
      expect(name.length, `${operation.method} ${operation.path}`).to.be.at.most(MAX_NAME_LENGTH);
      expect(name, `${operation.method} ${operation.path}`).to.match(new RegExp(`^${slug.slice(0, 40)}.*_[0-9a-f]{8}$`));
      cut += 1;
    }
  }
  return cut;
}

/** The operation modules the CLI wrote (`operations/*.gen.ts`), by tool name (every corpus operation has one). */
async function readOperationModules(out: string): Promise<Map<string, OperationDefinition>> {
  const folder = path.join(out, 'operations');
  const modules = await Promise.all(readdirSync(folder).filter((file) => file.endsWith('.gen.ts'))
    .map(async (file) => ((await import(pathToFileURL(path.join(folder, file)).href)) as { operation: OperationDefinition }).operation));
  return new Map(modules.map((definition) => [String(definition.toolName), definition]));
}

describe('a foreign document generates in its own shape (no x-kobana-codegen, no flags)', function () {
  this.timeout(180_000);
  let dir: string;
  before(function () {
    // Like the corpus test: no database is touched, so the PostgreSQL pass would repeat the same work.
    if (process.env.DATABASE_URL) skipWithReason(this, 'the foreign documents touch no database; they run once, on the SQLite pass');
    dir = makeTempDir('kobana-foreign-');
  });
  after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  let scoped = 0;
  for (const [name, root] of CORPUS) {
    it(`${name}: named by its operationIds, without workspace_id or a made-up permission`, async () => {
      const spec = path.join(REPO_ROOT, 'test/fixtures/real-specs', name, root);
      const out = path.join(dir, name);
      // Which document and which folder, nothing about its shape.
      const run = runCli(['--spec', spec, '--out', out]);
      expect(run.status, run.stderr).to.equal(0);
      const listed = JSON.parse(readFileSync(path.join(out, 'tools-list.gen.json'), 'utf8')) as Array<{ name: string; inputSchema: Obj }>;
      const modules = await readOperationModules(out);
      expect(listed).to.have.length(modules.size);
      const tools = listed.map((tool) => {
        const definition = modules.get(tool.name);
        expect(definition, tool.name).to.not.equal(undefined);
        return { ...tool, operation: definition!.operation };
      });
      const cut = assertOwnShape(tools, printedDerivedNames(run.stderr), (await loadSpec(spec)).document);
      expect(cut, 'names over 64 characters').to.equal(0);
      scoped += tools.filter((tool) => tool.operation.scopes.length > 0).length;
    });
  }

  it('keeps the scopes the corpus documents declare (the checks above saw some)', () => {
    expect(scoped).to.be.greaterThan(0);
  });

  it('api.github.com (1,000+ operations): no finance_ prefix; a name is cut only where its own operationId is over 64 characters', async () => {
    const spec = await loadSpec(GITHUB);
    const plan = planSpec(spec);
    expect(plan.tools.length).to.be.greaterThan(1000);
    const cut = assertOwnShape(plan.tools, derivedNames(plan.warnings.filter((w) => w.rule === 'DERIVED_TOOL_NAME').map((w) => w.pointer)), spec.document);
    // The old `finance_` (8 characters) cut every slug over 56; without it only those over 64 are.
    const slugs = plan.tools.map((tool) => operationSlug(tool.operation.operationId, tool.operation.method, tool.operation.path));
    expect(cut).to.equal(slugs.filter((slug) => slug.length > MAX_NAME_LENGTH).length);
    expect(slugs.filter((slug) => slug.length > MAX_NAME_LENGTH - 'finance_'.length).length - cut, 'names the prefix would have cut').to.be.greaterThan(0);
  });
});

describe('x-kobana-codegen: each setting turns on its part of Kobana\'s shape', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = makeTempDir('kobana-settings-');
    cpSync(path.join(FIXTURES, 'shared'), path.join(dir, 'shared'), { recursive: true }); // generic-3.0.yaml's ./shared/pet.yaml
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** test/fixtures/specs/generic-3.0.yaml (no settings) with `settings` as its x-kobana-codegen. */
  const withSettings = (name: string, settings: unknown, edit: (doc: Doc) => void = () => {}): string => {
    const doc = readYaml(path.join(FIXTURES, 'generic-3.0.yaml'));
    doc['x-kobana-codegen'] = settings;
    edit(doc);
    return writeSpec(dir, name, doc);
  };
  const plan = async (file: string) => (await generate(file, { typeCheck: false })).plan;
  const refusal = async (file: string): Promise<CodegenError> => {
    try {
      await plan(file);
    } catch (error) {
      expect(error).to.be.instanceOf(CodegenError);
      return error as CodegenError;
    }
    return expect.fail('expected a CodegenError');
  };

  it('toolPrefix: put before every derived name, never before an x-mcp.name', async () => {
    const { tools } = await plan(withSettings('prefix.yaml', { toolPrefix: 'pets_' }, (doc) => { doc.paths['/pets/{petId}'].delete['x-mcp'] = { name: 'remove_pet' }; }));
    expect(tools.map((tool) => tool.name)).to.deep.equal(['pets_get_pets', 'pets_post_pets', 'pets_replace_pet', 'pets_show_pet_by_id', 'pets_upload_photo', 'remove_pet']);
  });

  it('workspaces: every tool takes workspace_id, but an operation with x-kobana-workspace: false', async () => {
    const { tools } = await plan(withSettings('workspaces.yaml', { workspaces: true }, (doc) => { doc.paths['/pets'].get['x-kobana-workspace'] = false; }));
    expect(tools).to.have.length(6);
    for (const tool of tools) {
      const own = tool.operation.path === '/pets' && tool.operation.method === 'GET';
      expect(tool.operation.workspaceScoped, tool.name).to.equal(!own);
      expect(tool.args['workspace_id'], tool.name).to.deep.equal(own ? undefined : { in: 'workspace' });
    }
  });

  it('without workspaces, only an operation that says x-kobana-workspace: true runs in one', async () => {
    const { tools } = await plan(withSettings('one-workspace.yaml', {}, (doc) => { doc.paths['/pets'].get['x-kobana-workspace'] = true; }));
    expect(tools.filter((tool) => tool.operation.workspaceScoped).map((tool) => tool.name)).to.deep.equal(['get_pets']);
  });

  it('permissions: required makes x-kobana-permission mandatory; without it a declared permission is kept and the rest need none', async () => {
    const missing = await refusal(withSettings('required.yaml', { permissions: 'required' }));
    expect(missing.code).to.equal('MISSING_EXTENSION');
    expect(missing.message).to.match(/required\.yaml#\/paths\/~1pets\/get: x-kobana-permission is required on every operation/);
    const { tools } = await plan(withSettings('declared.yaml', { permissions: 'optional' }, (doc) => { doc.paths['/pets'].post['x-kobana-permission'] = 'pets.create'; }));
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.operation.permission]))).to.deep.equal({
      delete_pet: NO_PERMISSION, get_pets: NO_PERMISSION, post_pets: 'pets.create', replace_pet: NO_PERMISSION, show_pet_by_id: NO_PERMISSION, upload_photo: NO_PERMISSION,
    });
  });

  it('checks: safety-metadata and confirmations hold the document to them only when named', async () => {
    // A cancel that is a non-idempotent POST without Idempotency-Key, and with no GET of its target.
    const cancel = (doc: Doc) => { doc.paths['/orders/{id}/cancel'] = { post: { operationId: 'orders.cancel', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '204': { description: 'ok' } } } }; };
    const unchecked = await plan(withSettings('unchecked.yaml', {}, cancel));
    const tool = unchecked.tools.find((each) => each.name === 'orders_cancel');
    expect(tool?.operation.destructive).to.equal(true);
    expect(tool?.operation.confirmation).to.equal(null);
    const safety = await refusal(withSettings('safety.yaml', { checks: ['safety-metadata'] }, cancel));
    expect(safety.pointer).to.equal('#/paths/~1orders~1{id}~1cancel/post/parameters');
    expect(safety.message).to.match(/must take the Idempotency-Key header/);
    const confirmations = await refusal(withSettings('confirmations.yaml', { checks: ['confirmations'] }, cancel));
    expect(confirmations.pointer).to.equal('#/paths/~1orders~1{id}~1cancel/post');
    expect(confirmations.message).to.match(/destructive operation orders\.cancel has no confirmation sentence/);
  });

  it('an operationId that does not start with a letter is led by its method, with a warning', async () => {
    const file = withSettings('digits.yaml', {}, (doc) => { doc.paths['/2fa'] = { post: { operationId: '2fa.enable', responses: { '204': { description: 'ok' } } } }; });
    const result = await generate(file, { typeCheck: false });
    expect(result.plan.tools.map((tool) => tool.name)).to.include('post_2fa_enable');
    expect(result.warnings.map((w) => `${w.pointer} ${w.detail}`)).to.include('#/paths/~12fa/post/operationId operationId "2fa.enable" does not start with a letter; named post_2fa_enable, led by its method');
  });

  const invalid: ReadonlyArray<readonly [string, unknown, string, RegExp]> = [
    ['not an object', 'finance_', '#/x-kobana-codegen', /must be an object \{toolPrefix, workspaces, permissions, checks\}/],
    ['an unknown setting', { toolprefix: 'finance_' }, '#/x-kobana-codegen/toolprefix', /has no setting toolprefix/],
    ['a prefix that cannot start a tool name', { toolPrefix: 'Finance-' }, '#/x-kobana-codegen/toolPrefix', /toolPrefix must match/],
    ['a prefix that leaves no room for a name', { toolPrefix: 'a'.repeat(33) }, '#/x-kobana-codegen/toolPrefix', /toolPrefix must match/],
    ['workspaces that is not a boolean', { workspaces: 'yes' }, '#/x-kobana-codegen/workspaces', /workspaces must be true or false/],
    ['an unknown permission mode', { permissions: 'strict' }, '#/x-kobana-codegen/permissions', /permissions must be required or optional/],
    ['checks that are not a list', { checks: 'confirmations' }, '#/x-kobana-codegen/checks', /checks must be a list/],
    ['an unknown check', { checks: ['confirmations', 'argument-text'] }, '#/x-kobana-codegen/checks/1', /"argument-text" is not one of argument-texts, safety-metadata, confirmations/],
    ['a check named twice', { checks: ['confirmations', 'confirmations'] }, '#/x-kobana-codegen/checks/1', /names confirmations twice/],
  ];
  for (const [what, settings, pointer, message] of invalid) {
    it(`refuses ${what}, naming file#${pointer.slice(1)}`, async () => {
      const failure = await refusal(withSettings('invalid.yaml', settings));
      expect([failure.code, path.basename(failure.file), failure.pointer]).to.deep.equal(['INVALID_EXTENSION', 'invalid.yaml', pointer]);
      expect(failure.message.startsWith(`${failure.file}${pointer}: `)).to.equal(true);
      expect(failure.message).to.match(message);
    });
  }

  it('refuses an x-kobana-workspace that is not a boolean, naming the operation', async () => {
    const failure = await refusal(withSettings('bad-workspace.yaml', { workspaces: true }, (doc) => { doc.paths['/pets'].get['x-kobana-workspace'] = 'no'; }));
    expect([failure.code, failure.pointer]).to.deep.equal(['INVALID_EXTENSION', '#/paths/~1pets/get/x-kobana-workspace']);
  });
});
