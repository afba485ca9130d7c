/**
 * Property tests of POST /mcp through the real app: arbitrary bodies, headers and byte
 * strings never produce a 5xx (nor its in-band form, JSON-RPC -32603 or a tool error whose API
 * status is 5xx) or crash the server, and every answer is a JSON-RPC message or one of the
 * transport rejections of docs/protocol.md#transport. `tools/call` arguments are built from every tool's
 * input schema with hostile values (test/helpers/property-arbitraries.ts). Case count, fault
 * tally and RSS watch: test/helpers/property-soak.ts.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { routes, tools } from '../../generated/registry.gen.js';
import { API_ERROR_STATUS } from '../../src/http/rest-error-status.js';
import { DEMO } from '../helpers/index.js';
import { bodyObject, collectVocabulary, deepJson, jsonText, nastyString, type Vocabulary } from '../helpers/property-arbitraries.js';
import { describeCase, FaultTally, readPropertySettings, runMeasured } from '../helpers/property-soak.js';
import { ALL_READ, ALL_WRITE, startTestApp, type TestApp } from './support/app.js';
import { MODERN } from './support/wire.js';

const METHODS = ['initialize', 'ping', 'server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete', 'notifications/initialized', 'nope'];
const VERSIONS = [MODERN, '2025-06-18', '2025-03-26', '1999-01-01'];
const TOOL_NAMES = [...tools.map((tool) => tool.name), 'nope'];
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
  'x-workspace-id': fc.oneof(fc.uuid(), fc.constantFrom<string>(DEMO.workspaces.matriz, 'not-a-uuid', '%00', '\u00ed\u00a0\u0080'), headerValue),
}, { requiredKeys: ['content-type'] });

/** `tools/call` of any tool with arguments from its input schema (hostile in one field), as JSON text. */
function toolCall(vocabulary: Vocabulary, withMeta: boolean): fc.Arbitrary<Buffer> {
  const call = fc.constantFrom(...tools).chain((tool) => fc.tuple(
    fc.constant(tool.name),
    fc.oneof(
      { arbitrary: bodyObject(tool.inputSchema, vocabulary, 0, tool.operation.path.split('/')[2]), weight: 8 },
      { arbitrary: jsonText, weight: 1 },
      { arbitrary: deepJson, weight: 1 },
    ),
    fc.oneof(fc.constantFrom(...VERSIONS), nastyString),
  ));
  return fc.tuple(call, fc.integer({ min: 1, max: 1_000_000 }), withMeta ? fc.boolean() : fc.constant(false)).map(([[name, args, version], id, modern]) => {
    const meta = modern ? `,"_meta":{"io.modelcontextprotocol/protocolVersion":${JSON.stringify(version)},"io.modelcontextprotocol/clientCapabilities":{}}` : '';
    return Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}${meta}}}`);
  });
}

/** A 5xx, or its in-band forms: JSON-RPC -32603, a tool error whose API status is 5xx. */
function serverFault(status: number, text: string): string | null {
  if (status >= 500) return `HTTP ${status}`;
  let parsed: { error?: { code?: unknown }; result?: { isError?: unknown; content?: { text?: unknown }[] } };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return null;
  }
  if (parsed.error?.code === -32603) return 'JSON-RPC -32603';
  const content = parsed.result?.isError === true ? parsed.result.content?.[0]?.text : undefined;
  if (typeof content !== 'string') return null;
  try {
    const code = (JSON.parse(content) as { error?: { code?: unknown } }).error?.code;
    const apiStatus = typeof code === 'string' && Object.hasOwn(API_ERROR_STATUS, code) ? API_ERROR_STATUS[code as keyof typeof API_ERROR_STATUS] : 0;
    return apiStatus >= 500 || code === 'INTERNAL' ? `tool error ${String(code)}` : null;
  } catch {
    return null;
  }
}

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
  this.timeout(0);
  const settings = readPropertySettings();
  let app: TestApp;
  let token: string;

  before(async function () {
    this.timeout(60_000);
    app = await startTestApp({ config: { protocolRateLimitPerMinute: 1_000_000 } });
    token = await app.mintToken({ person: 'ana@demo.test', scope: ALL_READ });
  });
  after(async () => app?.close());

  it(`never answers 5xx and always answers JSON-RPC or a transport rejection (${settings.runs} cases)`, async function () {
    const lists = routes.filter((r) => r.list !== null && r.operation.method === 'GET').map((r) => r.operation.path);
    const vocabulary = await collectVocabulary(app.url, await app.mintToken({ person: 'ana@demo.test', scope: ALL_READ, aud: 'api' }), lists);
    // Writes are exercised too; destructive tools stop at the confirmation step (no client can confirm).
    const writer = await app.mintToken({ person: 'ana@demo.test', scope: ALL_WRITE });
    // Tool calls mostly with well-formed transport headers (2025-06-18 era), so they reach the operation.
    const wellFormed = fc.record({ 'content-type': fc.constant('application/json'), 'mcp-protocol-version': fc.constant('2025-06-18'), 'x-workspace-id': fc.constant<string>(DEMO.workspaces.matriz) }, { requiredKeys: ['content-type', 'mcp-protocol-version'] })
      .map((h): Record<string, string> => Object.fromEntries(Object.entries(h).filter((entry): entry is [string, string] => entry[1] !== undefined)));
    const requests = fc.oneof(
      { arbitrary: fc.tuple(body, headers), weight: 1 },
      { arbitrary: fc.tuple(toolCall(vocabulary, true), headers), weight: 1 },
      { arbitrary: fc.tuple(toolCall(vocabulary, false), wellFormed), weight: 4 },
    );
    const auth = fc.oneof({ arbitrary: fc.constant('writer'), weight: 4 }, { arbitrary: fc.constantFrom('none', 'reader'), weight: 1 });
    const tally = new FaultTally(settings.tally);
    await runMeasured(settings, 'mcp', tally, fc.asyncProperty(requests, auth, async ([bytes, extra], who) => {
      tally.cases += 1;
      const sent: Record<string, string> = { ...extra };
      if (who !== 'none') sent['authorization'] = `Bearer ${who === 'writer' ? writer : token}`;
      const response = await fetch(`${app.url}/mcp`, { method: 'POST', headers: sent, body: new Uint8Array(bytes) });
      const text = await response.text();
      const fault = serverFault(response.status, text);
      if (fault !== null) {
        const method = /"method":"([^"]{0,40})"/.exec(bytes.toString('utf8'))?.[1] ?? '?';
        const tool = /"name":"(finance_[a-z_]+)"/.exec(bytes.toString('utf8'))?.[1] ?? '';
        tally.record(`${method} ${tool} → ${fault}`.replace('  ', ' '), () => describeCase({ headers: extra, auth: who, body: bytes.toString('utf8').slice(0, 500) }));
        return;
      }
      expect(response.headers.get('cache-control')).to.equal('no-store');
      expect(response.headers.get('mcp-protocol-version')).to.match(/^\d{4}-\d{2}-\d{2}$/);
      assertValidAnswer(response.status, text, readSentId(bytes));
    }));
    // The server is still healthy afterwards.
    const ping = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    expect(await ping.json()).to.deep.equal({ jsonrpc: '2.0', id: 1, result: {} });
  });
});
