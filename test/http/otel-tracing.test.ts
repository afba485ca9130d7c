/**
 * Spans through the OpenTelemetry SDK (src/http/otel-tracing.ts), exported to an in-memory
 * exporter (ServiceOptions.spanExporter): a request's span is a child of its `traceparent`
 * header, each MCP message's span a child of the HTTP span — or of the message's
 * `_meta.traceparent`, which wins, the HTTP span then a link — and the log lines carry the ids of
 * the exported spans. The attributes are the log's fields: no token, no argument value.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { DEMO, startTestApp, type TestApp } from '../helpers/index.js';
import { captureLog, type CapturedLog, type LogLine } from '../helpers/log-capture.js';

const HEADER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const HEADER_SPAN = 'b7ad6b7169203331';
const META_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const META_SPAN = '00f067aa0ba902b7';
const HEADER = `00-${HEADER_TRACE}-${HEADER_SPAN}-01`;
const META = `00-${META_TRACE}-${META_SPAN}-01`;
const SECRET_ARGUMENT = 'argument-value-secret';

interface Exchange {
  readonly access: LogLine;
  readonly call: LogLine | undefined;
  /** The spans exported during the request: the HTTP span, then (for /mcp) the message's. */
  readonly http: ReadableSpan;
  readonly message: ReadableSpan | undefined;
  readonly body: Record<string, unknown>;
}

describe('spans through the OpenTelemetry SDK (in-memory exporter)', function () {
  let app: TestApp;
  let log: CapturedLog;
  let exporter: InMemorySpanExporter;
  let mcpToken: string;
  let requestCount = 0;

  before(async function () {
    log = captureLog();
    exporter = new InMemorySpanExporter();
    app = await startTestApp({ logger: log.logger, config: { logLevel: 'info' }, spanExporter: exporter });
    mcpToken = await app.mintToken({ person: DEMO.emails.ana, aud: 'mcp' });
  });
  after(() => app.close());

  /** One request; its log lines and the spans exported while it ran (the HTTP span ends last). */
  async function send(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Exchange> {
    const requestId = `otel-${++requestCount}`;
    exporter.reset();
    const res = await fetch(`${app.url}${path}`, { ...init, headers: { 'X-Request-Id': requestId, ...init.headers } });
    const body = await res.json() as Record<string, unknown>;
    const spans = exporter.getFinishedSpans();
    const http = spans.find((span) => span.kind === SpanKind.SERVER && 'http.request.method' in span.attributes);
    expect(http, 'the HTTP span').to.not.equal(undefined);
    const access = log.lines.filter((l) => l.msg === 'request' && l.request_id === requestId);
    expect(access).to.have.length(1);
    return {
      access: access[0]!,
      call: log.lines.find((l) => l.msg === 'tools/call' && l.request_id === requestId),
      http: http!,
      message: spans.find((span) => 'mcp.method.name' in span.attributes),
      body,
    };
  }

  function callTool(headers: Record<string, string>, params: Record<string, unknown>): Promise<Exchange> {
    return send('/mcp', {
      method: 'POST',
      headers: { Authorization: `Bearer ${mcpToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }),
    });
  }

  const listArgs = { workspace_id: DEMO.workspaces.matriz, limit: 1, filters: { document_number: SECRET_ARGUMENT } };

  it('exports the REST request\'s span as a child of the traceparent header, its ids in the access line', async function () {
    const token = await app.mintToken({ person: DEMO.emails.ana, aud: 'api' });
    const { access, http } = await send('/v1/payables?limit=1', { headers: { Authorization: `Bearer ${token}`, 'X-Workspace-Id': DEMO.workspaces.matriz, traceparent: HEADER } });
    expect(http.spanContext().traceId).to.equal(HEADER_TRACE);
    expect(http.parentSpanContext?.spanId).to.equal(HEADER_SPAN);
    expect(http.parentSpanContext?.isRemote).to.equal(true);
    expect(http.name).to.equal('GET /v1/payables');
    expect(http.attributes).to.deep.equal({ 'http.request.method': 'GET', 'http.route': '/v1/payables', 'http.response.status_code': 200 });
    expect(access).to.include({ trace_id: HEADER_TRACE, span_id: http.spanContext().spanId });
    expect(access['span_id']).to.not.equal(HEADER_SPAN);
  });

  it('sends traceparent and finds its trace id in the tools/call line and in the exported message span, a child of the HTTP span', async function () {
    const { access, call, http, message } = await callTool({ traceparent: HEADER }, { name: 'finance_payables_list', arguments: listArgs });
    expect(message, 'the message span').to.not.equal(undefined);
    expect(message!.spanContext().traceId).to.equal(HEADER_TRACE);
    expect(message!.parentSpanContext?.spanId).to.equal(http.spanContext().spanId);
    expect(message!.kind).to.equal(SpanKind.SERVER);
    expect(message!.name).to.equal('tools/call finance_payables_list');
    expect(message!.links).to.deep.equal([]);
    expect(call).to.include({ trace_id: HEADER_TRACE, span_id: message!.spanContext().spanId, tool: 'finance_payables_list' });
    expect(access).to.include({ trace_id: HEADER_TRACE, span_id: http.spanContext().spanId });
  });

  it('gives the message span the log line\'s fields only: never an argument value, never the token', async function () {
    const { http, message, call } = await callTool({ traceparent: HEADER }, { name: 'finance_payables_list', arguments: listArgs });
    expect(message!.attributes).to.deep.equal({
      'mcp.method.name': 'tools/call',
      'mcp.protocol.version': call!['era'],
      'network.protocol.name': 'http',
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'finance_payables_list',
      'kobana.finance.call.status': 'ok',
      'kobana.finance.token_type': call!['token_type'],
      'kobana.finance.workspace.id': DEMO.workspaces.matriz,
    });
    expect(message!.status.code).to.equal(SpanStatusCode.UNSET);
    const exported = JSON.stringify([http, message].map((span) => ({ name: span!.name, attributes: span!.attributes, events: span!.events })));
    expect(exported).not.to.include(SECRET_ARGUMENT);
    expect(exported).not.to.include(mcpToken);
    expect(exported).not.to.include(mcpToken.split('.')[2]!);
  });

  it('lets _meta.traceparent win: the message span is its child and links the HTTP span, which stays the header\'s', async function () {
    const { access, call, http, message } = await callTool({ traceparent: HEADER }, {
      name: 'finance_payables_list', arguments: listArgs, _meta: { traceparent: META, tracestate: 'congo=t61rcWkgMzE' },
    });
    expect(http.spanContext().traceId).to.equal(HEADER_TRACE);
    expect(message!.spanContext().traceId).to.equal(META_TRACE);
    expect(message!.parentSpanContext?.spanId).to.equal(META_SPAN);
    expect(message!.spanContext().traceState?.get('congo')).to.equal('t61rcWkgMzE');
    expect(message!.links.map((link) => link.context.spanId)).to.deep.equal([http.spanContext().spanId]);
    expect(call).to.include({ trace_id: META_TRACE, span_id: message!.spanContext().spanId });
    expect(access).to.include({ trace_id: HEADER_TRACE, span_id: http.spanContext().spanId });
  });

  it('starts a trace of its own without trace context (or with an invalid one), and the lines carry its ids', async function () {
    const { call, http, message } = await callTool({ traceparent: HEADER.toUpperCase() }, { name: 'finance_payables_list', arguments: listArgs });
    expect(http.parentSpanContext).to.equal(undefined);
    expect(http.spanContext().traceId).to.not.equal(HEADER_TRACE);
    expect(message!.spanContext().traceId).to.equal(http.spanContext().traceId);
    expect(call).to.include({ trace_id: http.spanContext().traceId, span_id: message!.spanContext().spanId });
  });

  it('marks a tool\'s error result on its span (tool_error, the status code) and a JSON-RPC error with its code', async function () {
    const refused = await callTool({}, { name: 'finance_payables_list', arguments: { workspace_id: 'not-a-workspace-of-ana', limit: 1 } });
    expect((refused.body['result'] as { isError?: boolean }).isError).to.equal(true);
    expect(refused.message!.status.code).to.equal(SpanStatusCode.ERROR);
    expect(refused.message!.attributes).to.include({ 'error.type': 'tool_error', 'kobana.finance.call.status': refused.call!['status'] });
    expect(JSON.stringify(refused.message!.attributes)).not.to.include('not-a-workspace-of-ana');
    const unknown = await callTool({}, { name: 'finance_no_such_tool', arguments: {} });
    expect(unknown.message!.name).to.equal('tools/call');
    expect(unknown.message!.attributes).to.include({ 'error.type': '-32602', 'gen_ai.tool.name': '(unknown)' });
    expect(JSON.stringify(unknown.message!.attributes)).not.to.include('finance_no_such_tool');
  });

  it('exports no span of an unsampled trace, yet its lines carry its trace id', async function () {
    exporter.reset();
    const unsampledTrace = 'ab'.repeat(16);
    const requestId = `otel-unsampled-${++requestCount}`;
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${mcpToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'X-Request-Id': requestId,
        traceparent: `00-${unsampledTrace}-${HEADER_SPAN}-00`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'finance_payables_list', arguments: listArgs } }),
    });
    expect(res.status).to.equal(200);
    expect(exporter.getFinishedSpans()).to.deep.equal([]);
    const call = log.lines.find((l) => l.msg === 'tools/call' && l.request_id === requestId);
    expect(call).to.include({ trace_id: unsampledTrace });
  });
});
