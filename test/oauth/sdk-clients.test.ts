/**
 * Issue 19, "Done when" 1: the official MCP SDK clients log in through the embedded Account
 * with their own OAuth support, against a started server (its own process, src/main.ts, as
 * `npm start` runs it) — 401 → RFC 9728
 * metadata → RFC 8414 metadata → dynamic registration → authorization (the test signs in and
 * approves through the real pages) → token → tools/list → a tool call; the refresh token works
 * (and rotates); a denied consent yields no token.
 */
import { expect } from 'chai';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport, UnauthorizedError as ModernUnauthorized, auth as modernAuth } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError as LegacyUnauthorized, auth as legacyAuth } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { DEMO, DEMO_ORG_ID } from '../../src/seed/ids.js';
import { DEMO_PASSWORD } from '../../src/oauth/index.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { MemoryOAuthProvider, REDIRECT_URI } from './support/client-provider.js';
import { actAsPerson } from './support/user-agent.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';

interface Connected {
  listTools(): Promise<string[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; content: { type: string; text?: string }[] }>;
  close(): Promise<void>;
}

interface Generation {
  readonly label: string;
  /** Connects with the provider; throws the SDK's UnauthorizedError once it has redirected. */
  connect(url: string, provider: MemoryOAuthProvider): Promise<Connected>;
  finish(url: string, provider: MemoryOAuthProvider, callback: URL): Promise<void>;
  refresh(url: string, provider: MemoryOAuthProvider): Promise<string>;
  isUnauthorized(err: unknown): boolean;
}

const modern = (mode: 'auto' | { pin: string }): Generation => ({
  label: `SDK v2 (${typeof mode === 'string' ? mode : `pinned ${mode.pin}`})`,
  async connect(url, provider) {
    const transport = new ModernTransport(new URL(`${url}/mcp`), { authProvider: provider as never, fetch: connectionRetryingFetch() });
    const client = new ModernClient({ name: 'kobana-oauth-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
    await client.connect(transport);
    return {
      listTools: async () => (await client.listTools()).tools.map((t) => t.name),
      callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as never,
      close: () => client.close(),
    };
  },
  async finish(url, provider, callback) {
    const transport = new ModernTransport(new URL(`${url}/mcp`), { authProvider: provider as never, fetch: connectionRetryingFetch() });
    await transport.finishAuth(callback.searchParams as never);
  },
  refresh: (url, provider) => modernAuth(provider as never, { serverUrl: new URL(`${url}/mcp`) }) as Promise<string>,
  isUnauthorized: (err) => err instanceof ModernUnauthorized,
});

const legacy: Generation = {
  label: 'SDK v1',
  async connect(url, provider) {
    const transport = new LegacyTransport(new URL(`${url}/mcp`), { authProvider: provider as never, fetch: connectionRetryingFetch() });
    const client = new LegacyClient({ name: 'kobana-oauth-v1', version: '1.0.0' });
    await client.connect(transport);
    return {
      listTools: async () => (await client.listTools()).tools.map((t) => t.name),
      callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as never,
      close: () => client.close(),
    };
  },
  async finish(url, provider, callback) {
    const transport = new LegacyTransport(new URL(`${url}/mcp`), { authProvider: provider as never, fetch: connectionRetryingFetch() });
    await transport.finishAuth(callback.searchParams.get('code') as string);
  },
  refresh: (url, provider) => legacyAuth(provider as never, { serverUrl: new URL(`${url}/mcp`) }),
  isUnauthorized: (err) => err instanceof LegacyUnauthorized,
};

describe('OAuth login with the official MCP SDK clients (embedded Account)', function () {
  let app: ServerProcess;
  before(async () => {
    app = await startServerProcess();
  });
  after(async () => {
    await app?.stop();
  });

  it('SDK v2: a denied consent yields no token', async () => {
    const generation = modern('auto');
    const provider = new MemoryOAuthProvider('Denied client');
    let err: unknown;
    try {
      await generation.connect(app.url, provider);
    } catch (e) {
      err = e;
    }
    expect(generation.isUnauthorized(err), String(err)).to.equal(true);
    const { callback } = await actAsPerson(provider.authorizationUrl as URL, REDIRECT_URI, { email: 'ana@demo.test', password: DEMO_PASSWORD, decision: 'deny' });
    expect(callback.searchParams.get('error')).to.equal('access_denied');
    expect(callback.searchParams.has('code')).to.equal(false);
    let finished: unknown;
    try {
      await generation.finish(app.url, provider, callback);
    } catch (e) {
      finished = e;
    }
    expect(finished, 'finishAuth refuses a callback without a code').to.be.instanceOf(Error);
    expect(provider.storedTokens).to.equal(undefined);
  });

  for (const generation of [modern('auto'), modern({ pin: '2026-07-28' }), legacy]) {
    it(`${generation.label}: discovery, registration, sign-in and consent, token, tools/list, a call, refresh`, async () => {
      const provider = new MemoryOAuthProvider(`Test client ${generation.label}`);
      let err: unknown;
      try {
        await generation.connect(app.url, provider);
      } catch (e) {
        err = e;
      }
      expect(generation.isUnauthorized(err), String(err)).to.equal(true);
      expect(provider.clientInfo?.client_id, 'registered').to.be.a('string');
      const authorizationUrl = provider.authorizationUrl as URL;
      expect(authorizationUrl.origin + authorizationUrl.pathname).to.equal(`${app.url}/authorize`);
      expect(authorizationUrl.searchParams.get('code_challenge_method')).to.equal('S256');
      expect(authorizationUrl.searchParams.get('resource')).to.equal(`${app.url}/mcp`);

      const { callback, pages } = await actAsPerson(authorizationUrl, REDIRECT_URI, { email: 'ana@demo.test', password: DEMO_PASSWORD, decision: 'approve' });
      expect(pages[0]).to.include('Sign in');
      expect(pages[1]).to.include(`Test client ${generation.label}`).and.include('Matriz').and.include('See all finance records');
      expect(callback.searchParams.get('state')).to.equal(provider.state());
      await generation.finish(app.url, provider, callback);

      const token = provider.storedTokens?.access_token as string;
      expect(decodeProtectedHeader(token)).to.include({ typ: 'at+jwt', alg: 'ES256' });
      const claims = decodeJwt(token);
      expect(claims).to.include({ iss: app.url, aud: `${app.url}/mcp`, sub: DEMO.persons.ana, org: DEMO_ORG_ID, token_type: 'oauth' });
      expect(String(claims.scope).split(' ')).to.include('finance.all').and.not.include('finance.all.write');
      expect(provider.storedTokens?.refresh_token).to.be.a('string');

      const client = await generation.connect(app.url, provider);
      try {
        expect(await client.listTools()).to.include('finance_payables_list');
        const result = await client.callTool('finance_payables_list', { workspace_id: DEMO.workspaces.matriz, limit: 1 });
        expect(result.isError, result.content[0]?.text).not.to.equal(true);
      } finally {
        await client.close();
      }

      const oldRefresh = provider.storedTokens?.refresh_token;
      expect(await generation.refresh(app.url, provider)).to.equal('AUTHORIZED');
      expect(provider.storedTokens?.access_token).to.be.a('string').and.not.equal(token);
      expect(provider.storedTokens?.refresh_token).to.be.a('string').and.not.equal(oldRefresh);
      const again = await generation.connect(app.url, provider);
      try {
        expect(await again.listTools()).to.include('finance_payables_list');
      } finally {
        await again.close();
      }
    });
  }
});
