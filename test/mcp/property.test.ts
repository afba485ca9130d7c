/**
 * Property tests of POST /mcp through the real app: arbitrary bodies, headers and byte
 * strings never produce a 5xx or crash the server, and every answer is a JSON-RPC message or
 * one of the transport rejections of PROTOCOL.md §1.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { ALL_READ, startTestApp, type TestApp } from './support/app.js';
import { MODERN } from './support/wire.js';

const METHODS = ['initialize', 'ping', 'server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete', 'notifications/initialized', 'nope'];
const VERSIONS = [MODERN, '2025-06-18', '2025-03-26', '1999-01-01'];
const TOOL_NAMES = ['finance_payables_list', 'finance_payables_get', 'finance_payables_delete', 'finance_workspaces_list', 'nope'];
const REJECTIONS = new Set([202, 401, 403, 405, 413, 415, 429]);

/** A header value fetch accepts (visible ASCII and spaces, no leading/trailing space issues). */
const headerValue = fc.oneof(
  fc.constantFrom(...VERSIONS, ...METHODS, ...TOOL_NAMES, '=?base64?***?=', '=?base64?dG9vbHMvbGlzdA==?='),
  fc.stringMatching(/^[\x21-\x7e]{0,24}$/),
);

const meta = fc.record({
  'io.modelcontextprotocol/protocolVersion': fc.oneof(fc.constantFrom(...VERSIONS), fc.jsonValue()),
  'io.modelcontextprotocol/clientCapabilities': fc.oneof(fc.constant({}), fc.jsonValue()),
}, { requiredKeys: [] });

const params = fc.record({
  _meta: meta,
  name: fc.oneof(fc.constantFrom(...TOOL_NAMES), fc.jsonValue()),
  uri: fc.oneof(fc.constant('kobana://finance/payables/1'), fc.string()),
  protocolVersion: fc.oneof(fc.constantFrom(...VERSIONS), fc.string()),
  arguments: fc.oneof(
    fc.record({ workspace_id: fc.oneof(fc.uuid(), fc.string()), limit: fc.jsonValue(), filters: fc.jsonValue(), fields: fc.jsonValue(), cursor: fc.jsonValue(), id: fc.oneof(fc.uuid(), fc.string()) }, { requiredKeys: [] }),
    fc.jsonValue(),
  ),
}, { requiredKeys: [] });

const message = fc.record({
  jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()),
  id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.jsonValue()),
  method: fc.oneof(fc.constantFrom(...METHODS), fc.string()),
  params: fc.oneof(params, fc.jsonValue()),
}, { requiredKeys: [] });

const body = fc.oneof(
  message.map((m) => Buffer.from(JSON.stringify(m))),
  fc.array(message, { maxLength: 3 }).map((m) => Buffer.from(JSON.stringify(m))),
  fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '')),
  fc.string().map((s) => Buffer.from(s)),
  fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
);

const headers = fc.record({
  'mcp-protocol-version': headerValue,
  'mcp-method': headerValue,
  'mcp-name': headerValue,
  'content-type': fc.constantFrom('application/json', 'text/plain', 'application/octet-stream'),
  origin: fc.constantFrom('http://localhost:3000', 'http://evil.example', 'null'),
  'x-workspace-id': fc.oneof(fc.uuid(), fc.constantFrom('00000000-0000-4000-8000-000000000011')),
}, { requiredKeys: ['content-type'] });

function assertValidAnswer(status: number, text: string, sentId: unknown): void {
  expect(status, text).to.be.below(500);
  if (REJECTIONS.has(status)) {
    if (status === 202) expect(text).to.equal('');
    return;
  }
  expect([200, 400, 404], text).to.include(status);
  const parsed = JSON.parse(text) as Record<string, unknown>;
  expect(parsed['jsonrpc']).to.equal('2.0');
  const hasResult = Object.hasOwn(parsed, 'result');
  const hasError = Object.hasOwn(parsed, 'error');
  expect(hasResult !== hasError, text).to.equal(true);
  if (hasError) {
    const error = parsed['error'] as { code: unknown; message: unknown };
    expect(Number.isInteger(error.code)).to.equal(true);
    expect(error.message).to.be.a('string');
    expect(parsed['id'] === null || parsed['id'] === sentId, text).to.equal(true);
  } else {
    expect(status).to.equal(200);
    expect(parsed['id']).to.equal(sentId);
  }
}

function readSentId(bytes: Buffer): unknown {
  try {
    const value = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    return value !== null && typeof value === 'object' ? value['id'] : undefined;
  } catch {
    return undefined;
  }
}

describe('POST /mcp (properties)', function () {
  this.timeout(180_000);
  let app: TestApp;
  let token: string;

  before(async function () {
    app = await startTestApp({ config: { protocolRateLimitPerMinute: 1_000_000 } });
    token = await app.mintToken({ person: 'ana@demo.test', scope: ALL_READ });
  });
  after(async () => app?.close());

  it('never answers 5xx and always answers JSON-RPC or a transport rejection', async function () {
    await fc.assert(
      fc.asyncProperty(body, headers, fc.boolean(), async (bytes, extra, withToken) => {
        const response = await fetch(`${app.url}/mcp`, {
          method: 'POST',
          headers: { ...extra, ...(withToken ? { authorization: `Bearer ${token}` } : {}) },
          body: bytes,
        });
        const text = await response.text();
        expect(response.headers.get('cache-control')).to.equal('no-store');
        expect(response.headers.get('mcp-protocol-version')).to.match(/^\d{4}-\d{2}-\d{2}$/);
        assertValidAnswer(response.status, text, readSentId(bytes));
      }),
      { numRuns: 300 },
    );
    // The server is still healthy afterwards.
    const ping = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(await ping.json()).to.deep.equal({ jsonrpc: '2.0', id: 1, result: {} });
  });
});
