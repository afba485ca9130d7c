/**
 * TRUST_PROXY (config.trustProxy → app.proxy): which address the failed-authentication throttle
 * counts. Off (the default), X-Forwarded-For is ignored and the socket's peer is the address, so a
 * client cannot dodge the throttle by inventing addresses; on, the forwarded address is used, so
 * clients behind one proxy are throttled independently. Real app, real /v1 and /mcp.
 */
import { expect } from 'chai';
import { startTestApp, DEMO, type TestApp } from '../helpers/index.js';
import { loadConfig, ConfigError } from '../../src/config.js';

const LIMIT = 3;
const BAD = { authorization: 'Bearer bad.token.here' };

/** GET for /v1 paths; a JSON-RPC `ping` POST for /mcp. */
async function statusOf(app: TestApp, path: string, headers: Record<string, string>): Promise<{ status: number; retryAfter: string | null }> {
  const res = path === '/mcp'
    ? await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    })
    : await fetch(`${app.url}${path}`, { headers });
  await res.arrayBuffer();
  return { status: res.status, retryAfter: res.headers.get('retry-after') };
}

const from = (address: string, headers: Record<string, string> = BAD) => ({ ...headers, 'x-forwarded-for': address });

describe('TRUST_PROXY configuration', () => {
  it('defaults to false and reads true/false/1/0', () => {
    expect(loadConfig({}).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: '' }).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).to.equal(true);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).to.equal(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).to.equal(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).to.equal(false);
  });

  it('fails start-up naming TRUST_PROXY for anything else', () => {
    for (const raw of ['yes', 'TRUE', 'on', '2']) {
      let error: unknown;
      try {
        loadConfig({ TRUST_PROXY: raw });
      } catch (err) {
        error = err;
      }
      expect(error, raw).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).variable).to.equal('TRUST_PROXY');
    }
  });
});

describe('failed-authentication throttle address with TRUST_PROXY=false (default)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ config: { authFailureLimitPerMinute: LIMIT } });
  });
  after(async () => app?.close());

  it('ignores a spoofed X-Forwarded-For: every invented address is the same peer', async () => {
    expect(app.services.config.trustProxy).to.equal(false);
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i += 1) statuses.push((await statusOf(app, '/v1/payables', from(`198.51.100.${i + 1}`))).status);
    expect(statuses).to.deep.equal(Array(LIMIT).fill(401));
    const spoofed = await statusOf(app, '/v1/payables', from('203.0.113.77'));
    expect(spoofed.status).to.equal(429);
    expect(Number(spoofed.retryAfter)).to.be.greaterThan(0);
    expect((await statusOf(app, '/mcp', from('203.0.113.78'))).status).to.equal(429);
    expect((await statusOf(app, '/v1/payables', BAD)).status).to.equal(429);

    // A valid token from the throttled peer still passes.
    const token = await app.mintToken({ person: DEMO.emails.ana, aud: 'api' });
    const ok = await statusOf(app, `/v1/payables?limit=1`, from('203.0.113.79', { authorization: `Bearer ${token}`, 'x-workspace-id': DEMO.workspaces.matriz }));
    expect(ok.status).to.equal(200);
  });
});

describe('failed-authentication throttle address with TRUST_PROXY=true', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ config: { authFailureLimitPerMinute: LIMIT, trustProxy: true } });
  });
  after(async () => app?.close());

  it('believes only the entry the proxy appended: a client cannot rotate the left of X-Forwarded-For', async () => {
    const proxySaw = '198.51.100.30';
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i += 1) {
      const invented = `203.0.113.${i + 1}`;
      statuses.push((await statusOf(app, '/v1/payables', { ...BAD, 'X-Forwarded-For': `${invented}, ${proxySaw}` })).status);
    }
    expect(statuses).to.deep.equal([...Array(LIMIT).fill(401), 429]);
  });

  it('throttles two forwarded addresses independently', async () => {
    const a = '198.51.100.10';
    const b = '198.51.100.20';
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 1; i += 1) statuses.push((await statusOf(app, '/v1/payables', from(a))).status);
    expect(statuses).to.deep.equal([...Array(LIMIT).fill(401), 429]);
    expect((await statusOf(app, '/mcp', from(a))).status).to.equal(429);

    // B shares the proxy's socket address but not A's counter.
    expect((await statusOf(app, '/v1/payables', from(b))).status).to.equal(401);
    expect((await statusOf(app, '/mcp', from(b))).status).to.equal(401);
    expect((await statusOf(app, '/v1/payables', from(b))).status).to.equal(401);
    const overB = await statusOf(app, '/v1/payables', from(b));
    expect(overB.status).to.equal(429);
    expect(Number(overB.retryAfter)).to.be.greaterThan(0);

    // Without the header the peer address is used: its own, untouched counter.
    expect((await statusOf(app, '/v1/payables', BAD)).status).to.equal(401);
  });
});
