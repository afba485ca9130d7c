import net from 'node:net';
import { expect } from 'chai';
import { createServices, type Services } from '../../src/bootstrap.js';
import { createApp } from '../../src/app.js';
import { listenGracefully, type GracefulServer } from '../../src/http/server.js';
import { captureLog, type LogLine } from '../helpers/log-capture.js';
import { DEMO, buildTestConfig } from '../helpers/index.js';

type Line = LogLine;

interface LoggedApp {
  url: string;
  services: Services;
  lines: Line[];
  raw: string[];
  close(): Promise<void>;
}

/** The real app, wired like main.ts, with its log stream captured in memory. */
async function startLoggedApp(level = 'info'): Promise<LoggedApp> {
  const { logger, lines, raw } = captureLog(level);
  const config = buildTestConfig({ redisUrl: null, metricsToken: 'scrape-token', logLevel: level });
  const services = await createServices(config, logger);
  const server: GracefulServer = await listenGracefully(createApp(services), services, { port: 0, host: '127.0.0.1' });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, services, lines, raw, close: () => server.shutdown() };
}

describe('observability of the real app', () => {
  let app: LoggedApp;
  before(async () => {
    app = await startLoggedApp();
  });
  after(() => app.close());

  it('writes one access line per REST request with the request id, and never the token or query values', async () => {
    const token = await app.services.auth.mintToken!({ person: DEMO.emails.ana, aud: 'api' });
    const res = await fetch(`${app.url}/v1/payables?status=secret-filter-value`, {
      headers: { Authorization: `Bearer ${token}`, 'X-Workspace-Id': DEMO.workspaces.matriz, 'X-Request-Id': 'obs-rest-1' },
    });
    expect(res.headers.get('request-id')).to.equal('obs-rest-1');
    const access = app.lines.filter((l) => l.msg === 'request' && l.request_id === 'obs-rest-1');
    expect(access).to.have.length(1);
    expect(access[0]).to.include({ method: 'GET', route: '/v1/payables', status: res.status });
    const log = app.raw.join('\n');
    expect(log).not.to.include(token);
    expect(log).not.to.include('secret-filter-value');
  });

  it('writes one tools/call line without argument values, and /metrics exposes the series', async () => {
    const token = await app.services.auth.mintToken!({ person: DEMO.emails.ana, aud: 'mcp' });
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-Request-Id': 'obs-mcp-1',
      },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 7, method: 'tools/call',
        params: { name: 'finance_payables_list', arguments: { workspace_id: DEMO.workspaces.matriz, filters: { status: 'argument-value-secret' } } },
      }),
    });
    expect(res.status).to.equal(200);
    const calls = app.lines.filter((l) => l.msg === 'tools/call' && l.request_id === 'obs-mcp-1');
    expect(calls).to.have.length(1);
    expect(calls[0]).to.include({ tool: 'finance_payables_list', person: DEMO.persons.ana, workspace: DEMO.workspaces.matriz });
    expect(app.lines.filter((l) => l.msg === 'request' && l.request_id === 'obs-mcp-1')).to.have.length(1);
    const log = app.raw.join('\n');
    expect(log).not.to.include('argument-value-secret');
    expect(log).not.to.include(token);

    // A bad token feeds token_verification_failures_total.
    await fetch(`${app.url}/v1/payables`, { headers: { Authorization: 'Bearer not-a-jwt' } });

    const metrics = await fetch(`${app.url}/metrics`, { headers: { Authorization: 'Bearer scrape-token' } });
    expect(metrics.status).to.equal(200);
    const text = await metrics.text();
    expect(text).to.match(/http_requests_total\{route="\/v1\/payables",method="GET",status="\d{3}"\} \d+/);
    expect(text).to.match(/http_requests_total\{route="\/mcp",method="POST",status="200"\} 1/);
    expect(text).to.match(/mcp_tool_calls_total\{tool="finance_payables_list",status="[a-zA-Z_]+"\} 1/);
    expect(text).to.match(/mcp_tool_call_duration_seconds_count\{tool="finance_payables_list",status="[a-zA-Z_]+"\} 1/);
    expect(text).to.match(/token_verification_failures_total\{reason="[a-z_]+"\} 1/);
  });
});

/** Sends the head and the start of a body that never completes, then cuts the connection. */
async function abortMidBody(url: string, path: string, headers: Record<string, string>, pauseMs: number): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const head = Object.entries({ host: `${hostname}:${port}`, 'content-type': 'application/json', 'content-length': '100000', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n{"partial":`);
  // Where the cut lands (before or while the body is read) is not controlled: the answer must not depend on it.
  if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  socket.destroy();
}

describe('observability of client aborts and unmatched routes', () => {
  let app: LoggedApp;
  const printed: unknown[][] = [];
  const consoleError = console.error;
  before(async () => {
    app = await startLoggedApp('debug');
    // Koa's default error handler prints stacks with console.error; nothing may reach it.
    console.error = (...args: unknown[]) => { printed.push(args); };
  });
  after(async () => {
    console.error = consoleError;
    await app.close();
  });

  async function accessLine(requestId: string): Promise<Line> {
    for (;;) {
      const line = app.lines.find((l) => l.msg === 'request' && l.request_id === requestId);
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('logs a client that aborts mid-body at debug, without a stack, never as an error (REST and MCP)', async () => {
    const mcpToken = await app.services.auth.mintToken!({ person: DEMO.emails.ana, aud: 'mcp' });
    const apiToken = await app.services.auth.mintToken!({ person: DEMO.emails.ana, aud: 'api', scope: 'finance.all.write' });
    const cases = [
      { path: '/mcp', route: '/mcp', token: mcpToken },
      { path: '/v1/cost_centers', route: '/v1/cost_centers', token: apiToken },
    ];
    for (const { path, route, token } of cases) {
      for (const pauseMs of [0, 300]) {
        const requestId = `abort-${route.replace(/\W/g, '')}-${pauseMs}`;
        await abortMidBody(app.url, path, { authorization: `Bearer ${token}`, 'x-workspace-id': DEMO.workspaces.matriz, 'x-request-id': requestId }, pauseMs);
        const access = await accessLine(requestId);
        const lines = app.lines.filter((l) => l.request_id === requestId);
        expect(lines.filter((l) => Number(l.level) >= 40), JSON.stringify(lines)).to.deep.equal([]);
        const aborted = lines.filter((l) => l.event === 'client_aborted');
        expect(aborted, JSON.stringify(lines)).to.have.length(1);
        expect(aborted[0]?.level).to.equal(20);
        expect(JSON.stringify(aborted[0])).not.to.match(/stack|unhandled/);
        expect(access).to.include({ route, status: 499 });
      }
    }
    expect(printed).to.deep.equal([]);
  });

  it('never logs the raw path of an unmatched route (a token pasted into a path)', async () => {
    const token = await app.services.auth.mintToken!({ person: DEMO.emails.ana, aud: 'api' });
    for (const [path, requestId] of [[`/v1/${token}`, 'unmatched-v1'], [`/${token}/x`, 'unmatched-root'], ['/v1/payables/x/y/z-secret-segment', 'unmatched-deep']] as const) {
      const res = await fetch(`${app.url}${path}`, { headers: { 'x-request-id': requestId } });
      expect(res.status).to.equal(404);
      expect(await accessLine(requestId)).to.include({ route: 'unmatched', status: 404 });
    }
    const log = app.raw.join('\n');
    expect(log).not.to.include(token);
    expect(log).not.to.include(token.split('.')[1] as string);
    expect(log).not.to.include('z-secret-segment');
  });
});
