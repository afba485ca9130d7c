import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import Router from '@koa/router';
import type { Logger } from 'pino';
import { createMetrics, type Metrics } from '../../src/http/metrics.js';
import { redactPaths, requestObservability, resolveRequestId } from '../../src/http/observability.js';
import { captureLog, type CapturedLog } from '../helpers/log-capture.js';

const captureLogger = (): CapturedLog => captureLog('info');

async function startApp(logger: Logger, metrics: Metrics): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Koa();
  app.silent = true;
  app.use(requestObservability({ logger, metrics }));
  const router = new Router();
  router.get('/v1/payables/:id', (ctx) => {
    ctx.state.log.info({ step: 'inside' }, 'handler');
    ctx.body = { id: ctx.params.id };
  });
  router.get('/boom', () => {
    throw new Error('internal detail');
  });
  app.use(router.routes());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('requestObservability()', () => {
  let metrics: Metrics;
  let capture: ReturnType<typeof captureLogger>;
  let app: Awaited<ReturnType<typeof startApp>>;

  beforeEach(async () => {
    metrics = createMetrics({ defaultMetrics: false });
    capture = captureLogger();
    app = await startApp(capture.logger, metrics);
  });
  afterEach(() => app.close());

  it('writes one access line with request id, route, status and duration — no Authorization, no query values', async () => {
    const res = await fetch(`${app.url}/v1/payables/abc?secret_filter=s3cr3t-value`, {
      headers: { Authorization: 'Bearer tok-very-secret', 'X-Request-Id': 'req-123.A_b' },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('request-id')).to.equal('req-123.A_b');
    const access = capture.lines.filter((l) => l.msg === 'request');
    expect(access).to.have.length(1);
    expect(access[0]).to.include({ request_id: 'req-123.A_b', method: 'GET', route: '/v1/payables/:id', status: 200 });
    expect(access[0]?.duration_ms).to.be.a('number');
    // The handler's own line carries the same request id through ctx.state.log.
    expect(capture.lines.find((l) => l.msg === 'handler')?.request_id).to.equal('req-123.A_b');
    const everything = capture.raw.join('\n');
    expect(everything).not.to.include('tok-very-secret');
    expect(everything).not.to.include('s3cr3t-value');
    expect(everything).not.to.match(/authorization/i);
  });

  it('replaces an unsafe X-Request-Id with a generated UUID', async () => {
    const res = await fetch(`${app.url}/v1/payables/abc`, { headers: { 'X-Request-Id': 'bad id; <script>' } });
    const id = res.headers.get('request-id');
    expect(id).to.match(/^[0-9a-f-]{36}$/);
    expect(capture.lines.find((l) => l.msg === 'request')?.request_id).to.equal(id);
  });

  it('logs and labels unmatched routes "unmatched", never their path or query', async () => {
    await fetch(`${app.url}/nowhere/else?q=value-here`);
    const access = capture.lines.find((l) => l.msg === 'request');
    expect(access).to.include({ route: 'unmatched', status: 404 });
    expect(JSON.stringify(capture.lines)).not.to.match(/nowhere|value-here/);
    const text = await metrics.registry.metrics();
    expect(text).to.include('http_requests_total{route="unmatched",method="GET",status="404"} 1');
  });

  it('logs 500 for a thrown error and keeps the Request-Id header on the error response', async () => {
    const res = await fetch(`${app.url}/boom`, { headers: { 'X-Request-Id': 'err-1' } });
    expect(res.status).to.equal(500);
    expect(res.headers.get('request-id')).to.equal('err-1');
    expect(capture.lines.find((l) => l.msg === 'request')).to.include({ route: '/boom', status: 500 });
    expect(await res.text()).not.to.include('internal detail');
  });

  it('counts requests by matched route, method and status', async () => {
    await fetch(`${app.url}/v1/payables/a`);
    await fetch(`${app.url}/v1/payables/b`);
    const text = await metrics.registry.metrics();
    expect(text).to.include('http_requests_total{route="/v1/payables/:id",method="GET",status="200"} 2');
  });
});

describe('resolveRequestId()', () => {
  const table: Array<{ given: string | undefined; accepted: boolean }> = [
    { given: 'abc-DEF_1.2', accepted: true },
    { given: 'x'.repeat(128), accepted: true },
    { given: 'x'.repeat(129), accepted: false },
    { given: '', accepted: false },
    { given: 'with space', accepted: false },
    { given: 'new\nline', accepted: false },
    { given: undefined, accepted: false },
  ];
  for (const { given, accepted } of table) {
    it(`${accepted ? 'accepts' : 'replaces'} ${JSON.stringify(given)?.slice(0, 20)}`, () => {
      const id = resolveRequestId(given);
      if (accepted) expect(id).to.equal(given);
      else expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });
  }
});

describe('redactPaths', () => {
  it('removes authorization headers, tool arguments and bodies wherever a log call carries them', () => {
    const { logger, raw } = captureLogger();
    logger.info({
      req: { headers: { authorization: 'Bearer leak-1' } },
      headers: { authorization: 'Bearer leak-2' },
      authorization: 'Bearer leak-3',
      args: { amount: 'leak-4' },
      params: { name: 'finance_payables_settle', arguments: { id: 'leak-5' } },
      body: { description: 'leak-6' },
      rpc: { body: 'leak-7' },
      tool: 'finance_payables_settle',
    }, 'tools/call');
    const line = raw.join('\n');
    for (let i = 1; i <= 7; i += 1) expect(line).not.to.include(`leak-${i}`);
    expect(line).to.include('finance_payables_settle');
    expect(redactPaths).to.include('*.arguments');
  });
});
