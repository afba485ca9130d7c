/**
 * Issue 27, Build 8 and 10 (docs/security.md#oauth-login): the 401 challenge offers the write
 * scopes, so SDK v2 asks for them; the consent page still grants reads unless the person ticks
 * "Also allow these changes" (unticked it reads and cannot write, and the refusal says how to get
 * the write scope; ticked it writes); every authorization asking for writes shows the consent
 * page, even when a grant exists; a grant that asks for nothing new is reused until it expires by
 * the app's clock (moved, never slept past); the consent page for `finance.all.write` is at most
 * six consistent lines.
 */
import { expect } from 'chai';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createManualClock } from '../helpers/clock.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';
import { DEMO } from '../../src/seed/ids.js';
import { DEMO_PASSWORD } from '../../src/oauth/index.js';
import { MemoryOAuthProvider, REDIRECT_URI } from './support/client-provider.js';
import { CookieJar, actAsPerson } from './support/user-agent.js';
import { authorize, exchangeCode, registerClient } from './support/flow.js';
import { accessLines, expectConsistentLines } from './support/consent-page.js';

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[] };

/** SDK v2 (version negotiation auto) connected with the provider's tokens; throws UnauthorizedError once it has redirected. */
async function connect(app: TestApp, provider: MemoryOAuthProvider) {
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: provider as never, fetch: connectionRetryingFetch() });
  const client = new Client({ name: 'kobana-oauth-writes', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport);
  return {
    call: async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}

/** The SDK's authorization: connect → 401 → its redirect; the person answers; the SDK exchanges the code. */
async function logIn(app: TestApp, provider: MemoryOAuthProvider, jar: CookieJar, allowWrites: boolean): Promise<string[]> {
  let refused: unknown;
  try {
    await connect(app, provider);
  } catch (err) {
    refused = err;
  }
  expect(refused, String(refused)).to.be.instanceOf(UnauthorizedError);
  const url = provider.authorizationUrl as URL;
  expect(url.searchParams.get('scope')?.split(' ')).to.include.members(['finance.all', 'finance.all.write']);
  const { callback, pages } = await actAsPerson(url, REDIRECT_URI, { email: 'ana@demo.test', password: DEMO_PASSWORD, decision: 'approve', allowWrites }, { jar });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { authProvider: provider as never, fetch: connectionRetryingFetch() });
  await transport.finishAuth(callback.searchParams as never);
  return pages;
}

/** The scope of the access token the SDK stored. */
const scopeOf = (provider: MemoryOAuthProvider): string[] => String(decodeJwt(provider.storedTokens?.access_token ?? '').scope).split(' ').sort();

const createCategory = (name: string) => ({ workspace_id: DEMO.workspaces.matriz, name, type: 'debit' });

describe('OAuth with write scopes: SDK v2, the consent page, the tick (issue 27 item 8)', function () {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app?.close();
  });

  it('the challenge offers the write scopes; unticked it reads and cannot write; asking again shows the consent page; ticked it writes', async () => {
    const challenge = (await fetch(`${app.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).headers.get('www-authenticate');
    expect(challenge).to.include('scope="finance.all finance.all.write"');

    const provider = new MemoryOAuthProvider('Writer');
    const jar = new CookieJar();
    const first = await logIn(app, provider, jar, false);
    expect(first.map((page) => /<h1>([^<]+)<\/h1>/.exec(page)?.[1])).to.deep.equal(['Sign in', 'Authorize access']);
    expectConsistentLines(accessLines(first[1] as string));
    expect(first[1]).to.include('name="allow_writes"');
    expect(scopeOf(provider)).to.deep.equal(['finance.all']);

    const reader = await connect(app, provider);
    try {
      expect((await reader.call('finance_categories_list', { workspace_id: DEMO.workspaces.matriz, limit: 1 })).isError).to.not.equal(true);
      const refused = await reader.call('finance_categories_create', createCategory('Never created'));
      expect(refused.isError).to.equal(true);
      const { error } = JSON.parse(refused.content[0]?.text as string) as { error: { code: string; message: string } };
      expect(error.code).to.equal('insufficient_scope');
      expect(error.message).to.include('reconnect').and.include('Also allow these changes').and.include('personal token');
    } finally {
      await reader.close();
    }

    // Reconnecting: signed in already (the session), the authorization asks for writes again: the consent page.
    provider.storedTokens = undefined;
    const second = await logIn(app, provider, jar, true);
    expect(second.map((page) => /<h1>([^<]+)<\/h1>/.exec(page)?.[1])).to.deep.equal(['Authorize access']);
    expect(scopeOf(provider)).to.deep.equal(['finance.all', 'finance.all.write']);
    const writer = await connect(app, provider);
    try {
      const created = await writer.call('finance_categories_create', createCategory('Created through OAuth'));
      expect(created.isError, created.content[0]?.text).to.not.equal(true);
      expect(created.content[0]?.text).to.include('Created through OAuth');
    } finally {
      await writer.close();
    }
  });
});

describe('insufficient_scope names the way to a missing scope that fits the token', function () {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app?.close();
  });

  const refusal = async (token: string, tool: string, args: Record<string, unknown>) => {
    const response = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
    });
    const { result } = (await response.json()) as { result: ToolResult };
    expect(result.isError).to.equal(true);
    return (JSON.parse(result.content[0]?.text as string) as { error: { code: string; message: string } }).error;
  };

  it('a personal token is told to use a personal token with the scope; a missing read scope gets no advice', async () => {
    const personal = await app.mintToken({ person: 'ana@demo.test', scope: 'finance.all', type: 'personal' });
    const write = await refusal(personal, 'finance_categories_create', createCategory('Never created'));
    expect(write.code).to.equal('insufficient_scope');
    expect(write.message).to.include('personal token').and.not.include('reconnect');
    const narrow = await app.mintToken({ person: 'ana@demo.test', scope: 'finance.payables', type: 'oauth' });
    const read = await refusal(narrow, 'finance_categories_list', { workspace_id: DEMO.workspaces.matriz });
    expect(read.code).to.equal('insufficient_scope');
    expect(read.message).to.not.include('personal token').and.not.include('reconnect');
  });
});

describe('a grant is reused only for reads, and only until it expires by the app clock (issue 27 item 10)', function () {
  let app: TestApp;
  let clientId: string;
  const clock = createManualClock();
  before(async () => {
    app = await startTestApp({ clock });
    // A web client (no application_type): oidc-provider would reuse its grants without asking.
    clientId = (await registerClient(app.url)).client_id;
  });
  after(async () => {
    await app?.close();
  });

  const headings = (pages: readonly string[]) => pages.map((page) => /<h1>([^<]+)<\/h1>/.exec(page)?.[1]);

  it('reads granted once are reused silently; a request with writes, even already granted ones, shows the consent page every time', async () => {
    const jar = new CookieJar();
    const reads = await authorize(app.url, clientId, { scope: 'finance.all', userAgent: { jar } });
    expect(headings(reads.pages)).to.deep.equal(['Sign in', 'Authorize access']);
    const again = await authorize(app.url, clientId, { scope: 'finance.all', prompt: null, userAgent: { jar } });
    expect(headings(again.pages), 'nothing new asked: no page').to.deep.equal([]);
    expect((await exchangeCode(app.url, clientId, again)).scope).to.equal('finance.all');

    const writes = { scope: 'finance.all finance.all.write', prompt: null, userAgent: { jar } } as const;
    const ticked = await authorize(app.url, clientId, { ...writes, person: { allowWrites: true } });
    expect(headings(ticked.pages), 'writes asked: the consent page').to.deep.equal(['Authorize access']);
    expect((await exchangeCode(app.url, clientId, ticked)).scope).to.equal('finance.all finance.all.write');
    const unticked = await authorize(app.url, clientId, writes);
    expect(headings(unticked.pages), 'writes granted before: the consent page again').to.deep.equal(['Authorize access']);
    expect((await exchangeCode(app.url, clientId, unticked)).scope, 'left unticked this time: reads').to.equal('finance.all');
    const silent = await authorize(app.url, clientId, { scope: 'finance.all finance.all.write', prompt: 'none', userAgent: { jar } });
    expect(silent.callback.searchParams.get('error'), 'prompt=none cannot skip it').to.equal('consent_required');
  });

  it('the grant expires by the app clock: 14 days on, the person signs in and consents again', async () => {
    const jar = new CookieJar();
    await authorize(app.url, clientId, { scope: 'finance.all', userAgent: { jar } });
    expect(headings((await authorize(app.url, clientId, { scope: 'finance.all', prompt: null, userAgent: { jar } })).pages)).to.deep.equal([]);
    clock.advance(14 * 86_400_000 + 60_000);
    const later = await authorize(app.url, clientId, { scope: 'finance.all', prompt: null, userAgent: { jar } });
    expect(headings(later.pages)).to.deep.equal(['Sign in', 'Authorize access']);
    expect((await exchangeCode(app.url, clientId, later)).scope).to.equal('finance.all');
  });

  it('the consent page for finance.all.write: at most six lines, grouped, none contradicting another', async () => {
    const outcome = await authorize(app.url, clientId, { scope: 'finance.all.write offline_access', person: { decision: 'deny' } });
    const lines = accessLines(outcome.pages[1] as string);
    expectConsistentLines(lines);
    expect(lines[0]).to.equal('Nothing beyond knowing who you are.');
    expect(lines[1]).to.match(/^Create, change, delete and pay all finance records, money included \(only if you tick/);
    // Every scope a client may ask for at once (the protected-resource metadata's list): still six lines at most.
    const everything = (await (await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { scopes_supported: string[] };
    const all = await authorize(app.url, clientId, { scope: `${everything.scopes_supported.join(' ')} offline_access`, person: { decision: 'deny' } });
    const allLines = accessLines(all.pages[1] as string);
    expectConsistentLines(allLines);
    expect(allLines.slice(0, 2)).to.deep.equal([
      'See all finance records and reports.',
      'Create, change, delete and pay all finance records, money included (only if you tick “Also allow these changes”).',
    ]);
    const some = await authorize(app.url, clientId, { scope: 'finance.payables finance.receivables finance.payables.write finance.money.write', person: { decision: 'deny' } });
    const someLines = accessLines(some.pages[1] as string);
    expectConsistentLines(someLines);
    expect(someLines.slice(0, 3)).to.deep.equal([
      'See payables and receivables.',
      'Create, change and delete payables (only if you tick “Also allow these changes”).',
      'Move money: settle and reopen titles, make transfers and reconciliations (only if you tick “Also allow these changes”).',
    ]);
  });
});
