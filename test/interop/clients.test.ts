/**
 * The client interop matrix (issue 10): four real MCP client configurations — the v2
 * `@modelcontextprotocol/client` pinned to 2026-07-28 and in `auto` mode, the v1
 * `@modelcontextprotocol/sdk` at 2025-06-18 and at 2025-03-26 — each run the same scenario
 * against the real app over loopback HTTP: connect with a token, list tools, call a read tool
 * with filters and fields, follow next_cursor to the end, read a template resource, get a
 * prompt, complete an argument, and call a destructive tool (modern: confirmed through the
 * client's elicitation handler; 2025: `confirmation_required`, nothing changes).
 * Narrower per-feature client tests live in test/mcp (resources, prompts and completions in
 * test/mcp/features) and test/confirmation.
 */
import { expect } from 'chai';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { DEMO } from '../../src/seed/ids.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { countPendingPayables, fetchAskingVersion, pickPendingPayable, readPayableStatus } from './support.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';

interface ToolSummary { name: string; annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean } }
interface ToolResult { isError?: boolean; content: { type: string; text?: string }[] }
interface CompleteArgs { ref: { type: 'ref/prompt'; name: string }; argument: { name: string; value: string } }

/** What the scenario needs from any client, whatever its SDK generation. */
interface InteropClient {
  protocolVersion(): string | undefined;
  listTools(): Promise<ToolSummary[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  readResource(uri: string): Promise<{ uri: string; mimeType?: string; text?: string }[]>;
  getPrompt(name: string, args: Record<string, string>): Promise<{ role: string; content: unknown }[]>;
  complete(request: CompleteArgs): Promise<string[]>;
  /** The messages of every `elicitation/create` the server made the client answer. */
  readonly asked: string[];
  close(): Promise<void>;
}

/** Matriz is the connection default (X-Workspace-Id), so URIs and calls need no workspace argument. */
function buildHeaders(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}`, 'X-Workspace-Id': DEMO.workspaces.matriz };
}

/** The person's answer to every confirmation: yes. */
const ACCEPT = { action: 'accept', content: { confirm: true } } as const;

async function connectModern(url: string, token: string, mode: 'auto' | { pin: string }): Promise<InteropClient> {
  const transport = new ModernTransport(new URL(url), { requestInit: { headers: buildHeaders(token) }, fetch: connectionRetryingFetch() });
  const client = new ModernClient(
    { name: 'kobana-interop-v2', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  const asked: string[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push((request.params as { message: string }).message);
    return ACCEPT as never;
  });
  await client.connect(transport);
  return {
    protocolVersion: () => transport.protocolVersion,
    listTools: async () => (await client.listTools()).tools as ToolSummary[],
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    readResource: async (uri) => (await client.readResource({ uri })).contents as { uri: string; text?: string }[],
    getPrompt: async (name, args) => (await client.getPrompt({ name, arguments: args })).messages,
    complete: async (request) => (await client.complete(request)).completion.values,
    asked,
    close: () => client.close(),
  };
}

async function connectLegacy(url: string, token: string, version: string): Promise<InteropClient> {
  const transport = new LegacyTransport(new URL(url), { requestInit: { headers: buildHeaders(token) }, fetch: connectionRetryingFetch(fetchAskingVersion(version)) });
  // Declares elicitation too, to show a 2025 server answers confirmation_required even so.
  const client = new LegacyClient({ name: 'kobana-interop-v1', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return ACCEPT;
  });
  await client.connect(transport);
  return {
    protocolVersion: () => transport.protocolVersion,
    listTools: async () => (await client.listTools()).tools as ToolSummary[],
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult,
    readResource: async (uri) => (await client.readResource({ uri })).contents as { uri: string; text?: string }[],
    getPrompt: async (name, args) => (await client.getPrompt({ name, arguments: args })).messages,
    complete: async (request) => (await client.complete(request)).completion.values,
    asked,
    close: () => client.close(),
  };
}

interface Configuration {
  readonly name: string;
  /** The revision the connection must end up speaking. */
  readonly version: string;
  /** Whether destructive tools are confirmed through elicitation (modern era) or refused. */
  readonly confirms: boolean;
  connect(url: string, token: string): Promise<InteropClient>;
}

const CONFIGURATIONS: readonly Configuration[] = [
  { name: '@modelcontextprotocol/client (v2) pinned to 2026-07-28', version: '2026-07-28', confirms: true, connect: (u, t) => connectModern(u, t, { pin: '2026-07-28' }) },
  { name: '@modelcontextprotocol/client (v2) in auto mode', version: '2026-07-28', confirms: true, connect: (u, t) => connectModern(u, t, 'auto') },
  { name: '@modelcontextprotocol/sdk (v1) at 2025-06-18', version: '2025-06-18', confirms: false, connect: (u, t) => connectLegacy(u, t, '2025-06-18') },
  { name: '@modelcontextprotocol/sdk (v1) at 2025-03-26', version: '2025-03-26', confirms: false, connect: (u, t) => connectLegacy(u, t, '2025-03-26') },
];

const LIST_FIELDS = ['description', 'amount', 'due_date', 'status'];
const PAGE_SIZE = 7;

function parseToolJson(result: ToolResult): Record<string, unknown> {
  const text = result.content[0]?.type === 'text' ? result.content[0].text : undefined;
  expect(text, JSON.stringify(result)).to.be.a('string');
  return JSON.parse(text as string) as Record<string, unknown>;
}

/** finance_payables_list with a filter and a field selection, following next_cursor to the end. */
async function listPendingPayables(client: InteropClient): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const args: Record<string, unknown> = { filters: { status: 'pending' }, fields: LIST_FIELDS, limit: PAGE_SIZE, sort_by: 'due_date' };
    if (cursor !== null) args['cursor'] = cursor;
    const result = await client.callTool('finance_payables_list', args);
    expect(result.isError, JSON.stringify(result)).to.not.equal(true);
    const body = parseToolJson(result) as { data: Record<string, unknown>[]; meta: { next_cursor: string | null } };
    expect(body.data.length).to.be.at.most(PAGE_SIZE);
    rows.push(...body.data);
    cursor = body.meta.next_cursor;
    if (cursor === null) return rows;
  }
  throw new Error('next_cursor never reached null');
}

/** tools/list, then finance_payables_list with a filter and fields, every page. */
async function checkTools(app: TestApp, client: InteropClient): Promise<void> {
  // tools/list: the read and the destructive tool, with their annotations.
  const tools = await client.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  expect(byName.get('finance_payables_list')?.annotations).to.include({ readOnlyHint: true });
  expect(byName.get('finance_payables_cancel')?.annotations).to.include({ destructiveHint: true, readOnlyHint: false });

  // tools/call of a read tool with filters and fields, every page.
  const expected = await countPendingPayables(app.services.db);
  expect(expected, 'the demo data must need more than one page').to.be.greaterThan(PAGE_SIZE);
  const rows = await listPendingPayables(client);
  expect(rows).to.have.length(expected);
  expect(new Set(rows.map((row) => row['id'])).size).to.equal(expected);
  for (const row of rows) {
    expect(Object.keys(row).sort()).to.deep.equal(['id', ...LIST_FIELDS].sort());
    expect(row['status']).to.equal('pending');
  }
  const dueDates = rows.map((row) => String(row['due_date']));
  expect(dueDates).to.deep.equal([...dueDates].sort());
}

/** resources/read of a template resource, prompts/get and completion/complete. */
async function checkResourcesAndPrompts(client: InteropClient, target: string): Promise<void> {
  const uri = `kobana://finance/payables/${target}`;
  const contents = await client.readResource(uri);
  expect(contents).to.have.length(1);
  expect(contents[0]?.uri).to.equal(uri);
  expect(JSON.parse(contents[0]?.text ?? '{}')).to.include({ id: target, status: 'pending' });

  // prompts/get.
  const messages = await client.getPrompt('review_overdue_payables', { workspace: 'Matriz' });
  expect(messages.length).to.be.greaterThan(0);
  expect(messages[0]?.role).to.equal('user');
  expect(JSON.stringify(messages)).to.include('finance_payables_list');

  // completion/complete of a prompt argument.
  const values = await client.complete({ ref: { type: 'ref/prompt', name: 'review_overdue_payables' }, argument: { name: 'workspace', value: 'Fil' } });
  expect(values).to.deep.equal([DEMO.workspaces.filial]);
}

/** A destructive tool: confirmed through the elicitation handler, or refused without a change. */
async function checkDestructive(app: TestApp, client: InteropClient, configuration: Configuration, target: string): Promise<void> {
  const result = await client.callTool('finance_payables_cancel', { id: target });
  if (configuration.confirms) {
    expect(result.isError, JSON.stringify(result)).to.not.equal(true);
    expect(client.asked).to.have.length(1);
    expect(client.asked[0]).to.be.a('string').and.not.equal('');
    expect(parseToolJson(result)).to.include({ id: target, status: 'cancelled' });
    expect(await readPayableStatus(app.services.db, target)).to.equal('cancelled');
  } else {
    expect(result.isError, JSON.stringify(result)).to.equal(true);
    expect(parseToolJson(result)).to.have.nested.property('error.code', 'confirmation_required');
    expect(client.asked).to.deep.equal([]);
    expect(await readPayableStatus(app.services.db, target)).to.equal('pending');
  }
}

async function runScenario(app: TestApp, token: string, configuration: Configuration, used: Set<string>): Promise<void> {
  const client = await configuration.connect(`${app.url}/mcp`, token);
  try {
    expect(client.protocolVersion()).to.equal(configuration.version);
    await checkTools(app, client);
    const target = await pickPendingPayable(app.services.db, used);
    await checkResourcesAndPrompts(client, target);
    await checkDestructive(app, client, configuration, target);
  } finally {
    await client.close();
  }
}

describe('MCP client interop matrix', function () {
  this.timeout(30_000);
  let app: TestApp;
  let token: string;
  /** Payables already cancelled (or attempted) by an earlier configuration. */
  const used = new Set<string>();

  before(async function () {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
  });
  after(async () => app?.close());

  for (const configuration of CONFIGURATIONS) {
    it(`${configuration.name}: lists, reads, pages, reads a resource, gets a prompt, completes and ${configuration.confirms ? 'confirms' : 'is refused'} a destructive tool`, async function () {
      await runScenario(app, token, configuration, used);
    });
  }
});
