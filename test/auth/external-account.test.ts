import { expect } from 'chai';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { createAuth, type AuthLimits, type AuthModule } from '../../src/auth/index.js';
import { createMetrics, type Metrics } from '../../src/http/metrics.js';
import { CHALLENGE_SCOPES } from '../../src/identity/scopes.js';
import { buildTestConfig, openTestDatabase, startTestApp, DEMO, type TestDatabase } from '../helpers/index.js';
import { craftToken } from '../helpers/tokens.js';
import { createManualClock } from '../helpers/clock.js';
import { startProbe, type Probe } from './bearer-probe.js';

const ISSUER = 'https://account.example.test';
const PUBLIC_URL = 'https://finance.example.test';
const noLimits: AuthLimits = { assertAuthAllowed: async () => {}, recordAuthFailure: async () => {} };

interface SigningKey { kid: string; privateKey: CryptoKey; publicJwk: JWK }

async function createSigningKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = randomUUID();
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** A stand-in external Account: serves a JWKS it can change, counts fetches, can go down. */
interface JwksServer { url: string; keys: JWK[]; fetches: number; failing: boolean; close(): Promise<void> }

async function startJwksServer(keys: JWK[]): Promise<JwksServer> {
  const state = { keys, fetches: 0, failing: false };
  const server = http.createServer((req, res) => {
    state.fetches += 1;
    if (state.failing) {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/jwks`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  });
}

/** Claims issued at `nowMs`: the instant of the clock the verifying module runs on. */
function claimsFor(audience: 'mcp' | 'api' = 'mcp', nowMs: number = Date.now()): Record<string, unknown> {
  const now = Math.floor(nowMs / 1000);
  return {
    iss: ISSUER, aud: `${PUBLIC_URL}/${audience === 'mcp' ? 'mcp' : 'v1'}`, sub: DEMO.persons.ana, org: DEMO.organizationId,
    scope: 'finance.all', token_type: 'personal', jti: randomUUID(), iat: now, exp: now + 600,
  };
}

async function get(probe: Probe, token: string): Promise<Response> {
  return fetch(`${probe.url}/x`, { headers: { authorization: `Bearer ${token}` } });
}


describe('external Account (ACCOUNT_ISSUER + ACCOUNT_JWKS_URL)', () => {
  const COOLDOWN_MS = 30_000;
  // The Account module (its JWKS cache included) runs on this clock: the tests step it past the
  // cooldown instead of sleeping, so a slow machine can never stretch "inside the cooldown" past its end.
  const clock = createManualClock();
  const passCooldown = (): void => { clock.advance(COOLDOWN_MS + 50); };
  let store: TestDatabase;
  let signing: SigningKey;
  let jwks: JwksServer;
  let metrics: Metrics;
  let auth: AuthModule;
  let probe: Probe;

  before(async () => {
    store = await openTestDatabase();
    signing = await createSigningKey();
    jwks = await startJwksServer([signing.publicJwk]);
    metrics = createMetrics({ defaultMetrics: false });
    const config = buildTestConfig({ publicUrl: PUBLIC_URL, accountIssuer: ISSUER, accountJwksUrl: jwks.url });
    auth = await createAuth(config, store.db, pino({ level: 'silent' }), metrics, { jwksCooldownMs: COOLDOWN_MS, clock });
    probe = await startProbe(auth, 'mcp', noLimits);
  });
  after(async () => {
    await probe?.close();
    await jwks?.close();
    await store?.close();
  });

  it('has no embedded minting', () => {
    expect(auth.mintToken).to.equal(undefined);
    expect(auth.issuer).to.equal(ISSUER);
    expect(auth.audiences).to.deep.equal({ mcp: `${PUBLIC_URL}/mcp`, api: `${PUBLIC_URL}/v1` });
  });

  it('verifies a token signed by the Account and caches the JWKS', async () => {
    const before = jwks.fetches;
    for (let i = 0; i < 3; i += 1) {
      const res = await get(probe, await craftToken(claimsFor('mcp', clock.now()), { key: signing.privateKey, kid: signing.kid }));
      expect(res.status).to.equal(200);
    }
    expect(jwks.fetches - before).to.be.at.most(1);
    const fetched = await metrics.jwksFetches.get();
    expect(fetched.values.find((v) => v.labels.result === 'ok')?.value).to.be.greaterThan(0);
  });

  it('refetches once on an unknown kid and the cooldown limits further refetches', async () => {
    passCooldown();
    const stranger = await createSigningKey();
    const before = jwks.fetches;
    for (let i = 0; i < 6; i += 1) {
      const res = await get(probe, await craftToken(claimsFor('mcp', clock.now()), { key: stranger.privateKey, kid: `${stranger.kid}-${i}` }));
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.contain('error="invalid_token"');
      expect((await res.json()).error.message).to.match(/unknown key/);
    }
    expect(jwks.fetches - before).to.equal(1);
  });

  it('accepts a rotated key after the cooldown (refetch on unknown kid)', async () => {
    const rotated = await createSigningKey();
    jwks.keys = [signing.publicJwk, rotated.publicJwk];
    passCooldown();
    const before = jwks.fetches;
    const res = await get(probe, await craftToken(claimsFor('mcp', clock.now()), { key: rotated.privateKey, kid: rotated.kid }));
    expect(res.status).to.equal(200);
    expect(jwks.fetches - before).to.equal(1);
  });

  it('keeps verifying with cached keys while the Account is down', async () => {
    jwks.failing = true;
    try {
      const res = await get(probe, await craftToken(claimsFor('mcp', clock.now()), { key: signing.privateKey, kid: signing.kid }));
      expect(res.status).to.equal(200);
    } finally {
      jwks.failing = false;
    }
  });

  it('answers 401 (never 503) to unknown kids while the Account is down and a key set is held: the cooldown is not a failure', async () => {
    jwks.failing = true;
    try {
      passCooldown();
      const stranger = await createSigningKey();
      const tokens = await Promise.all(Array.from({ length: 40 }, (_, i) => craftToken(claimsFor('mcp', clock.now()), { key: stranger.privateKey, kid: `${stranger.kid}-${i}` })));
      const fetchesBefore = jwks.fetches;
      const failuresBefore = (await metrics.jwksFetches.get()).values.find((v) => v.labels.result === 'error')?.value ?? 0;
      // Concurrent with the one refetch (which fails), then right after it, inside the cooldown.
      const during = await Promise.all(tokens.slice(0, 20).map(async (token) => (await get(probe, token)).status));
      const after = await Promise.all(tokens.slice(20).map(async (token) => (await get(probe, token)).status));
      expect(during).to.deep.equal(Array(20).fill(401));
      expect(after).to.deep.equal(Array(20).fill(401));
      expect(jwks.fetches - fetchesBefore).to.equal(1);
      expect((await metrics.jwksFetches.get()).values.find((v) => v.labels.result === 'error')?.value).to.equal(failuresBefore + 1);
      // The held keys still verify.
      expect((await get(probe, await craftToken(claimsFor('mcp', clock.now()), { key: signing.privateKey, kid: signing.kid }))).status).to.equal(200);
    } finally {
      jwks.failing = false;
    }
  });
});

describe('external Account unreachable with no cached key', () => {
  let store: TestDatabase;
  let probe: Probe;
  let metrics: Metrics;

  before(async () => {
    store = await openTestDatabase();
    const down = await startJwksServer([]);
    await down.close(); // the port is now closed: connection refused
    metrics = createMetrics({ defaultMetrics: false });
    const config = buildTestConfig({ publicUrl: PUBLIC_URL, accountIssuer: ISSUER, accountJwksUrl: down.url });
    const auth = await createAuth(config, store.db, pino({ level: 'silent' }), metrics, { jwksCooldownMs: 5_000 });
    probe = await startProbe(auth, 'mcp', noLimits);
  });
  after(async () => {
    await probe?.close();
    await store?.close();
  });

  it('returns 503 with Retry-After and does not hammer the Account', async () => {
    const signing = await createSigningKey();
    for (let i = 0; i < 3; i += 1) {
      const res = await get(probe, await craftToken(claimsFor(), { key: signing.privateKey, kid: signing.kid }));
      expect(res.status).to.equal(503);
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(retryAfter).to.be.within(1, 5);
      expect((await res.json()).error.message).to.match(/Account is unavailable/);
    }
    const fetched = await metrics.jwksFetches.get();
    expect(fetched.values.find((v) => v.labels.result === 'error')?.value).to.equal(1);
  });

  it('still answers 401 (not 503) when no token is sent', async () => {
    const res = await fetch(`${probe.url}/x`);
    expect(res.status).to.equal(401);
    expect(res.headers.get('www-authenticate')).to.equal(
      `Bearer resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource", scope="${CHALLENGE_SCOPES.join(' ')}"`,
    );
  });
});

describe('startTestApp() with an external Account', () => {
  it('serves no embedded JWKS or issuer metadata, and points the resource metadata at the Account', async () => {
    const app = await startTestApp({ config: { accountIssuer: ISSUER, accountJwksUrl: 'http://127.0.0.1:9/jwks' } });
    try {
      expect((await fetch(`${app.url}/.well-known/jwks.json`)).status).to.equal(404);
      expect((await fetch(`${app.url}/.well-known/oauth-authorization-server`)).status).to.equal(404);
      const metadata = await (await fetch(`${app.url}/.well-known/oauth-protected-resource`)).json();
      expect(metadata.authorization_servers).to.deep.equal([ISSUER]);
    } finally {
      await app.close();
    }
  });
});
