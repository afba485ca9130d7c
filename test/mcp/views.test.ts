/**
 * Views per request (docs/protocol.md#views) through the real SDK client v2 on the URL or the
 * headers it is configured with: toolsets and read-only narrow tools/list and tools/call (a
 * hidden tool answers exactly like an unknown one), never widen scope ∩ permission; an unknown
 * toolset is refused; the schema form is served and decoded.
 */
import { expect } from 'chai';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { tools } from '../../generated/registry.gen.js';
import { canReach } from '../../src/api/authorize.js';
import type { Caller } from '../../src/api/context.js';
import { toSchemaProfile } from '../../src/runtime/schema-profiles.js';
import { DEMO } from '../../src/seed/ids.js';
import { DEMO_MEMBERS } from '../../src/seed/identity.js';
import { ALL_READ, ALL_WRITE, startTestApp, type TestApp } from './support/app.js';
import { postMcp } from './support/wire.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The tools a member reaches without any view (scope ∩ permission), as canReach decides. */
function reachable(email: string, scope: string): typeof tools {
  const member = DEMO_MEMBERS.find((m) => m.email === email)!;
  const caller: Caller = {
    personId: member.personId, organizationId: DEMO.organizationId, scopes: new Set(scope.split(' ')), tokenType: 'personal', channel: 'mcp',
    membership: { status: member.status, isAdmin: member.isAdmin, permissions: new Set(member.permissions), workspaceIds: member.workspaceIds, workspaceNames: DEMO.workspaceNames },
  };
  return tools.filter((tool) => canReach(caller, tool.operation));
}

function names(list: readonly { name: string }[]): string[] {
  return list.map((tool) => tool.name).sort(byName);
}

describe('views: toolsets, read-only and schema form per request (SDK client v2)', function () {
  let app: TestApp;
  const clients: Client[] = [];

  before(async function () {
    app = await startTestApp();
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app?.close();
  });

  async function connect(token: string, query = '', headers: Record<string, string> = {}): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp${query}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
      fetch: connectionRetryingFetch(),
    });
    const client = new Client({ name: 'kobana-views-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /** The error a client gets for `tools/call` of `name` (code and message), or null when it ran. */
  async function callFailure(client: Client, name: string, args: Record<string, unknown>): Promise<{ code: unknown; message: string } | null> {
    try {
      await client.callTool({ name, arguments: args });
      return null;
    } catch (error) {
      return { code: (error as { code?: unknown }).code, message: (error as Error).message };
    }
  }

  it('?toolsets= shows only the tools of those toolsets and hides the rest from tools/call like unknown tools', async function () {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    const client = await connect(token, '?toolsets=payables,receivables');
    const listed = (await client.listTools()).tools;
    const expected = reachable(DEMO.emails.ana, ALL_WRITE).filter((t) => t.toolsets.some((s) => s === 'payables' || s === 'receivables'));
    expect(expected.length).to.be.greaterThan(4);
    expect(names(listed)).to.deep.equal(names(expected));

    const hidden = tools.find((t) => !t.toolsets.includes('payables') && !t.toolsets.includes('receivables') && t.operation.readOnly)!;
    const hiddenFailure = await callFailure(client, hidden.name, { workspace_id: DEMO.workspaces.matriz });
    const unknownFailure = await callFailure(client, 'finance_no_such_tool', { workspace_id: DEMO.workspaces.matriz });
    expect(hiddenFailure).to.not.equal(null);
    expect(hiddenFailure).to.deep.equal({ ...unknownFailure!, message: unknownFailure!.message.replace('finance_no_such_tool', hidden.name) });
    // A shown tool runs.
    const shown = await client.callTool({ name: 'finance_payables_list', arguments: { workspace_id: DEMO.workspaces.matriz, limit: 2 } });
    expect(shown.isError).to.not.equal(true);
  });

  it('X-MCP-Toolsets does the same from a header; with the URL too, a tool must be in both', async function () {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    const header = await connect(token, '', { 'X-MCP-Toolsets': 'taxes' });
    expect(names((await header.listTools()).tools)).to.deep.equal(names(tools.filter((t) => t.toolsets.includes('taxes'))));
    const both = await connect(token, '?toolsets=taxes,payables', { 'X-MCP-Toolsets': 'payables,people' });
    expect(names((await both.listTools()).tools)).to.deep.equal(names(tools.filter((t) => t.toolsets.includes('payables'))));
  });

  it('?read_only=true and X-MCP-Readonly: true show only read-only tools; a write tool answers like an unknown one', async function () {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    const expected = names(reachable(DEMO.emails.ana, ALL_WRITE).filter((t) => t.operation.readOnly));
    for (const client of [await connect(token, '?read_only=true'), await connect(token, '', { 'X-MCP-Readonly': 'true' })]) {
      const listed = (await client.listTools()).tools;
      expect(names(listed)).to.deep.equal(expected);
      expect(listed.every((t) => t.annotations?.readOnlyHint === true)).to.equal(true);
      const args = { workspace_id: DEMO.workspaces.matriz, name: 'Never created', default_rate: '1' };
      const hidden = await callFailure(client, 'finance_taxes_create', args);
      const unknown = await callFailure(client, 'finance_no_such_tool', args);
      expect(hidden).to.deep.equal({ ...unknown!, message: unknown!.message.replace('finance_no_such_tool', 'finance_taxes_create') });
    }
    // On the wire too: the same status and body, byte for byte.
    const wire = async (name: string) => {
      const body = {
        jsonrpc: '2.0', id: 1, method: 'tools/call',
        params: { name, arguments: args, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      };
      const response = await postMcp(`${app.url}/mcp?read_only=true`, body, { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });
      return { status: response.status, text: response.text };
    };
    const args = { workspace_id: DEMO.workspaces.matriz, name: 'Never created', default_rate: '1' };
    expect(await wire('finance_taxes_create')).to.deep.equal(await wire('finance_no_such_tool'));
    const rows = await app.services.db.selectFrom('taxes').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).where('name', '=', 'Never created').execute();
    expect(rows).to.deep.equal([]);
  });

  it('never widens scope ∩ permission: the limited member naming other toolsets sees no more and is still refused', async function () {
    const token = await app.mintToken({ person: DEMO.emails.bruno, scope: ALL_READ });
    const plain = await connect(token);
    const all = names((await plain.listTools()).tools);
    expect(all).to.deep.equal(names(reachable(DEMO.emails.bruno, ALL_READ)));
    const viewed = await connect(token, '?toolsets=payables,taxes,accounts');
    expect(names((await viewed.listTools()).tools)).to.deep.equal(all.filter((name) => tools.find((t) => t.name === name)!.toolsets.some((s) => ['payables', 'taxes', 'accounts'].includes(s))));
    expect(all).to.not.include('finance_taxes_list');
    // Named by the view yet not permitted: refused exactly as without the view.
    const withView = await viewed.callTool({ name: 'finance_taxes_list', arguments: { workspace_id: DEMO.workspaces.matriz } });
    const without = await plain.callTool({ name: 'finance_taxes_list', arguments: { workspace_id: DEMO.workspaces.matriz } });
    expect(withView.isError).to.equal(true);
    expect(withView.content).to.deep.equal(without.content);
  });

  it('refuses an unknown toolset, a read-only value other than true/false and an unknown schema form with 400 and -32602', async function () {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
    const body = {
      jsonrpc: '2.0', id: 7, method: 'tools/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    };
    const headers = { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' };
    const unknown = await postMcp(`${app.url}/mcp?toolsets=payables,bogus`, body, headers);
    expect(unknown.status).to.equal(400);
    const error = (unknown.json as { id: unknown; error: { code: number; message: string; data: { accepted: { toolsets: string[] } } } });
    expect(error.id).to.equal(7);
    expect(error.error.code).to.equal(-32602);
    expect(error.error.message).to.equal('Unknown toolset: bogus');
    expect(error.error.data.accepted.toolsets).to.include.members(['payables', 'receivables', 'taxes']);
    for (const [query, extra] of [['?read_only=yes', {}], ['?schema=claude', {}], ['', { 'x-mcp-readonly': 'maybe' }], ['?schema=openai', { 'x-mcp-schema': 'gemini' }]] as const) {
      const response = await postMcp(`${app.url}/mcp${query}`, body, { ...headers, ...extra });
      expect(response.status, query).to.equal(400);
      expect((response.json as { error: { code: number } }).error.code).to.equal(-32602);
    }
    // The SDK client surfaces it at connect time, not as an empty list later.
    let refused: unknown = null;
    try {
      await connect(token, '?toolsets=bogus');
    } catch (caught) {
      refused = caught;
    }
    expect(refused).to.be.instanceOf(Error);
  });

  it('?schema=openai serves the OpenAI-strict inputSchema and decodes arguments written in it', async function () {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
    const client = await connect(token, '?schema=openai&toolsets=payables');
    const listed = (await client.listTools()).tools;
    const list = tools.find((t) => t.name === 'finance_payables_list')!;
    expect(listed.find((t) => t.name === list.name)?.inputSchema).to.deep.equal(toSchemaProfile('openai', list.inputSchema).schema);
    // Every optional argument sent as null (absent), as a strict client must.
    const args: Record<string, unknown> = {};
    for (const name of Object.keys(toSchemaProfile('openai', list.inputSchema).schema['properties'] as object)) args[name] = null;
    args['workspace_id'] = DEMO.workspaces.matriz;
    args['limit'] = 3;
    const result = await client.callTool({ name: list.name, arguments: args });
    expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
    expect((result.structuredContent as { data: unknown[] }).data).to.have.length(3);
  });
});
