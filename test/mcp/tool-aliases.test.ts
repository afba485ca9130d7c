/**
 * A renamed tool's former name (`x-mcp.aliases`, issue 28.6) over the real app: `tools/call` answers
 * it as the tool itself — the same result, the same scope ∩ permission and view filtering, the
 * Mcp-Name header carrying the name the client sent — while `tools/list` never shows it. The alias is
 * declared in a test-only registry (the generated one with an alias on finance_payables_get), so
 * openapi/v1.yaml and its tools/list stay as they are.
 */
import { expect } from 'chai';
import { DEMO } from '../../src/seed/ids.js';
import type { ToolDefinition } from '../../src/runtime/types.js';
import { ALL_WRITE, startTestApp, type TestApp } from './support/app.js';
import { modernRequest, postMcp } from './support/wire.js';

const TOOL = 'finance_payables_get';
const ALIAS = 'finance_payables_read';

function withAlias(tools: readonly ToolDefinition[]): ToolDefinition[] {
  const found = tools.filter((tool) => tool.name === TOOL);
  expect(found, TOOL).to.have.length(1);
  return tools.map((tool) => (tool.name === TOOL ? { ...tool, aliases: [{ name: ALIAS, until: '2099-12-31' }] } : tool));
}

describe('tools/call answers a renamed tool\'s former name (x-mcp.aliases)', function () {
  let app: TestApp;
  let admin: string;
  let payableId: string;
  before(async () => {
    app = await startTestApp({ mapRegistry: (registry) => ({ ...registry, tools: withAlias(registry.tools) }) });
    admin = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    const page = await call(admin, 'finance_payables_list', { workspace_id: DEMO.workspaces.matriz, limit: 1 });
    payableId = (page.result.structuredContent as { data: Array<{ id: string }> }).data[0]!.id;
  });
  after(async () => app?.close());

  async function call(token: string, name: string, args: Record<string, unknown>, query = ''): Promise<{ status: number; headersSent: Record<string, string>; result: Record<string, unknown>; error?: { code: number; message: string } }> {
    const { body, headers } = modernRequest(1, 'tools/call', { name, arguments: args });
    const response = await postMcp(`${app.url}/mcp${query}`, body, { authorization: `Bearer ${token}`, ...headers });
    const json = response.json as { result: Record<string, unknown>; error?: { code: number; message: string } };
    return { status: response.status, headersSent: headers, result: json.result, ...(json.error ? { error: json.error } : {}) };
  }

  it('answers the old name exactly as the tool, with Mcp-Name carrying the old name', async () => {
    const args = { workspace_id: DEMO.workspaces.matriz, id: payableId };
    const byName = await call(admin, TOOL, args);
    const byAlias = await call(admin, ALIAS, args);
    expect(byAlias.headersSent['mcp-name']).to.equal(ALIAS);
    expect(byAlias.status).to.equal(200);
    expect(byAlias.result['isError']).to.not.equal(true);
    expect(byAlias.result['structuredContent']).to.deep.equal(byName.result['structuredContent']);
    expect((byAlias.result['structuredContent'] as { id: string }).id).to.equal(payableId);
  });

  it('never lists the old name in tools/list', async () => {
    const { body, headers } = modernRequest(2, 'tools/list');
    const response = await postMcp(`${app.url}/mcp`, body, { authorization: `Bearer ${admin}`, ...headers });
    const names = (response.json as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);
    expect(names).to.include(TOOL);
    expect(names).to.not.include(ALIAS);
  });

  it('filters the old name like the tool: a view without its toolset and a token without its scope get the same answers', async () => {
    const args = { workspace_id: DEMO.workspaces.matriz, id: payableId };
    const hidden = [await call(admin, TOOL, args, '?toolsets=receivables'), await call(admin, ALIAS, args, '?toolsets=receivables')];
    expect(hidden.map((answer) => answer.error?.message)).to.deep.equal(['Unknown tool', 'Unknown tool']);
    const receivablesOnly = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.receivables' });
    const [byName, byAlias] = [await call(receivablesOnly, TOOL, args), await call(receivablesOnly, ALIAS, args)];
    expect(byName.result ?? byName.error, 'the tool is refused without its scope').to.satisfy((answer: Record<string, unknown>) => answer['isError'] === true || 'code' in answer);
    expect(byAlias.result ?? byAlias.error).to.deep.equal(byName.result ?? byName.error);
  });

  it('answers an unknown name as before', async () => {
    const answer = await call(admin, 'finance_payables_fetch', { workspace_id: DEMO.workspaces.matriz, id: payableId });
    expect(answer.error?.message).to.equal('Unknown tool');
  });
});
