/**
 * Replicas share the embedded authorization server through PostgreSQL: a client registered at
 * replica A signs in at replica B (the interaction cookie and the CSRF token are signed with the
 * shared `oauth-cookie-key`, the interaction lives in `oauth_records`), exchanges its code at A
 * and refreshes at B; both replicas accept the token. PostgreSQL only (SQLite is one process).
 */
import { expect } from 'chai';
import { skipWithReason } from '../helpers/mocha.js';
import { createTestSchema, startTestApp, DEMO, type TestApp, type TestSchema } from '../helpers/index.js';
import { FLOW_REDIRECT_URI, authorize, tokenRequest } from './support/flow.js';

/** Replicas behind one load balancer share PUBLIC_URL (the issuer and the audiences). */
const PUBLIC_URL = 'http://finance.replicas.test';

describe('OAuth across replicas (PostgreSQL)', function () {
  let schema: TestSchema;
  let a: TestApp;
  let b: TestApp;
  before(async function () {
    if (!process.env.DATABASE_URL) skipWithReason(this, 'DATABASE_URL is unset; replicas share the authorization server through PostgreSQL only');
    schema = await createTestSchema();
    const config = { databaseUrl: schema.databaseUrl, publicUrl: PUBLIC_URL, accountIssuer: null, accountJwksUrl: null, seedDemoData: true };
    a = await startTestApp({ config });
    b = await startTestApp({ config });
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await schema?.drop();
  });

  it('registers at A, signs in at B, exchanges at A, refreshes at B', async () => {
    const register = await fetch(`${a.url}/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Replica client', redirect_uris: [FLOW_REDIRECT_URI], token_endpoint_auth_method: 'none' }),
    });
    expect(register.status).to.equal(201);
    const clientId = ((await register.json()) as { client_id: string }).client_id;
    // Every page request lands on B (the public URL's origin swapped for B's address).
    const toB = (url: URL) => (url.origin === PUBLIC_URL ? new URL(`${url.pathname}${url.search}`, b.url) : url);
    const outcome = await authorize(PUBLIC_URL, clientId, { userAgent: { route: toB } });
    expect(outcome.callback.searchParams.get('iss')).to.equal(PUBLIC_URL);
    const exchanged = await tokenRequest(a.url, {
      grant_type: 'authorization_code', code: outcome.callback.searchParams.get('code') ?? '', redirect_uri: FLOW_REDIRECT_URI,
      client_id: clientId, code_verifier: outcome.verifier, resource: `${PUBLIC_URL}/mcp`,
    });
    expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
    const refreshed = await tokenRequest(b.url, { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token as string, client_id: clientId });
    expect(refreshed.status, JSON.stringify(refreshed.body)).to.equal(200);
    for (const [replica, token] of [[a, refreshed.body.access_token], [b, exchanged.body.access_token]] as const) {
      const identity = await replica.services.auth.authenticator.authenticate(`Bearer ${token}`, 'mcp');
      expect(identity.personId).to.equal(DEMO.persons.ana);
    }
  });
});
