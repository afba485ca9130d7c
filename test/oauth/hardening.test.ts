/**
 * Issue 25, Build 4: the embedded Account's OAuth server and pages, hardened
 * (docs/security.md#oauth-login). Unauthenticated registration is bounded (per address, in
 * size) and a never-used client expires (the clock is moved, never slept past); strange input
 * (NUL bytes) in the unauthenticated endpoints answers 4xx (or, for `/revoke`, RFC 7009's 200), never 500 (PostgreSQL refuses NUL in
 * text); the metadata names PUBLIC_URL whatever the request's Host, and may be cached; the
 * sign-in limit is consulted before the password (on the approval page too); the consent page
 * names a private-use redirect's app; OAuth grants never carry the Seguridad scopes, and nothing
 * an OAuth client reads offers them.
 */
import { expect } from 'chai';
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { createManualClock } from '../helpers/clock.js';
import { DEMO } from '../../src/seed/ids.js';
import { DEMO_PASSWORD, MAX_CLIENT_METADATA_BYTES } from '../../src/oauth/index.js';
import { UNUSED_CLIENT_TTL_SECONDS } from '../../src/oauth/adapter.js';
import { REGISTRATION_LIMIT_PER_HOUR } from '../../src/http/limits.js';
import { buildAuthorizationUrl, authorize, exchangeCode, register, registerClient } from './support/flow.js';
import { accessLines, expectConsistentLines } from './support/consent-page.js';

interface OAuthErrorBody { error: string; error_description: string }

/** The login page of a fresh authorization request, and what posting to it needs. */
async function openLoginPage(app: TestApp, url: URL): Promise<{ status: number; html: string; cookie: string; action: string; csrf: string }> {
  const first = await fetch(url, { redirect: 'manual' });
  const cookie = first.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const page = await fetch(new URL(first.headers.get('location') as string, app.url), { headers: { cookie } });
  const html = await page.text();
  return {
    status: page.status, html, cookie,
    action: /action="([^"]+)"/.exec(html)?.[1] ?? '',
    csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '',
  };
}

function postForm(app: TestApp, action: string, form: Record<string, string>, cookie = ''): Promise<Response> {
  return fetch(new URL(action, app.url), {
    method: 'POST', redirect: 'manual',
    headers: { cookie, origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

const challengeOf = () => createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

describe('dynamic client registration is bounded (M4)', function () {
  it(`accepts ${REGISTRATION_LIMIT_PER_HOUR} registrations per address per hour, then answers 429 with an OAuth error`, async () => {
    const app = await startTestApp();
    try {
      for (let i = 0; i < REGISTRATION_LIMIT_PER_HOUR; i++) expect((await register(app.url)).status, `registration ${i + 1}`).to.equal(201);
      const refused = await register(app.url);
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(refused.headers.get('content-type')).to.match(/application\/json/);
      const body = (await refused.json()) as OAuthErrorBody;
      expect(body.error).to.equal('temporarily_unavailable');
      expect(body.error_description).to.match(/registrations/);
    } finally {
      await app.close();
    }
  });

  describe('metadata size and unused clients', () => {
    let app: TestApp;
    const clock = createManualClock();
    before(async () => {
      app = await startTestApp({ clock });
    });
    after(async () => {
      await app?.close();
    });

    it(`refuses more than ${MAX_CLIENT_METADATA_BYTES} bytes of metadata with invalid_client_metadata, sized or streamed`, async () => {
      const big = { client_name: 'x'.repeat(40 * 1024) };
      const sized = await register(app.url, big);
      expect(sized.status).to.equal(413);
      expect(((await sized.json()) as OAuthErrorBody).error).to.equal('invalid_client_metadata');
      // No Content-Length (chunked): the metadata itself is measured.
      const text = JSON.stringify({ redirect_uris: ['http://127.0.0.1:53682/callback'], token_endpoint_auth_method: 'none', client_name: 'y'.repeat(MAX_CLIENT_METADATA_BYTES) });
      const streamed = await fetch(`${app.url}/register`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, duplex: 'half',
        body: new ReadableStream({ start(controller) { controller.enqueue(new TextEncoder().encode(text)); controller.close(); } }),
      } as RequestInit);
      expect(streamed.status).to.equal(400);
      expect(((await streamed.json()) as OAuthErrorBody).error).to.equal('invalid_client_metadata');
      expect((await register(app.url, { client_name: 'A normal client' })).status).to.equal(201);
    });

    it('a client nobody signed in with expires and is swept; a used one stays (and expired revocations go too)', async () => {
      const unused = await registerClient(app.url);
      const used = await registerClient(app.url);
      await exchangeCode(app.url, used.client_id, await authorize(app.url, used.client_id));
      const rowOf = (id: string) => app.services.db.selectFrom('oauth_records').select(['id', 'expires_at'])
        .where('model', '=', 'Client').where('id', '=', id).executeTakeFirst();
      expect((await rowOf(unused.client_id))?.expires_at).to.be.a('string');
      expect((await rowOf(used.client_id))?.expires_at).to.equal(null);

      // Revocations are swept with them, once their token can no longer be used.
      const revoked = (jti: string, inMs: number) => app.services.db.insertInto('revoked_tokens')
        .values({ jti, revoked_at: new Date(clock.now()).toISOString(), expires_at: new Date(clock.now() + inMs).toISOString() }).execute();
      await revoked('expires-soon', 3_600_000);
      await revoked('expires-late', 3 * UNUSED_CLIENT_TTL_SECONDS * 1000);

      clock.advance(UNUSED_CLIENT_TTL_SECONDS * 1000 + 60_000);
      const expired = await fetch(buildAuthorizationUrl(app.url, unused.client_id, { challenge: challengeOf() }), { redirect: 'manual' });
      expect(expired.status).to.equal(400);
      expect(await expired.text()).to.match(/client/i);
      // The used client still signs in (and its interaction's write runs the sweep, due after the move).
      const again = await authorize(app.url, used.client_id);
      expect(again.callback.searchParams.get('code')).to.be.a('string');
      expect(await rowOf(unused.client_id)).to.equal(undefined);
      expect(await rowOf(used.client_id)).to.not.equal(undefined);
      const left = await app.services.db.selectFrom('revoked_tokens').select('jti').where('jti', 'in', ['expires-soon', 'expires-late']).execute();
      expect(left.map((r) => r.jti)).to.deep.equal(['expires-late']);
    });
  });
});

describe('OAuth endpoints and pages never answer 500 to strange input, and say only what they should (L1, L2, L5)', function () {
  let app: TestApp;
  let clientId: string;
  before(async () => {
    app = await startTestApp();
    clientId = (await registerClient(app.url)).client_id;
  });
  after(async () => {
    await app?.close();
  });

  it('NUL bytes in /authorize, /token, /revoke, the resume path, the approval page and the approval-request page answer 4xx (L1)', async () => {
    const form = (params: Record<string, string>) => ({
      method: 'POST', redirect: 'manual' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString(),
    });
    const cases: Array<[string, RequestInit]> = [
      [`/authorize?client_id=%00&response_type=code&redirect_uri=${encodeURIComponent('http://127.0.0.1:53682/callback')}`, { redirect: 'manual' }],
      ['/authorize?client_id=a%00b', { redirect: 'manual' }],
      ['/authorize/%00', { redirect: 'manual' }],
      ['/token', form({ grant_type: 'authorization_code', client_id: '\u0000', code: 'x', code_verifier: 'y'.repeat(43) })],
      ['/token', form({ grant_type: 'authorization_code', client_id: clientId, code: '\u0000', code_verifier: 'y'.repeat(43), redirect_uri: 'http://127.0.0.1:53682/callback' })],
      ['/token', form({ grant_type: 'refresh_token', client_id: clientId, refresh_token: 'a\u0000b' })],
      ['/revoke', form({ token: 'x', client_id: '\u0000' })],
      ['/account/approvals/%00', {}],
      ['/account/approvals/%00', form({ csrf: 'x', email: 'ana@demo.test', password: DEMO_PASSWORD })],
      ['/account/interaction/%00', {}],
      [`/account/approval-requests/%00?workspace_id=${DEMO.workspaces.matriz}`, {}],
      [`/account/approval-requests/${DEMO.workspaces.matriz}?workspace_id=%00`, {}],
      [`/account/approval-requests/%00`, form({ csrf: 'x', workspace_id: '\u0000', step: 'review', email: 'ana@demo.test', password: DEMO_PASSWORD })],
    ];
    for (const [path, init] of cases) {
      const response = await fetch(`${app.url}${path}`, init);
      expect(response.status, `${init.method ?? 'GET'} ${path} ${String(init.body ?? '')}`).to.be.within(400, 499);
    }
    // RFC 7009 §2.2: an unknown token is answered 200, as is one that cannot exist.
    expect((await fetch(`${app.url}/revoke`, form({ token: '\u0000', client_id: clientId }))).status).to.equal(200);
    // A NUL in the sign-in form's email is a wrong email, not a failed query.
    const login = await openLoginPage(app, buildAuthorizationUrl(app.url, clientId, { challenge: challengeOf() }));
    const answer = await postForm(app, login.action, { csrf: login.csrf, email: 'ana\u0000@demo.test', password: DEMO_PASSWORD }, login.cookie);
    expect(answer.status).to.equal(401);
  });

  it('the authorization-server metadata names PUBLIC_URL whatever the Host, and may be cached (L2)', async () => {
    const port = new URL(app.url).port;
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const { headers, body } = await new Promise<{ headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const request = http.request({
          host: '127.0.0.1', port, path,
          headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
        }, (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => { text += chunk; });
          response.on('end', () => resolve({ headers: response.headers, body: text }));
        });
        request.on('error', reject);
        request.end();
      });
      const metadata = JSON.parse(body) as Record<string, string>;
      expect(metadata.issuer).to.equal(app.url);
      for (const key of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint', 'jwks_uri']) {
        expect(metadata[key], `${path} ${key}`).to.match(new RegExp(`^${app.url}/`));
      }
      expect(body).to.not.include('evil.example');
      expect(headers['cache-control'], path).to.equal('public, max-age=300');
    }
  });

  it('the consent page names the app of a private-use redirect URI, never "null" (L5)', async () => {
    const registered = await register(app.url, { redirect_uris: ['com.example.app:/callback'], application_type: 'native', client_name: 'Native app' });
    expect(registered.status).to.equal(201);
    const nativeId = ((await registered.json()) as { client_id: string }).client_id;
    const url = buildAuthorizationUrl(app.url, nativeId, { challenge: challengeOf() });
    url.searchParams.set('redirect_uri', 'com.example.app:/callback');
    const { status, html } = await openLoginPage(app, url);
    expect(status).to.equal(200);
    expect(html).to.include('returns to the app com.example.app').and.not.include('returns to null');
  });
});

describe('OAuth never grants the Seguridad scopes (I3)', function () {
  let app: TestApp;
  let clientId: string;
  before(async () => {
    app = await startTestApp();
    clientId = (await registerClient(app.url)).client_id;
  });
  after(async () => {
    await app?.close();
  });

  it('not even with "Also allow these changes" ticked: the consent page does not offer them and the token lacks them', async () => {
    const scope = 'finance.payables finance.payables.write finance.security finance.security.write offline_access';
    const outcome = await authorize(app.url, clientId, { scope, person: { allowWrites: true } });
    // Named only in the line that says the grant never reaches them.
    const lines = accessLines(outcome.pages[1] as string);
    expect(lines).to.include('Create, change and delete payables (only if you tick “Also allow these changes”).');
    expectConsistentLines(lines);
    const token = await exchangeCode(app.url, clientId, outcome);
    expect(token.scope?.split(' ').sort()).to.deep.equal(['finance.payables', 'finance.payables.write']);
    expect(String(decodeJwt(token.access_token).scope)).to.not.include('security');
    const identity = await app.services.auth.authenticator.authenticate(`Bearer ${token.access_token}`, 'mcp');
    expect([...identity.scopes].sort()).to.deep.equal(['finance.payables', 'finance.payables.write']);
  });

  it('neither the /mcp challenge, the RFC 9728 metadata nor the RFC 8414 metadata offers them', async () => {
    const challenge = (await fetch(`${app.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).headers.get('www-authenticate') ?? '';
    expect(challenge).to.include('scope="finance.all').and.not.include('finance.security');
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server']) {
      const metadata = (await (await fetch(`${app.url}${path}`)).json()) as { scopes_supported: string[] };
      expect(metadata.scopes_supported, path).to.include('finance.all').and.not.include.oneOf(['finance.security', 'finance.security.write']);
    }
    const asking = await register(app.url, { scope: 'finance.all finance.security.write' });
    expect(asking.status).to.equal(400);
    expect(((await asking.json()) as OAuthErrorBody).error).to.equal('invalid_client_metadata');
  });

  it('a client registered when the Seguridad scopes were still offered keeps signing in, without them', async () => {
    // The SDKs register with the scopes_supported they read: before issue 25 that included Seguridad.
    const registered = (await registerClient(app.url)).client_id;
    const stored = () => app.services.db.selectFrom('oauth_records').select('payload').where('model', '=', 'Client').where('id', '=', registered);
    const payload = JSON.parse((await stored().executeTakeFirstOrThrow()).payload) as Record<string, unknown>;
    await app.services.db.updateTable('oauth_records').set({ payload: JSON.stringify({ ...payload, scope: 'finance.all finance.security finance.security.write offline_access' }) })
      .where('model', '=', 'Client').where('id', '=', registered).execute();
    const outcome = await authorize(app.url, registered, { scope: 'finance.all finance.security.write offline_access', person: { allowWrites: true } });
    const token = await exchangeCode(app.url, registered, outcome);
    expect(token.scope).to.equal('finance.all');
  });

  it('the resource server drops them from an OAuth token whoever issued it; npm run token refuses them for --type oauth', async () => {
    let refused: unknown;
    try {
      await app.mintToken({ person: 'ana@demo.test', type: 'oauth', scope: 'finance.security' });
    } catch (err) {
      refused = err;
    }
    expect(String(refused)).to.match(/Seguridad/);
    const personal = await app.mintToken({ person: 'ana@demo.test', type: 'personal', scope: 'finance.security.write', aud: 'api' });
    expect([...(await app.services.auth.authenticator.authenticate(`Bearer ${personal}`, 'api')).scopes]).to.deep.equal(['finance.security.write']);
  });

  it('nor finance.approvals.write (deciding a second approval): not granted with the tick, refused by npm run token, kept on a personal token', async () => {
    const outcome = await authorize(app.url, clientId, { scope: 'finance.approvals finance.approvals.write finance.money.write offline_access', person: { allowWrites: true } });
    expectConsistentLines(accessLines(outcome.pages[1] as string));
    const token = await exchangeCode(app.url, clientId, outcome);
    expect(token.scope?.split(' ').sort()).to.deep.equal(['finance.approvals', 'finance.money.write']);
    let refused: unknown;
    try {
      await app.mintToken({ person: 'ana@demo.test', type: 'oauth', scope: 'finance.approvals.write' });
    } catch (err) {
      refused = err;
    }
    expect(String(refused)).to.match(/finance\.approvals\.write; use --type personal/);
    const personal = await app.mintToken({ person: 'ana@demo.test', type: 'personal', scope: 'finance.approvals.write', aud: 'api' });
    expect([...(await app.services.auth.authenticator.authenticate(`Bearer ${personal}`, 'api')).scopes]).to.deep.equal(['finance.approvals.write']);
  });
});

describe('the sign-in limit (L3)', function () {
  it('consults the sign-in limit before the password: once 429s start, the right password gets 429 too (L3)', async () => {
    const app = await startTestApp({ config: { authFailureLimitPerMinute: 3 } });
    try {
      await signInLimited(app, (await registerClient(app.url)).client_id);
    } finally {
      await app.close();
    }
  });
});

/** Three wrong passwords at the sign-in page, then a wrong and the right one: both 429; then the approval page and the approval-request page. */
async function signInLimited(app: TestApp, clientId: string): Promise<void> {
  const login = await openLoginPage(app, buildAuthorizationUrl(app.url, clientId, { challenge: challengeOf() }));
  for (let i = 0; i < 3; i++) {
    expect((await postForm(app, login.action, { csrf: login.csrf, email: 'ana@demo.test', password: 'wrong' }, login.cookie)).status).to.equal(401);
  }
  const wrong = await postForm(app, login.action, { csrf: login.csrf, email: 'ana@demo.test', password: 'wrong' }, login.cookie);
  const right = await postForm(app, login.action, { csrf: login.csrf, email: 'ana@demo.test', password: DEMO_PASSWORD }, login.cookie);
  expect([wrong.status, right.status]).to.deep.equal([429, 429]);
  expect(right.headers.get('location')).to.equal(null);
  for (const answer of [wrong, right]) expect(Number(answer.headers.get('retry-after'))).to.be.greaterThan(0);

  // The approval page shares the address's limit, and consults it first as well.
  const oauth = app.services.oauth;
  if (oauth === null) throw new Error('the embedded Account is off');
  const binding = { tool: 'finance_payables_cancel', argsDigest: 'x', personId: DEMO.persons.ana, organizationId: DEMO.organizationId, workspaceId: DEMO.workspaces.matriz };
  const link = new URL((await oauth.approvals.create(binding, null, 'Cancel payable X', 300)).url);
  const page = await (await fetch(link)).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const approve = await postForm(app, link.pathname, { csrf, email: 'ana@demo.test', password: DEMO_PASSWORD });
  expect(approve.status).to.equal(429);
  expect((await oauth.approvals.read(link.pathname.split('/').pop() as string))?.approved).to.equal(false);

  // The approval-request page too: the limit answers before the password is looked at.
  const requestPage = new URL(oauth.approvalRequestUrl(DEMO.workspaces.matriz, '7b1e4c2a-9d3f-4e5a-8b6c-1d2e3f4a5b6c'));
  const requestCsrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(requestPage)).text())?.[1] ?? '';
  const review = await postForm(app, requestPage.pathname, { csrf: requestCsrf, workspace_id: DEMO.workspaces.matriz, step: 'review', email: 'ana@demo.test', password: DEMO_PASSWORD });
  expect(review.status).to.equal(429);
}

