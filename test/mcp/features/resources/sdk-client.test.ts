/**
 * Real MCP clients against the providers: @modelcontextprotocol/client v2 (2026-07-28) and
 * @modelcontextprotocol/sdk v1 (2025-06-18) list templates, read a template resource, get a
 * prompt and complete an argument, validating every result with their own schemas.
 */
import { expect } from 'chai';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEMO, startResourceStack, type ResourceStack } from './support.js';
import { connectionRetryingFetch } from '../../../helpers/connection-retry.js';

describe('MCP resources and prompts through the SDK clients', function () {
  let stack: ResourceStack;
  let token: string;
  let payableId: string;

  before(async function () {
    stack = await startResourceStack();
    token = await stack.token('ana');
    payableId = (await stack.app.services.db.selectFrom('titles').select('id')
      .where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable').orderBy('id').executeTakeFirstOrThrow()).id;
  });
  after(async () => stack?.close());

  it('@modelcontextprotocol/client v2 (2026-07-28) reads a template resource, gets a prompt and completes', async function () {
    const transport = new ModernTransport(new URL(stack.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: connectionRetryingFetch() });
    const client = new ModernClient({ name: 'kobana-resources-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).to.equal('2026-07-28');
      const templates = await client.listResourceTemplates();
      expect(templates.resourceTemplates.map((t) => t.uriTemplate)).to.include('kobana://finance/payables/{id}');
      const uri = `kobana://finance/payables/${payableId}?workspace_id=${DEMO.workspaces.matriz}`;
      const read = await client.readResource({ uri });
      const first = read.contents[0] as { uri: string; text: string };
      expect(first.uri).to.equal(uri);
      expect(JSON.parse(first.text)).to.include({ id: payableId });
      const prompt = await client.getPrompt({ name: 'review_overdue_payables', arguments: { workspace: DEMO.workspaces.matriz } });
      expect(prompt.messages.length).to.be.greaterThan(1);
      expect(JSON.stringify(prompt.messages)).to.include('finance_payables_list');
      const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'review_overdue_payables' }, argument: { name: 'workspace', value: 'Mat' } });
      expect(completion.completion.values).to.deep.equal([DEMO.workspaces.matriz]);
      const resources = await client.listResources();
      expect(resources.resources.map((r) => r.uri)).to.include('kobana://finance/guide');
    } finally {
      await client.close();
    }
  });

  it('@modelcontextprotocol/sdk v1 (2025-06-18) reads a template resource and gets a prompt', async function () {
    const transport = new LegacyTransport(new URL(stack.mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: connectionRetryingFetch() });
    const client = new LegacyClient({ name: 'kobana-resources-v1', version: '1.0.0' });
    await client.connect(transport);
    try {
      const uri = `kobana://finance/payables/${payableId}?workspace_id=${DEMO.workspaces.matriz}`;
      const read = await client.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).to.include({ id: payableId });
      const prompts = await client.listPrompts();
      expect(prompts.prompts).to.have.length(5);
      const prompt = await client.getPrompt({ name: 'month_close_checklist', arguments: { workspace: 'Matriz', month: '2026-01' } });
      expect(prompt.messages[0]?.role).to.equal('user');
      await client.readResource({ uri: `kobana://finance/payables/00000000-0000-4000-8000-00000000dead?workspace_id=${DEMO.workspaces.matriz}` })
        .then(() => expect.fail('read of a missing record succeeded'), (error: { code?: number }) => expect(error.code).to.equal(-32002));
    } finally {
      await client.close();
    }
  });
});
