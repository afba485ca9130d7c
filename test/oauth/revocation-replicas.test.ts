/**
 * Issue 25, M1: revoking a grant — a replayed refresh token, a replayed authorization code,
 * `/revoke` of the refresh token — stops its JWT access tokens at the very next call on every
 * app instance sharing the database (docs/security.md#identity-and-tokens). Two instances on one
 * database (PostgreSQL: one schema; SQLite: one data folder, so one file), the token used on B
 * first (every cache of B warm), revoked through A, refused by B and A at once: no sleep, no
 * reload interval. The revocation rows live as long as the tokens could.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { createTestSchema, startTestApp, type TestApp, type TestSchema } from '../helpers/index.js';
import { modernRequest, postMcp } from '../mcp/support/wire.js';
import { FLOW_REDIRECT_URI, authorize, register, tokenRequest, type TokenResponse } from './support/flow.js';

/** Instances behind one load balancer share PUBLIC_URL (the issuer and the audiences). */
const PUBLIC_URL = 'http://finance.revocation.test';

describe('a revoked grant\'s access tokens are refused at once on every instance', function () {
  let schema: TestSchema;
  let dataDir: string;
  let a: TestApp;
  let b: TestApp;
  let clientId: string;

  before(async () => {
    schema = await createTestSchema();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-revocation-'));
    // PostgreSQL: the same schema; SQLite: the same data folder (one database file, one Account key).
    const config = {
      databaseUrl: schema.databaseUrl, dataDir, publicUrl: PUBLIC_URL, accountIssuer: null, accountJwksUrl: null, seedDemoData: true,
    };
    a = await startTestApp({ config });
    b = await startTestApp({ config });
    const registered = await register(a.url);
    expect(registered.status).to.equal(201);
    clientId = ((await registered.json()) as { client_id: string }).client_id;
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await schema?.drop();
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
  });

  /** The public URL's origin swapped for A's address: every page and token request lands on A. */
  const toA = (url: URL) => (url.origin === PUBLIC_URL ? new URL(`${url.pathname}${url.search}`, a.url) : url);

  async function signIn(): Promise<{ code: string; verifier: string }> {
    const outcome = await authorize(PUBLIC_URL, clientId, { userAgent: { route: toA } });
    return { code: outcome.callback.searchParams.get('code') ?? '', verifier: outcome.verifier };
  }

  function exchange(grant: { code: string; verifier: string }) {
    return tokenRequest(a.url, {
      grant_type: 'authorization_code', code: grant.code, redirect_uri: FLOW_REDIRECT_URI,
      client_id: clientId, code_verifier: grant.verifier, resource: `${PUBLIC_URL}/mcp`,
    });
  }

  async function exchangeOk(grant: { code: string; verifier: string }): Promise<TokenResponse> {
    const { status, body } = await exchange(grant);
    expect(status, JSON.stringify(body)).to.equal(200);
    return body;
  }

  const refresh = (token: string) => tokenRequest(a.url, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });

  /** A tools/list at the instance's /mcp: its HTTP status. */
  async function mcpStatus(app: TestApp, token: string): Promise<number> {
    const { body, headers } = modernRequest(1, 'tools/list');
    return (await postMcp(`${app.url}/mcp`, body, { authorization: `Bearer ${token}`, ...headers })).status;
  }

  async function expectRefusedEverywhere(token: string): Promise<void> {
    for (const [name, app] of [['B', b], ['A', a]] as const) expect(await mcpStatus(app, token), `instance ${name}`).to.equal(401);
  }

  async function revocationRowOutlivesToken(token: string): Promise<void> {
    const { jti, exp } = decodeJwt(token);
    const row = await a.services.db.selectFrom('revoked_tokens').select('expires_at').where('jti', '=', jti as string).executeTakeFirstOrThrow();
    expect(Date.parse(row.expires_at) / 1000).to.be.at.least(exp as number);
  }

  it('a replayed refresh token: both access tokens of the grant are refused by B at its next call', async () => {
    const first = await exchangeOk(await signIn());
    expect(await mcpStatus(b, first.access_token)).to.equal(200);
    const rotated = await refresh(first.refresh_token as string);
    expect(rotated.status).to.equal(200);
    expect(await mcpStatus(b, rotated.body.access_token)).to.equal(200);
    expect(await mcpStatus(b, first.access_token)).to.equal(200);

    const replay = await refresh(first.refresh_token as string);
    expect(replay.body.error).to.equal('invalid_grant');
    await expectRefusedEverywhere(first.access_token);
    await expectRefusedEverywhere(rotated.body.access_token);
    await revocationRowOutlivesToken(first.access_token);
    await revocationRowOutlivesToken(rotated.body.access_token);
  });

  it('a replayed authorization code: the access token it gave is refused by B at its next call', async () => {
    const grant = await signIn();
    const token = await exchangeOk(grant);
    expect(await mcpStatus(b, token.access_token)).to.equal(200);
    const replay = await exchange(grant);
    expect(replay.body.error).to.equal('invalid_grant');
    await expectRefusedEverywhere(token.access_token);
    await revocationRowOutlivesToken(token.access_token);
  });

  it('/revoke of the refresh token: its access token is refused by B at its next call', async () => {
    const token = await exchangeOk(await signIn());
    expect(await mcpStatus(b, token.access_token)).to.equal(200);
    const revoke = await fetch(`${a.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: token.refresh_token as string, client_id: clientId }).toString(),
    });
    expect(revoke.status).to.equal(200);
    await expectRefusedEverywhere(token.access_token);
    await revocationRowOutlivesToken(token.access_token);
  });
});
