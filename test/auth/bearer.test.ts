import { expect } from 'chai';
import http from 'node:http';
import { createPublicKey, randomUUID, type JsonWebKey } from 'node:crypto';
import { SignJWT, generateKeyPair } from 'jose';
import { startTestApp, DEMO, type TestApp } from '../helpers/index.js';
import { buildDefaultClaims, craftToken, craftUnsignedToken, loadTestAppKey, readJti } from '../helpers/tokens.js';
import type { AccountKey } from '../../src/auth/account-key.js';
import { CHALLENGE_SCOPES } from '../../src/identity/scopes.js';
import { startProbe, type Probe } from './bearer-probe.js';
import { createLimits, type Limits } from '../../src/http/limits.js';

export function expectedChallenge(app: TestApp, audience: 'mcp' | 'api', error?: string): string {
  const metadata = `${app.url}/.well-known/oauth-protected-resource${audience === 'api' ? '/v1' : ''}`;
  return `Bearer resource_metadata="${metadata}", scope="${CHALLENGE_SCOPES.join(' ')}"${error ? `, error="${error}"` : ''}`;
}

interface Answer { status: number; headers: Headers; body: any } // JSON under test

async function call(probe: Probe, headers: Record<string, string> = {}, query = ''): Promise<Answer> {
  const res = await fetch(`${probe.url}/anything${query}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('auth.bearer(audience, limits)', () => {
  let app: TestApp;
  let mcp: Probe;
  let api: Probe;
  let key: AccountKey;

  before(async () => {
    app = await startTestApp();
    mcp = await startProbe(app.services.auth, 'mcp', app.services.limits);
    api = await startProbe(app.services.auth, 'api', app.services.limits);
    key = await loadTestAppKey(app);
  });
  after(async () => {
    await mcp?.close();
    await api?.close();
    await app?.close();
  });

  async function expectInvalidToken(probe: Probe, audience: 'mcp' | 'api', headers: Record<string, string>, message: RegExp): Promise<void> {
    const res = await call(probe, headers);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal(expectedChallenge(app, audience, 'invalid_token'));
    expect(res.body.error.code).to.equal('unauthorized');
    expect(res.body.error.message).to.match(message);
  }

  it('accepts a minted token and sets identity, caller and channel', async () => {
    const token = await app.mintToken({ person: 'ana@demo.test', scope: 'finance.all.write' });
    const res = await call(mcp, bearer(token));
    expect(res.status).to.equal(200);
    expect(res.body.person).to.equal(DEMO.persons.ana);
    expect(res.body.scopes).to.deep.equal(['finance.all.write']);
    expect(res.body.channel).to.equal('mcp');
    expect(res.body.membership.isAdmin).to.equal(true);
    expect(res.body.membership.workspaceIds).to.have.members([DEMO.workspaces.matriz, DEMO.workspaces.filial]);
    expect(res.body.connection_workspace_id).to.equal(null);
  });

  it('loads a member with only the granted permissions and workspace, channel api at /v1', async () => {
    const token = await app.mintToken({ person: 'bruno@demo.test', aud: 'api' });
    const res = await call(api, bearer(token));
    expect(res.status).to.equal(200);
    expect(res.body.channel).to.equal('api');
    expect(res.body.membership).to.deep.include({ status: 'active', isAdmin: false, workspaceIds: [DEMO.workspaces.matriz] });
    expect(res.body.membership.permissions).to.have.members(['payables.view', 'payables.settle', 'receivables.view']);
  });

  it('returns 401 with a resource_metadata challenge and no error when the token is missing', async () => {
    const res = await call(mcp);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal(expectedChallenge(app, 'mcp'));
    expect(res.body.error.code).to.equal('unauthorized');
  });

  it('points /v1 challenges at the /v1 protected-resource metadata', async () => {
    const res = await call(api);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal(expectedChallenge(app, 'api'));
  });

  it('treats another scheme (Basic) as missing credentials', async () => {
    const res = await call(mcp, { authorization: 'Basic YW5hOnNlY3JldA==' });
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal(expectedChallenge(app, 'mcp'));
  });

  for (const [label, value] of [
    ['an empty Bearer', 'Bearer'],
    ['a non-JWT string', 'Bearer not-a-jwt'],
    ['two segments', 'Bearer abc.def'],
    ['garbage in three segments', 'Bearer a.b.c'],
    ['non-base64url characters', 'Bearer ey$$.ey%%.sig'],
    ['a token followed by junk', 'Bearer a.b.c d.e.f'],
  ] as const) {
    it(`returns 401 invalid_token for a malformed Authorization header: ${label}`, async () => {
      await expectInvalidToken(mcp, 'mcp', { authorization: value }, /malformed/);
    });
  }

  it('returns 401 invalid_token for alg none', async () => {
    await expectInvalidToken(mcp, 'mcp', bearer(craftUnsignedToken(buildDefaultClaims(app))), /algorithm/);
  });

  it('returns 401 invalid_token for HS256 tokens signed with the public key (JWK and PEM forms)', async () => {
    const jwkSecret = new TextEncoder().encode(JSON.stringify(key.publicJwk));
    const jwkToken = await new SignJWT(buildDefaultClaims(app)).setProtectedHeader({ alg: 'HS256', kid: key.kid }).sign(jwkSecret);
    await expectInvalidToken(mcp, 'mcp', bearer(jwkToken), /algorithm/);
    const pem = createPublicKey({ key: key.publicJwk as JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const pemToken = await new SignJWT(buildDefaultClaims(app)).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(String(pem)));
    await expectInvalidToken(mcp, 'mcp', bearer(pemToken), /algorithm/);
  });

  it('returns 401 invalid_token for a token signed by another key under the same kid', async () => {
    const other = await generateKeyPair('ES256');
    const token = await craftToken(buildDefaultClaims(app), { key: other.privateKey, kid: key.kid });
    await expectInvalidToken(mcp, 'mcp', bearer(token), /signature/);
  });

  it('returns 401 invalid_token for an unknown kid (embedded Account)', async () => {
    const other = await generateKeyPair('ES256');
    const token = await craftToken(buildDefaultClaims(app), { key: other.privateKey, kid: 'no-such-key' });
    await expectInvalidToken(mcp, 'mcp', bearer(token), /unknown key/);
  });

  it('returns 401 invalid_token when the token expired beyond the 30 s tolerance', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await craftToken(buildDefaultClaims(app), { key: key.privateKey, kid: key.kid, claims: { iat: now - 3600, exp: now - 60 } });
    await expectInvalidToken(mcp, 'mcp', bearer(token), /expired/);
  });

  it('accepts a token expired within the 30 s clock tolerance', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await craftToken(buildDefaultClaims(app), { key: key.privateKey, kid: key.kid, claims: { iat: now - 3600, exp: now - 10 } });
    expect((await call(mcp, bearer(token))).status).to.equal(200);
  });

  it('returns 401 invalid_token when nbf is in the future', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await craftToken(buildDefaultClaims(app), { key: key.privateKey, kid: key.kid, claims: { nbf: now + 300 } });
    await expectInvalidToken(mcp, 'mcp', bearer(token), /not valid yet/);
  });

  async function expectRefusedFor(reason: string, claims: Record<string, unknown>, message: RegExp): Promise<void> {
    const failures = async () => (await app.services.metrics.tokenVerificationFailures.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
    const before = await failures();
    const token = await craftToken(buildDefaultClaims(app), { key: key.privateKey, kid: key.kid, claims });
    await expectInvalidToken(mcp, 'mcp', bearer(token), message);
    expect(await failures()).to.equal(before + 1);
  }

  it('returns 401 invalid_token (issued_in_future) when iat is in the future beyond the 30 s tolerance', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefusedFor('issued_in_future', { iat: now + 600, exp: now + 3600 }, /issued in the future/);
    const withinTolerance = await craftToken(buildDefaultClaims(app), { key: key.privateKey, kid: key.kid, claims: { iat: now + 10 } });
    expect((await call(mcp, bearer(withinTolerance))).status).to.equal(200);
  });

  it('returns 401 invalid_token (lifetime_too_long) for exp − iat above TOKEN_MAX_LIFETIME_SECONDS, also without iat', async () => {
    const max = app.services.config.tokenMaxLifetimeSeconds;
    const now = Math.floor(Date.now() / 1000);
    await expectRefusedFor('lifetime_too_long', { iat: now, exp: now + 100 * 365 * 86_400 }, /lives longer/);
    await expectRefusedFor('lifetime_too_long', { iat: now - 60, exp: now - 60 + max + 1 }, /lives longer/);
    await expectRefusedFor('lifetime_too_long', { iat: undefined, exp: now + max + 120 }, /lives longer/);
    const longest = await craftToken(buildDefaultClaims(app), { key: key.privateKey, kid: key.kid, claims: { iat: now, exp: now + max } });
    expect((await call(mcp, bearer(longest))).status).to.equal(200);
  });

  it('returns 401 invalid_token (ambiguous_audience) for an aud naming both /mcp and /v1, at either surface', async () => {
    const both = [app.services.auth.audiences.mcp, app.services.auth.audiences.api];
    await expectRefusedFor('ambiguous_audience', { aud: both }, /more than one resource/);
    const token = await craftToken(buildDefaultClaims(app, 'api'), { key: key.privateKey, kid: key.kid, claims: { aud: [...both].reverse() } });
    await expectInvalidToken(api, 'api', bearer(token), /more than one resource/);
    const withThirdParty = await craftToken(buildDefaultClaims(app), { key: key.privateKey, kid: key.kid, claims: { aud: [both[0], 'https://other.example'] } });
    expect((await call(mcp, bearer(withThirdParty))).status).to.equal(200);
  });

  it('mints the longest accepted token and refuses to mint a longer one', async () => {
    const max = app.services.config.tokenMaxLifetimeSeconds;
    expect((await call(mcp, bearer(await app.mintToken({ person: 'ana@demo.test', ttlSeconds: max })))).status).to.equal(200);
    let refused: unknown;
    await app.mintToken({ person: 'ana@demo.test', ttlSeconds: max + 1 }).catch((err: unknown) => { refused = err; });
    expect((refused as Error | undefined)?.message).to.match(/TOKEN_MAX_LIFETIME_SECONDS/);
  });

  it('returns 401 invalid_token for a wrong issuer', async () => {
    const token = await craftToken(buildDefaultClaims(app), { key: key.privateKey, kid: key.kid, claims: { iss: 'https://evil.example' } });
    await expectInvalidToken(mcp, 'mcp', bearer(token), /expected Account/);
  });

  it('returns 401 invalid_token for an API token at /mcp and an MCP token at /v1', async () => {
    const apiToken = await app.mintToken({ person: 'ana@demo.test', aud: 'api' });
    const mcpToken = await app.mintToken({ person: 'ana@demo.test', aud: 'mcp' });
    await expectInvalidToken(mcp, 'mcp', bearer(apiToken), /another resource/);
    await expectInvalidToken(api, 'api', bearer(mcpToken), /another resource/);
    expect((await call(api, bearer(apiToken))).status).to.equal(200);
    expect((await call(mcp, bearer(mcpToken))).status).to.equal(200);
  });

  for (const [label, claims] of [
    ['without org', { org: undefined }],
    ['without scope', { scope: undefined }],
    ['without jti', { jti: undefined }],
    ['without sub', { sub: undefined }],
    ['with an unknown token_type', { token_type: 'service' }],
  ] as const) {
    it(`returns 401 invalid_token for a token ${label}`, async () => {
      const token = await craftToken(buildDefaultClaims(app), { key: key.privateKey, kid: key.kid, claims });
      await expectInvalidToken(mcp, 'mcp', bearer(token), /claims/);
    });
  }

  it('returns 401 invalid_token for a revoked jti, even after a cached success', async () => {
    const token = await app.mintToken({ person: 'ana@demo.test' });
    expect((await call(mcp, bearer(token))).status).to.equal(200);
    await app.services.auth.revocation.revoke(readJti(token), new Date(Date.now() + 3600_000));
    await expectInvalidToken(mcp, 'mcp', bearer(token), /revoked/);
  });

  it('returns 401 invalid_token for a jti written to the revocation table by another replica, at the next call', async () => {
    const token = await app.mintToken({ person: 'ana@demo.test' });
    expect((await call(mcp, bearer(token))).status).to.equal(200);
    // No cache to invalidate: the row is read with the caller's identity version on every call.
    await app.services.db.insertInto('revoked_tokens')
      .values({ jti: readJti(token), revoked_at: new Date().toISOString(), expires_at: new Date(Date.now() + 3600_000).toISOString() })
      .execute();
    await expectInvalidToken(mcp, 'mcp', bearer(token), /revoked/);
  });

  it('strips write scopes from OAuth tokens', async () => {
    const token = await craftToken(buildDefaultClaims(app), {
      key: key.privateKey, kid: key.kid, claims: { token_type: 'oauth', scope: 'finance.payables finance.payables.write finance.all.write' },
    });
    const res = await call(mcp, bearer(token));
    expect(res.status).to.equal(200);
    expect(res.body.scopes).to.deep.equal(['finance.payables']);
  });

  it('keeps the write scopes of an OAuth token that states the person approved changes (writes_approved)', async () => {
    const token = await craftToken(buildDefaultClaims(app), {
      key: key.privateKey, kid: key.kid, claims: { token_type: 'oauth', writes_approved: true, scope: 'finance.payables finance.payables.write' },
    });
    const res = await call(mcp, bearer(token));
    expect(res.status).to.equal(200);
    expect(res.body.scopes).to.deep.equal(['finance.payables', 'finance.payables.write']);
  });

  it('drops finance.approvals.write from an OAuth token even with writes_approved (a second approver is a person with a personal token)', async () => {
    const token = await craftToken(buildDefaultClaims(app), {
      key: key.privateKey, kid: key.kid,
      claims: { token_type: 'oauth', writes_approved: true, scope: 'finance.approvals finance.approvals.write finance.money.write' },
    });
    const res = await call(mcp, bearer(token));
    expect(res.status).to.equal(200);
    expect(res.body.scopes).to.deep.equal(['finance.approvals', 'finance.money.write']);
  });

  it('returns 400 invalid_request when the token is in the query string', async () => {
    const token = await app.mintToken({ person: 'ana@demo.test' });
    const res = await call(mcp, {}, `?access_token=${token}`);
    expect(res.status).to.equal(400);
    expect(res.headers.get('www-authenticate')).to.equal(expectedChallenge(app, 'mcp', 'invalid_request'));
    expect(res.body.error.message).to.match(/query string/);
    const both = await call(mcp, bearer(token), `?access_token=${token}`);
    expect(both.status).to.equal(400);
  });

  it('returns 401 invalid_token for a token above 8 KB (below the header limit)', async () => {
    await expectInvalidToken(mcp, 'mcp', bearer(`${'a'.repeat(9000)}.b.c`), /too large/);
  });

  it('answers 431 for a 1 MB Authorization header and keeps serving', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(mcp.url);
      const req = http.request({ host: url.hostname, port: url.port, path: '/anything', headers: { authorization: `Bearer ${'a'.repeat(1024 * 1024)}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).to.equal(431);
    const token = await app.mintToken({ person: 'ana@demo.test' });
    expect((await call(mcp, bearer(token))).status).to.equal(200);
  });

  it('passes the connection default workspace from X-Workspace-Id or ?workspace_id=', async () => {
    const token = await app.mintToken({ person: 'ana@demo.test' });
    const viaHeader = await call(mcp, { ...bearer(token), 'x-workspace-id': DEMO.workspaces.filial });
    expect(viaHeader.body.connection_workspace_id).to.equal(DEMO.workspaces.filial);
    const viaQuery = await call(mcp, bearer(token), `?workspace_id=${DEMO.workspaces.matriz}`);
    expect(viaQuery.body.connection_workspace_id).to.equal(DEMO.workspaces.matriz);
    // Not granted to the person (bruno reaches Matriz only): resolveWorkspace refuses it later, per call.
    const notGranted = await call(mcp, { ...bearer(await app.mintToken({ person: 'bruno@demo.test' })), 'x-workspace-id': DEMO.workspaces.filial });
    expect(notGranted.status).to.equal(200);
    expect(notGranted.body.connection_workspace_id).to.equal(DEMO.workspaces.filial);
  });

  it('returns 403 when the connection default workspace does not exist or is malformed', async () => {
    const token = await app.mintToken({ person: 'ana@demo.test' });
    for (const value of [randomUUID(), 'not-a-uuid']) {
      const res = await call(mcp, { ...bearer(token), 'x-workspace-id': value });
      expect(res.status).to.equal(403);
      expect(res.body.error.message).to.match(/does not exist or is not reachable/);
    }
  });

  it('returns 403 when the connection default workspace belongs to another organization', async () => {
    const now = new Date().toISOString();
    const orgId = randomUUID();
    const workspaceId = randomUUID();
    await app.services.db.insertInto('organizations').values({ id: orgId, name: 'Other Org', created_at: now, deleted_at: null }).execute();
    await app.services.db.insertInto('workspaces').values({ id: workspaceId, organization_id: orgId, name: 'Elsewhere', created_at: now }).execute();
    const token = await app.mintToken({ person: 'ana@demo.test' });
    const viaHeader = await call(mcp, { ...bearer(token), 'x-workspace-id': workspaceId });
    expect(viaHeader.status).to.equal(403);
    expect(viaHeader.body.error.message).to.match(/does not exist or is not reachable/);
    const viaQuery = await call(api, bearer(await app.mintToken({ person: 'ana@demo.test', aud: 'api' })), `?workspace_id=${workspaceId}`);
    expect(viaQuery.status).to.equal(403);
  });

  it('counts token-verification failures by reason in the metrics', async () => {
    await call(mcp, { authorization: 'Bearer nope' });
    const metric = await app.services.metrics.tokenVerificationFailures.get();
    const malformed = metric.values.find((v) => v.labels.reason === 'malformed');
    expect(malformed?.value ?? 0).to.be.greaterThan(0);
  });
});

describe('auth.bearer() for deleted subjects', () => {
  let app: TestApp;
  let probe: Probe;
  before(async () => {
    app = await startTestApp();
    probe = await startProbe(app.services.auth, 'mcp', app.services.limits);
  });
  after(async () => {
    await probe?.close();
    await app?.close();
  });

  it('returns 401 invalid_token for a token of a deleted person', async () => {
    const token = await app.mintToken({ person: 'bruno@demo.test' });
    await app.services.db.updateTable('persons').set({ deleted_at: new Date().toISOString() }).where('id', '=', DEMO.persons.bruno).execute();
    const res = await call(probe, bearer(token));
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal(expectedChallenge(app, 'mcp', 'invalid_token'));
    expect(res.body.error.message).to.match(/no longer exists/);
  });

  it('returns 401 invalid_token for a token of a deleted organization', async () => {
    const token = await app.mintToken({ person: 'ana@demo.test' });
    await app.services.db.updateTable('organizations').set({ deleted_at: new Date().toISOString() }).where('id', '=', DEMO.organizationId).execute();
    const res = await call(probe, bearer(token));
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal(expectedChallenge(app, 'mcp', 'invalid_token'));
    expect(res.body.error.message).to.match(/no longer exists/);
  });
});

describe('auth.bearer() failed-authentication throttle', () => {
  const LIMIT = 30;
  let app: TestApp;
  let limits: Limits;
  let probe: Probe;
  before(async () => {
    app = await startTestApp({ config: { authFailureLimitPerMinute: LIMIT } });
    // Own key prefix: with REDIS_URL every test app shares the default prefix, hence the counters.
    limits = await createLimits(app.services.config, app.services.logger, app.services.metrics, { keyPrefix: `test-${randomUUID()}:` });
    probe = await startProbe(app.services.auth, 'mcp', limits);
  });
  after(async () => {
    await probe?.close();
    await limits?.close();
    await app?.close();
  });

  it('never throttles a valid token; only failed attempts from the address get 429 + Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) statuses.push((await call(probe, { authorization: 'Bearer bad.token.here' })).status);
    expect(statuses.slice(0, LIMIT)).to.deep.equal(Array(LIMIT).fill(401));
    expect(statuses.slice(LIMIT)).to.deep.equal(Array(40 - LIMIT).fill(429));

    // Same address (every client behind one load balancer): a valid token still passes, every time.
    const token = await app.mintToken({ person: 'ana@demo.test' });
    for (let i = 0; i < 3; i += 1) {
      const ok = await call(probe, bearer(token));
      expect(ok.status).to.equal(200);
      expect(ok.headers.get('retry-after')).to.equal(null);
      expect(ok.body.person).to.equal(DEMO.persons.ana);
    }
    const otherPerson = await call(probe, bearer(await app.mintToken({ person: 'bruno@demo.test' })));
    expect(otherPerson.status).to.equal(200);

    const bad = await call(probe, { authorization: 'Bearer bad.token.here' });
    expect(bad.status).to.equal(429);
    expect(Number(bad.headers.get('retry-after'))).to.be.within(1, 60);
    expect(bad.body.error.code).to.equal('rate_limited');

    // Every kind of failed authentication is throttled, not only malformed tokens.
    const revoked = await app.mintToken({ person: 'ana@demo.test' });
    await app.services.auth.revocation.revoke(readJti(revoked), new Date(Date.now() + 3600_000));
    expect((await call(probe, bearer(revoked))).status).to.equal(429);
    expect((await call(probe, {}, `?access_token=${token}`)).status).to.equal(429);

    // Discovery (no credentials, another scheme) is neither counted nor throttled.
    expect((await call(probe)).status).to.equal(401);
    expect((await call(probe, { authorization: 'Basic YW5hOnNlY3JldA==' })).status).to.equal(401);
  });
});

describe('auth.bearer() failed-authentication throttle: what counts', () => {
  const LIMIT = 3;
  let app: TestApp;
  let limits: Limits;
  let probe: Probe;
  before(async () => {
    app = await startTestApp({ config: { authFailureLimitPerMinute: LIMIT } });
    limits = await createLimits(app.services.config, app.services.logger, app.services.metrics, { keyPrefix: `test-${randomUUID()}:` });
    probe = await startProbe(app.services.auth, 'mcp', limits);
  });
  after(async () => {
    await probe?.close();
    await limits?.close();
    await app?.close();
  });

  it('does not count requests without credentials, nor valid tokens, toward the limit', async () => {
    const token = await app.mintToken({ person: 'ana@demo.test' });
    for (let i = 0; i < 10; i += 1) {
      expect((await call(probe)).status).to.equal(401);
      expect((await call(probe, { authorization: 'Basic YW5hOnNlY3JldA==' })).status).to.equal(401);
      expect((await call(probe, bearer(token))).status).to.equal(200);
    }
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i += 1) statuses.push((await call(probe, { authorization: 'Bearer bad.token.here' })).status);
    expect(statuses).to.deep.equal([...Array(LIMIT).fill(401), 429]);
  });
});
