/**
 * Error results reach real clients as errors, never as a client-side validation failure (issue
 * 27, Build 7; docs/protocol.md#tools): `@modelcontextprotocol/sdk` (v1, 1.32.x) checks a
 * result's `structuredContent` against the tool's `outputSchema` even when `isError` is set, so
 * an error carries its envelope as text only. Every tool with an `outputSchema` is called, after
 * `tools/list` (which is where the clients learn the schemas), with arguments the server refuses
 * — a workspace the caller has no access to, or an argument the tool does not take — through the
 * v1 client at 2025-06-18 and the v2 client (`@modelcontextprotocol/client`) pinned to 2026-07-28
 * and in auto mode; each answer is `isError` with the `{"error": {…}}` envelope as its text.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tools } from '../../generated/registry.gen.js';
import { DEMO } from '../../src/seed/ids.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';
import { fetchAskingVersion } from './support.js';

interface CallResult { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown }

interface ErrorClient {
  listTools(): Promise<{ name: string; outputSchema?: unknown }[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}

async function connectLegacy(url: string, token: string): Promise<ErrorClient> {
  const transport = new LegacyTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: connectionRetryingFetch(fetchAskingVersion('2025-06-18')) });
  const client = new LegacyClient({ name: 'kobana-error-results-v1', version: '1.0.0' });
  await client.connect(transport);
  return {
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult,
    close: () => client.close(),
  };
}

async function connectModern(url: string, token: string, mode: 'auto' | { pin: string }): Promise<ErrorClient> {
  const transport = new ModernTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: connectionRetryingFetch() });
  const client = new ModernClient({ name: 'kobana-error-results-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return {
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult,
    close: () => client.close(),
  };
}

const CLIENTS: readonly { readonly name: string; connect(url: string, token: string): Promise<ErrorClient> }[] = [
  { name: '@modelcontextprotocol/sdk (v1) at 2025-06-18', connect: connectLegacy },
  { name: '@modelcontextprotocol/client (v2) pinned to 2026-07-28', connect: (url, token) => connectModern(url, token, { pin: '2026-07-28' }) },
  { name: '@modelcontextprotocol/client (v2) in auto mode', connect: (url, token) => connectModern(url, token, 'auto') },
];

const typed = tools.filter((tool) => tool.output !== null);

describe('error results of tools with an outputSchema reach SDK v1 and v2 without a validation error', function () {
  this.timeout(120_000);
  let app: TestApp;
  let token: string;
  before(async () => {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
  });
  after(async () => app?.close());

  for (const configuration of CLIENTS) {
    it(configuration.name, async () => {
      const client = await configuration.connect(`${app.url}/mcp`, token);
      try {
        const listed = await client.listTools();
        const withSchema = new Set(listed.filter((tool) => tool.outputSchema !== undefined).map((tool) => tool.name));
        expect(typed.length).to.be.greaterThan(20);
        for (const tool of typed) {
          expect(withSchema.has(tool.name), `${tool.name} lists an outputSchema`).to.equal(true);
          // A workspace Ana has no access to, else an argument the tool does not take: refused before anything runs.
          const args = tool.operation.workspaceScoped ? { workspace_id: randomUUID() } : { not_an_argument: true };
          const result = await client.callTool(tool.name, args);
          expect(result.isError, `${tool.name}: ${JSON.stringify(result)}`).to.equal(true);
          expect(result, tool.name).to.not.have.property('structuredContent');
          const envelope = JSON.parse(result.content[0]?.text ?? '') as { error: { code: string; message: string } };
          expect(envelope.error.code, tool.name).to.be.oneOf(['workspace_access_denied', 'VALIDATION_ERROR']);
          expect(envelope.error.message, tool.name).to.be.a('string').that.is.not.empty;
        }
      } finally {
        await client.close();
      }
    });
  }
});
