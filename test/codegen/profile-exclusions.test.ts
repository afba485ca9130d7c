/**
 * Tools a client schema profile cannot represent (issue 28, fix 4): `generate` runs the profile
 * checkers (codegen/profile-checkers.ts) on every tool's form; a tool whose form breaks a rule —
 * more than 5 levels of nesting for OpenAI, a parameter name with a dot for Gemini — is a
 * PROFILE_EXCLUDED warning naming it and the reason (an error under --strict), and is left out of
 * that profile's review copy and of what the MCP catalog serves with `?schema=<profile>`.
 */
import { expect } from 'chai';
import path from 'node:path';
import { CodegenError } from '../../codegen/errors.js';
import { generate } from '../../codegen/generate.js';
import { PROFILE_EXCLUSIONS_FILE, PROFILE_FILES } from '../../codegen/profile-check.js';
import { serializePrepared } from '../../src/mcp/json-rpc.js';
import { createToolCatalog } from '../../src/mcp/tools/catalog.js';
import type { ToolView } from '../../src/mcp/view.js';
import type { ToolDefinition } from '../../src/runtime/types.js';
import { fakeCallers } from '../mcp/support/fake-stack.js';
import { REPO_ROOT } from './support.js';

const SPEC = path.join(REPO_ROOT, 'test/fixtures/codegen-robust/profile-limits.yaml');
const ERA = { modern: false, version: '2025-06-18' } as const;
const view = (schemaProfile: ToolView['schemaProfile']): ToolView => ({ toolsets: null, readOnly: false, schemaProfile });

const toolOf = (tools: readonly ToolDefinition[], operationId: string): string => {
  const tool = tools.find((t) => t.operation.operationId === operationId);
  if (!tool) throw new Error(`no tool for ${operationId}`);
  return tool.name;
};

describe('tools a client profile cannot represent', function () {
  this.timeout(60_000);
  let result: Awaited<ReturnType<typeof generate>>;
  let deep = '';
  let dotted = '';
  let plain = '';
  before(async () => {
    result = await generate(SPEC, { typeCheck: false });
    deep = toolOf(result.plan.tools, 'createDeep');
    dotted = toolOf(result.plan.tools, 'createDotted');
    plain = toolOf(result.plan.tools, 'listPlain');
  });

  it('each is a PROFILE_EXCLUDED warning naming the tool, the profile and the reason', () => {
    const details = result.warnings.filter((w) => w.rule === 'PROFILE_EXCLUDED').map((w) => w.detail);
    expect(details).to.have.length(2);
    expect(details[0]).to.include(`tool ${deep} cannot be written in the openai profile`).and.include('more than 5 levels of nesting');
    expect(details[1]).to.include(`tool ${dotted} cannot be written in the gemini profile`).and.include('parameter meta.label: not a valid parameter name');
    expect(result.profileExclusions).to.deep.equal({ openai: [deep], gemini: [dotted] });
  });

  it('is left out of that profile\'s review copy only, and listed in the exclusion module the server reads', () => {
    const names = (profile: 'openai' | 'gemini') => (JSON.parse(result.files.get(PROFILE_FILES[profile])!) as { name: string }[]).map((t) => t.name);
    expect(names('openai')).to.deep.equal([dotted, plain]);
    expect(names('gemini')).to.deep.equal([deep, plain]);
    const module = result.files.get(PROFILE_EXCLUSIONS_FILE)!;
    expect(module).to.include(JSON.stringify(deep)).and.include(JSON.stringify(dotted));
  });

  it('is neither listed nor callable in that profile, and served as before in the others', () => {
    const catalog = createToolCatalog(result.plan.tools, { canReach: () => true }, result.profileExclusions);
    const admin = fakeCallers['admin']!;
    const listed = (profile: ToolView['schemaProfile']) => (JSON.parse(serializePrepared(1, catalog.listResult(admin, ERA, view(profile))).toString('utf8')) as { result: { tools: { name: string }[] } })
      .result.tools.map((t) => t.name);
    expect(listed('canonical')).to.have.members([deep, dotted, plain]);
    expect(listed('openai')).to.have.members([dotted, plain]);
    expect(listed('gemini')).to.have.members([deep, plain]);
    expect(catalog.find(deep, view('openai'))).to.equal(undefined);
    expect(catalog.find(dotted, view('gemini'))).to.equal(undefined);
    expect(catalog.find(deep, view('gemini'))?.tool.name).to.equal(deep);
    expect(catalog.shown(admin, view('openai')).map((t) => t.name)).to.not.include(deep);
  });

  it('is an error under --strict, reported in the check phase', async () => {
    const error = await generate(SPEC, { typeCheck: false, strict: true }).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(AggregateError);
    const messages = (error as AggregateError).errors.map((e: CodegenError) => e.message);
    expect(messages).to.have.length(2);
    expect(messages.every((m: string) => m.includes('[PROFILE_EXCLUDED; not allowed with --strict]'))).to.equal(true);
  });
});
