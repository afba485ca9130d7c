/**
 * The embedded Account's OAuth 2.1 authorization server over HTTP (docs/security.md#oauth-login):
 * its metadata, the registration policy (public clients, exact and safe redirect URIs), PKCE S256
 * only, RFC 8707 resources → JWT access tokens for /mcp or /v1, read scopes unless the person
 * approves changes, a denied consent, refresh rotation and replay, revocation; and, with
 * ACCOUNT_ISSUER, no authorization server at all.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { DEMO } from '../../src/seed/ids.js';
import {
  FLOW_REDIRECT_URI, authorize, buildAuthorizationUrl, exchangeCode, register, registerClient, tokenRequest,
} from './support/flow.js';

describe('embedded OAuth authorization server', function () {
  let app: TestApp;
  let clientId: string;
  before(async () => {
    app = await startTestApp();
    clientId = (await registerClient(app.url)).client_id;
  });
  after(async () => {
    await app?.close();
  });

  const scopesOf = async (token: string, audience: 'mcp' | 'api' = 'mcp') =>
    [...(await app.services.auth.authenticator.authenticate(`Bearer ${token}`, audience)).scopes].sort();

  it('publishes RFC 8414 metadata that the protected-resource metadata points at', async () => {
    const prm = await (await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`)).json() as { authorization_servers: string[] };
    expect(prm.authorization_servers).to.deep.equal([app.url]);
    const response = await fetch(`${app.url}/.well-known/oauth-authorization-server`);
    expect(response.status).to.equal(200);
    const metadata = await response.json() as Record<string, unknown>;
    expect(metadata).to.include({
      issuer: app.url,
      authorization_endpoint: `${app.url}/authorize`,
      token_endpoint: `${app.url}/token`,
      registration_endpoint: `${app.url}/register`,
      revocation_endpoint: `${app.url}/revoke`,
      jwks_uri: `${app.url}/.well-known/jwks.json`,
      authorization_response_iss_parameter_supported: true,
    });
    expect(metadata.code_challenge_methods_supported).to.deep.equal(['S256']);
    expect(metadata.response_types_supported).to.deep.equal(['code']);
    expect(metadata.token_endpoint_auth_methods_supported).to.deep.equal(['none']);
    expect(metadata.scopes_supported).to.include('finance.all').and.include('offline_access');
  });

  it('registers public clients only, with https, loopback http or private-use redirect URIs', async () => {
    expect((await register(app.url, { redirect_uris: ['https://client.example/cb'] })).status).to.equal(201);
    expect((await register(app.url, { redirect_uris: ['com.example.app:/cb'], application_type: 'native' })).status).to.equal(201);
    for (const redirect of ['http://evil.example/cb', 'javascript:alert(1)', 'https://client.example/cb#frag']) {
      const response = await register(app.url, { redirect_uris: [redirect] });
      expect(response.status, redirect).to.equal(400);
    }
    const confidential = await register(app.url, { token_endpoint_auth_method: 'client_secret_basic' });
    expect(confidential.status).to.equal(400);
    // Browser-based clients register from their own origin.
    const preflight = await fetch(`${app.url}/register`, { method: 'OPTIONS', headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST' } });
    expect(preflight.status).to.equal(204);
    expect(preflight.headers.get('access-control-allow-origin')).to.equal('*');
    expect((await register(app.url)).headers.get('access-control-allow-origin')).to.equal('*');
  });

  it('refuses an authorization without PKCE S256, to an unregistered redirect URI, or for an unknown resource', async () => {
    const base = buildAuthorizationUrl(app.url, clientId, { challenge: 'x'.repeat(43) });
    const noPkce = new URL(base);
    noPkce.searchParams.delete('code_challenge');
    noPkce.searchParams.delete('code_challenge_method');
    const plain = new URL(base);
    plain.searchParams.set('code_challenge_method', 'plain');
    const otherResource = new URL(base);
    otherResource.searchParams.set('resource', 'https://elsewhere.example/mcp');
    for (const [url, error] of [[noPkce, 'invalid_request'], [plain, 'invalid_request'], [otherResource, 'invalid_target']] as const) {
      const response = await fetch(url, { redirect: 'manual' });
      const location = new URL(response.headers.get('location') ?? '', app.url);
      expect(location.href.startsWith(FLOW_REDIRECT_URI), url.href).to.equal(true);
      expect(location.searchParams.get('error')).to.equal(error);
      expect(location.searchParams.get('code')).to.equal(null);
    }
    const wrongRedirect = new URL(base);
    wrongRedirect.searchParams.set('redirect_uri', 'http://127.0.0.1:53682/other');
    const response = await fetch(wrongRedirect, { redirect: 'manual' });
    // Never redirected to an address that was not registered: an error page instead.
    expect(response.status).to.equal(400);
    expect(response.headers.get('location')).to.equal(null);
  });

  it('a denied consent returns access_denied and no code', async () => {
    const outcome = await authorize(app.url, clientId, { person: { decision: 'deny' } });
    expect(outcome.callback.searchParams.get('error')).to.equal('access_denied');
    expect(outcome.callback.searchParams.get('code')).to.equal(null);
  });

  it('grants read scopes only, unless the person ticks "also allow changes"', async () => {
    const scope = 'finance.payables finance.payables.write finance.money.write';
    const readOnly = await authorize(app.url, clientId, { scope });
    expect(readOnly.pages[1]).to.include('See payables').and.include('Create, change and delete payables').and.include('Move money');
    const readToken = await exchangeCode(app.url, clientId, readOnly);
    expect(readToken.scope).to.equal('finance.payables');
    expect(decodeJwt(readToken.access_token).writes_approved).to.equal(undefined);
    expect(await scopesOf(readToken.access_token)).to.deep.equal(['finance.payables']);

    const approved = await authorize(app.url, clientId, { scope, person: { allowWrites: true } });
    const writeToken = await exchangeCode(app.url, clientId, approved);
    expect(decodeJwt(writeToken.access_token)).to.include({ writes_approved: true, token_type: 'oauth' });
    expect(await scopesOf(writeToken.access_token)).to.deep.equal(['finance.money.write', 'finance.payables', 'finance.payables.write']);
  });

  it('the resource server keeps write scopes of an OAuth token only when it states the consent', async () => {
    // A token of another path (npm run token cannot even mint one) claiming writes without the approval.
    const minted = await app.mintToken({ person: 'ana@demo.test', type: 'personal', scope: 'finance.payables.write' });
    expect(await scopesOf(minted)).to.deep.equal(['finance.payables.write']);
    let refused: unknown;
    try {
      await app.mintToken({ person: 'ana@demo.test', type: 'oauth', scope: 'finance.payables.write' });
    } catch (err) {
      refused = err;
    }
    expect(String(refused)).to.match(/read scopes only/);
  });

  it('issues a /v1 token for resource=/v1, accepted by the REST API and refused at /mcp', async () => {
    const outcome = await authorize(app.url, clientId, { scope: 'finance.payables', resource: `${app.url}/v1` });
    const token = await exchangeCode(app.url, clientId, outcome, `${app.url}/v1`);
    expect(decodeJwt(token.access_token).aud).to.equal(`${app.url}/v1`);
    const rest = await fetch(`${app.url}/v1/payables?limit=1`, { headers: { authorization: `Bearer ${token.access_token}`, 'x-workspace-id': DEMO.workspaces.matriz } });
    expect(rest.status).to.equal(200);
    const mcp = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(mcp.status).to.equal(401);
  });

  it('rotates refresh tokens; a replayed one revokes the grant and its access tokens', async () => {
    const outcome = await authorize(app.url, clientId);
    const first = await exchangeCode(app.url, clientId, outcome);
    const refresh = (token: string) => tokenRequest(app.url, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
    const second = await refresh(first.refresh_token as string);
    expect(second.status).to.equal(200);
    expect(second.body.refresh_token).to.be.a('string').and.not.equal(first.refresh_token);
    expect(await scopesOf(second.body.access_token)).to.deep.equal(['finance.all']);
    const replay = await refresh(first.refresh_token as string);
    expect(replay.status).to.equal(400);
    expect(replay.body.error).to.equal('invalid_grant');
    expect((await refresh(second.body.refresh_token as string)).status).to.equal(400);
    let refused: unknown;
    try {
      await scopesOf(second.body.access_token);
    } catch (err) {
      refused = err;
    }
    expect((refused as { status?: number }).status).to.equal(401);
  });

  it('revoking the refresh token ends the grant', async () => {
    const token = await exchangeCode(app.url, clientId, await authorize(app.url, clientId));
    const revoke = await fetch(`${app.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: token.refresh_token as string, client_id: clientId }).toString(),
    });
    expect(revoke.status).to.equal(200);
    const refreshed = await tokenRequest(app.url, { grant_type: 'refresh_token', refresh_token: token.refresh_token as string, client_id: clientId });
    expect(refreshed.body.error).to.equal('invalid_grant');
    let refused: unknown;
    try {
      await scopesOf(token.access_token);
    } catch (err) {
      refused = err;
    }
    expect((refused as { status?: number }).status).to.equal(401);
  });

  describe('sign-in and consent pages', () => {
    async function openLoginPage(): Promise<{ page: Response; html: string; cookie: string; action: string; csrf: string }> {
      const verifier = randomBytes(32).toString('base64url');
      const url = buildAuthorizationUrl(app.url, clientId, { challenge: createHash('sha256').update(verifier).digest('base64url') });
      const first = await fetch(url, { redirect: 'manual' });
      const cookie = first.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const page = await fetch(new URL(first.headers.get('location') as string, app.url), { headers: { cookie } });
      const html = await page.text();
      return {
        page, html, cookie,
        action: (/action="([^"]+)"/.exec(html) as RegExpExecArray)[1] as string,
        csrf: (/name="csrf" value="([^"]+)"/.exec(html) as RegExpExecArray)[1] as string,
      };
    }
    const post = (action: string, cookie: string, form: Record<string, string>, origin = app.url) => fetch(new URL(action, app.url), {
      method: 'POST', redirect: 'manual',
      headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });

    it('cannot be framed or cached, and shows the client and the demo sign-in', async () => {
      const { page, html } = await openLoginPage();
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-security-policy')).to.include("frame-ancestors 'none'").and.include("default-src 'none'");
      expect(page.headers.get('x-frame-options')).to.equal('DENY');
      expect(page.headers.get('cache-control')).to.equal('no-store');
      expect(html).to.include('Flow test client').and.include('http://127.0.0.1:53682').and.include('ana@demo.test');
    });

    it('refuses a post without the CSRF token or from another origin', async () => {
      const { cookie, action, csrf } = await openLoginPage();
      const credentials = { email: 'ana@demo.test', password: 'demo' };
      expect((await post(action, cookie, credentials)).status).to.equal(403);
      expect((await post(action, cookie, { ...credentials, csrf: `${csrf}x` })).status).to.equal(403);
      expect((await post(action, cookie, { ...credentials, csrf }, 'https://evil.example')).status).to.equal(403);
      // The same form, done right, signs in.
      expect((await post(action, cookie, { ...credentials, csrf })).status).to.equal(303);
    });

    it('refuses a wrong password, an unknown email and an inactive person with the same answer (no membership oracle)', async () => {
      const { cookie, action, csrf } = await openLoginPage();
      const answers: string[] = [];
      for (const [email, password] of [
        ['ana@demo.test', 'wrong'],
        ['nobody@demo.test', 'demo'],
        ['carla@demo.test', 'demo'],
      ] as const) {
        const response = await post(action, cookie, { email, password, csrf });
        expect(response.status, email).to.equal(401);
        const html = await response.text();
        expect(html).to.include('Wrong email or password.').and.not.include('membership');
        // The page echoes the email typed and has a fresh style nonce; everything else is the same answer.
        answers.push(html.replace(/nonce="[^"]*"/, '').replace(/name="email"([^>]*) value="[^"]*"/, 'name="email"$1'));
      }
      expect(new Set(answers).size).to.equal(1);
    });
  });
});

describe('OAuth with an external Account (ACCOUNT_ISSUER)', function () {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ config: { accountIssuer: 'https://account.example', accountJwksUrl: 'https://account.example/jwks' } });
  });
  after(async () => {
    await app?.close();
  });

  it('serves no authorization server, and the metadata names the external one', async () => {
    const prm = await (await fetch(`${app.url}/.well-known/oauth-protected-resource`)).json() as { authorization_servers: string[] };
    expect(prm.authorization_servers).to.deep.equal(['https://account.example']);
    for (const path of ['/.well-known/oauth-authorization-server', '/authorize', '/register', '/account/interaction/x']) {
      expect((await fetch(`${app.url}${path}`)).status, path).to.equal(404);
    }
    expect((await fetch(`${app.url}/token`, { method: 'POST' })).status).to.equal(404);
  });
});

