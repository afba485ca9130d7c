/**
 * Real MCP clients against the real app over loopback: @modelcontextprotocol/client v2
 * (2026-07-28 pinned and `auto`) and @modelcontextprotocol/sdk v1 (2025-06-18, 2025-03-26).
 * Each connects with a minted token, lists tools, calls finance_payables_list with filters and
 * fields, and follows next_cursor to the end.
 */
import { expect } from 'chai';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEMO } from '../../src/seed/ids.js';
import { ALL_READ, startTestApp, type TestApp } from './support/app.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';

interface ListPage { data: Record<string, unknown>[]; meta: { next_cursor: string | null } }

/** What any of the clients needs for the scenario. */
interface ScenarioClient {
  listToolNames(): Promise<string[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; content: { type: string; text?: string }[] }>;
  protocolVersion(): string | undefined;
  close(): Promise<void>;
}

/** A fetch that rewrites the initialize request to ask for `version` (the v1 SDK always offers its latest). */
function fetchAskingVersion(version: string): typeof fetch {
  return async (input, init) => {
    if (init?.body && typeof init.body === 'string' && init.body.includes('"method":"initialize"')) {
      const message = JSON.parse(init.body) as { params: { protocolVersion: string } };
      message.params.protocolVersion = version;
      return fetch(input, { ...init, body: JSON.stringify(message) });
    }
    return fetch(input, init);
  };
}

/** `version` undefined: the SDK's own offer (its latest, 2025-11-25), which the server answers with 2025-06-18. */
async function connectLegacy(url: string, token: string, version: string | undefined): Promise<ScenarioClient> {
  const transport = new LegacyTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: connectionRetryingFetch(version ? fetchAskingVersion(version) : fetch),
  });
  const client = new LegacyClient({ name: 'kobana-test-v1', version: '1.0.0' });
  await client.connect(transport);
  return {
    listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as never,
    protocolVersion: () => transport.protocolVersion,
    close: () => client.close(),
  };
}

async function connectModern(url: string, token: string, mode: 'auto' | { pin: string }): Promise<ScenarioClient> {
  const transport = new ModernTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: connectionRetryingFetch() });
  const client = new ModernClient({ name: 'kobana-test-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return {
    listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as never,
    protocolVersion: () => transport.protocolVersion,
    close: () => client.close(),
  };
}

async function readAllPendingPayables(client: ScenarioClient): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const args: Record<string, unknown> = {
      workspace_id: DEMO.workspaces.matriz,
      filters: { status: 'pending' },
      fields: ['description', 'amount', 'due_date'],
      limit: 7,
      ...(cursor ? { cursor } : {}),
    };
    const result = await client.callTool('finance_payables_list', args);
    expect(result.isError, result.content[0]?.text).not.to.equal(true);
    const body = JSON.parse(result.content[0]?.text ?? '') as ListPage;
    rows.push(...body.data);
    cursor = body.meta.next_cursor;
    if (cursor === null) return rows;
  }
  throw new Error('next_cursor never ended');
}

const configurations: { name: string; era: string; connect: (url: string, token: string) => Promise<ScenarioClient> }[] = [
  { name: '@modelcontextprotocol/client v2 pinned to 2026-07-28', era: '2026-07-28', connect: (u, t) => connectModern(u, t, { pin: '2026-07-28' }) },
  { name: '@modelcontextprotocol/client v2 in auto mode', era: '2026-07-28', connect: (u, t) => connectModern(u, t, 'auto') },
  { name: '@modelcontextprotocol/sdk v1 at 2025-06-18', era: '2025-06-18', connect: (u, t) => connectLegacy(u, t, '2025-06-18') },
  { name: '@modelcontextprotocol/sdk v1 offering its latest (2025-11-25)', era: '2025-06-18', connect: (u, t) => connectLegacy(u, t, undefined) },
  { name: '@modelcontextprotocol/sdk v1 at 2025-03-26', era: '2025-03-26', connect: (u, t) => connectLegacy(u, t, '2025-03-26') },
];

describe('real MCP clients', function () {
  let app: TestApp;
  let token: string;
  let expectedCount: number;

  before(async function () {
    app = await startTestApp();
    token = await app.mintToken({ person: 'ana@demo.test', scope: ALL_READ });
    const row = await app.services.db.selectFrom('titles').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable').where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    expectedCount = Number(row.n);
  });
  after(async () => app?.close());

  for (const configuration of configurations) {
    it(`${configuration.name}: connects, lists tools and pages finance_payables_list to the end`, async function () {
      const client = await configuration.connect(`${app.url}/mcp`, token);
      try {
        expect(client.protocolVersion()).to.equal(configuration.era);
        const names = await client.listToolNames();
        expect(names).to.include('finance_payables_list');
        expect(names).to.deep.equal([...names].sort());
        const rows = await readAllPendingPayables(client);
        expect(expectedCount).to.be.greaterThan(7);
        expect(rows).to.have.length(expectedCount);
        expect(new Set(rows.map((r) => r['id'])).size).to.equal(expectedCount);
        for (const r of rows) expect(Object.keys(r).sort()).to.deep.equal(['amount', 'description', 'due_date', 'id']);
      } finally {
        await client.close();
      }
    });
  }
});
