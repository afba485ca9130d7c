import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DEMO, startTestApp, type TestApp } from '../helpers/index.js';


/** One `tools/call` over the 2025-03-26 era (no `_meta` needed), as any MCP client sends it. */
async function callTool(app: TestApp, token: string, name: string, args: Record<string, unknown>): Promise<{ status: number; result: { isError?: boolean; content?: Array<{ type: string; text: string }> } }> {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = (await res.json()) as { result: { isError?: boolean; content?: Array<{ type: string; text: string }> } };
  return { status: res.status, result: body.result };
}

function readToolError(result: { content?: Array<{ type: string; text: string }> }): { code: string; details?: Record<string, unknown> } {
  const text = result.content?.find((c) => c.type === 'text')?.text ?? '{}';
  return (JSON.parse(text) as { error: { code: string; details?: Record<string, unknown> } }).error;
}

function listPayablesRest(app: TestApp, token: string): Promise<Response> {
  return fetch(`${app.url}/v1/payables`, { headers: { Authorization: `Bearer ${token}`, 'X-Workspace-Id': DEMO.workspaces.matriz } });
}

describe('API budget shared by REST and MCP (same person, same organization)', () => {
  let app: TestApp;
  let token: string;
  let apiToken: string;

  beforeEach(async () => {
    // A unique key prefix: with REDIS_URL set (CI), other tests' calls by ana must not count here.
    app = await startTestApp({ config: { apiReadBudget: 4, apiWriteBudget: 2, redisKeyPrefix: `kf-test-${randomUUID()}:` } });
    // One person, two tokens: each surface accepts only its own audience.
    token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', aud: 'mcp' });
    apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', aud: 'api' });
  });
  afterEach(() => app.close());

  it('counts REST calls against MCP: the MCP call over budget is a RATE_LIMITED tool error', async () => {
    for (let i = 0; i < 4; i += 1) {
      const res = await listPayablesRest(app, apiToken);
      expect(res.status).to.equal(200);
      expect(res.headers.get('ratelimit-limit')).to.equal('4');
      expect(res.headers.get('ratelimit-remaining')).to.equal(String(3 - i));
    }
    const { status, result } = await callTool(app, token, 'finance_payables_list', { workspace_id: DEMO.workspaces.matriz });
    expect(status).to.equal(200);
    expect(result.isError).to.equal(true);
    const error = readToolError(result);
    expect(error.code).to.equal('RATE_LIMITED');
    expect(error.details?.retry_after_seconds).to.be.a('number').and.to.be.at.least(1);
  });

  it('counts MCP calls against REST: the REST call over budget is 429 with RateLimit-* and Retry-After', async () => {
    for (let i = 0; i < 4; i += 1) {
      const { result } = await callTool(app, token, 'finance_payables_list', { workspace_id: DEMO.workspaces.matriz });
      expect(result.isError ?? false).to.equal(false);
    }
    const res = await listPayablesRest(app, apiToken);
    expect(res.status).to.equal(429);
    expect(res.headers.get('ratelimit-limit')).to.equal('4');
    expect(res.headers.get('ratelimit-remaining')).to.equal('0');
    expect(Number(res.headers.get('ratelimit-reset'))).to.be.at.least(1);
    expect(Number(res.headers.get('retry-after'))).to.be.at.least(1);
    expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('RATE_LIMITED');
  });

  it('keeps the write budget apart from the read budget', async () => {
    for (let i = 0; i < 4; i += 1) await listPayablesRest(app, apiToken);
    expect((await listPayablesRest(app, apiToken)).status).to.equal(429);
    const res = await fetch(`${app.url}/v1/categories`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiToken}`, 'X-Workspace-Id': DEMO.workspaces.matriz, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Budget test category', type: 'debit' }),
    });
    expect(res.status).to.equal(201);
    expect(res.headers.get('ratelimit-limit')).to.equal('2');
    expect(res.headers.get('ratelimit-remaining')).to.equal('1');
  });
});

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

async function readMetric(app: TestApp, name: string): Promise<number> {
  const metric = await app.services.metrics.registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

describe('API budget across replicas (two app instances on one Redis)', () => {
  it('shares the budget: calls on one instance count on the other', async () => {
    const shared = { redisUrl: REDIS_URL, redisKeyPrefix: `kf-test-${randomUUID()}:`, apiReadBudget: 3 };
    const one = await startTestApp({ config: shared });
    const two = await startTestApp({ config: shared });
    try {
      const tokenOne = await one.mintToken({ person: DEMO.emails.ana, aud: 'api' });
      const tokenTwo = await two.mintToken({ person: DEMO.emails.ana, aud: 'api' });
      expect((await listPayablesRest(one, tokenOne)).headers.get('ratelimit-remaining')).to.equal('2');
      expect((await listPayablesRest(two, tokenTwo)).headers.get('ratelimit-remaining')).to.equal('1');
      expect((await listPayablesRest(one, tokenOne)).status).to.equal(200);
      expect((await listPayablesRest(two, tokenTwo)).status).to.equal(429);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('fails open when Redis is unreachable: the request is served and redis_errors_total grows', async () => {
    const app = await startTestApp({ config: { redisUrl: 'redis://127.0.0.1:1', apiReadBudget: 100 } });
    try {
      const token = await app.mintToken({ person: DEMO.emails.ana, aud: 'api' });
      const res = await listPayablesRest(app, token);
      expect(res.status).to.equal(200);
      expect(res.headers.get('ratelimit-remaining')).to.equal('99');
      expect(await readMetric(app, 'redis_errors_total')).to.be.at.least(1);
      const ready = await fetch(`${app.url}/readyz`);
      expect(ready.status).to.equal(503);
      expect(await ready.json()).to.deep.equal({ status: 'unavailable', checks: { database: 'ok', redis: 'unavailable' } });
    } finally {
      await app.close();
    }
  });
});
