/**
 * Trace context with tracing off (no exporter configured, the SDK not loaded): a received
 * `traceparent` still reaches the access line and the `tools/call` line — its trace id, and the
 * caller's span id (no span of the server's own exists) — and the message's `_meta` wins over the
 * HTTP header for the message. Exported spans: test/http/otel-tracing.test.ts.
 */
import { expect } from 'chai';
import { DEMO, startTestApp, type TestApp } from '../helpers/index.js';
import { captureLog, type CapturedLog, type LogLine } from '../helpers/log-capture.js';

const HEADER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const HEADER_SPAN = 'b7ad6b7169203331';
const META_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const META_SPAN = '00f067aa0ba902b7';
const HEADER = `00-${HEADER_TRACE}-${HEADER_SPAN}-01`;
const META = `00-${META_TRACE}-${META_SPAN}-01`;

describe('trace context in the log lines (tracing off)', function () {
  let app: TestApp;
  let log: CapturedLog;
  let mcpToken: string;
  let requestCount = 0;

  before(async function () {
    log = captureLog();
    app = await startTestApp({ logger: log.logger, config: { logLevel: 'info' } });
    mcpToken = await app.mintToken({ person: DEMO.emails.ana, aud: 'mcp' });
  });
  after(() => app.close());

  /** One `tools/call` with the given headers and `_meta`; its access line and its tools/call line. */
  async function callTool(headers: Record<string, string>, meta?: Record<string, unknown>): Promise<{ access: LogLine; call: LogLine }> {
    const requestId = `trace-app-${++requestCount}`;
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${mcpToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-Request-Id': requestId, ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0', id: 1, method: 'tools/call',
        params: { name: 'finance_payables_list', arguments: { workspace_id: DEMO.workspaces.matriz, limit: 1 }, ...(meta ? { _meta: meta } : {}) },
      }),
    });
    expect(res.status).to.equal(200);
    const access = log.lines.filter((l) => l.msg === 'request' && l.request_id === requestId);
    const calls = log.lines.filter((l) => l.msg === 'tools/call' && l.request_id === requestId);
    expect(access).to.have.length(1);
    expect(calls).to.have.length(1);
    return { access: access[0]!, call: calls[0]! };
  }

  it('puts the traceparent header\'s trace id (and the caller\'s span id) in the access line of a REST request', async function () {
    const token = await app.mintToken({ person: DEMO.emails.ana, aud: 'api' });
    const res = await fetch(`${app.url}/v1/payables?limit=1`, {
      headers: { Authorization: `Bearer ${token}`, 'X-Workspace-Id': DEMO.workspaces.matriz, 'X-Request-Id': 'trace-rest-1', traceparent: HEADER },
    });
    expect(res.status).to.equal(200);
    const access = log.lines.filter((l) => l.msg === 'request' && l.request_id === 'trace-rest-1');
    expect(access).to.have.length(1);
    expect(access[0]).to.include({ trace_id: HEADER_TRACE, span_id: HEADER_SPAN, route: '/v1/payables' });
  });

  it('puts the header\'s trace id in the access line and the tools/call line', async function () {
    const { access, call } = await callTool({ traceparent: HEADER });
    expect(access).to.include({ trace_id: HEADER_TRACE, span_id: HEADER_SPAN });
    expect(call).to.include({ trace_id: HEADER_TRACE, span_id: HEADER_SPAN, tool: 'finance_payables_list' });
  });

  it('lets the message\'s _meta.traceparent win for the message: the tools/call line carries it, the access line the header\'s', async function () {
    const { access, call } = await callTool({ traceparent: HEADER }, { traceparent: META, tracestate: 'congo=t61rcWkgMzE' });
    expect(access).to.include({ trace_id: HEADER_TRACE, span_id: HEADER_SPAN });
    expect(call).to.include({ trace_id: META_TRACE, span_id: META_SPAN });
    expect(log.raw.join('\n')).not.to.include('t61rcWkgMzE');
  });

  it('reads _meta.traceparent without a header', async function () {
    const { access, call } = await callTool({}, { traceparent: META });
    expect(access).not.to.have.property('trace_id');
    expect(call).to.include({ trace_id: META_TRACE, span_id: META_SPAN });
  });

  it('ignores an invalid traceparent (upper case, in the header and in _meta): no trace fields, nothing of it logged', async function () {
    const { access, call } = await callTool({ traceparent: HEADER.toUpperCase() }, { traceparent: META.toUpperCase() });
    for (const line of [access, call]) {
      expect(line).not.to.have.property('trace_id');
      expect(line).not.to.have.property('span_id');
    }
    expect(JSON.stringify([access, call]).toLowerCase()).not.to.include(META_TRACE);
  });

  it('writes no trace fields for a request without trace context (nothing is generated with tracing off)', async function () {
    const { access, call } = await callTool({});
    expect(access).not.to.have.property('trace_id');
    expect(call).not.to.have.property('trace_id');
    expect(app.services.tracing.exporting).to.equal(false);
  });
});
