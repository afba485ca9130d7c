/**
 * The wire contract of POST /mcp, one row per rule of docs/protocol.md and its error
 * cases, through the real app on loopback with real tokens.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ALL_READ, startTestApp, type TestApp } from './support/app.js';
import { MODERN, base64Sentinel, modernMeta, modernRequest, postMcp, readResponse, sendRaw, type WireResponse } from './support/wire.js';

const SUPPORTED = ['2026-07-28', '2025-06-18', '2025-03-26'];
const TOO_LARGE = '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body too large (limit 14680064 bytes)"}}';
const SERVER_INFO = { name: 'kobana-finance', title: 'Kobana Finance', version: '1.0.0' };

/** Placeholder for "any string" inside an exact body. */
const EXPECT_STRING = '\u0000any-string';

interface Row {
  readonly name: string;
  readonly token?: 'none' | 'admin' | 'api-audience';
  readonly headers?: Record<string, string>;
  readonly body: unknown;
  readonly status: number;
  /** Expected response headers (exact values). */
  readonly want?: Record<string, string | null>;
  /** The exact JSON body, or a check of it. */
  readonly json?: unknown;
  readonly check?: (response: WireResponse) => void;
}

const request = (id: number, method: string, params?: Record<string, unknown>) =>
  ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });

function modern(id: number, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}, omit: string[] = []): Pick<Row, 'body' | 'headers'> {
  const built = modernRequest(id, method, params);
  const merged: Record<string, string> = { ...built.headers, ...headers };
  for (const name of omit) delete merged[name];
  return { body: built.body, headers: merged };
}

function result(response: WireResponse): Record<string, unknown> {
  return (response.json as { result: Record<string, unknown> }).result;
}

function expectModernResult(response: WireResponse, cacheable: boolean): void {
  const r = result(response);
  expect(r['resultType']).to.equal('complete');
  expect(r['_meta']).to.deep.equal({ 'io.modelcontextprotocol/serverInfo': SERVER_INFO });
  if (cacheable) {
    expect(r['ttlMs']).to.equal(0);
    expect(r['cacheScope']).to.equal('private');
  } else {
    expect(r).not.to.have.property('ttlMs');
    expect(r).not.to.have.property('cacheScope');
  }
}

function expectLegacyResult(response: WireResponse): void {
  const r = result(response);
  for (const key of ['resultType', 'ttlMs', 'cacheScope', '_meta']) expect(r, key).not.to.have.property(key);
}

function mismatch(id: number, which: string) {
  return { jsonrpc: '2.0', id, error: { code: -32020, message: `Header mismatch: ${which}` } };
}

const rows: Row[] = [
  // §1 Transport
  { name: 'array body (batch) → 400 -32600', body: [request(1, 'ping')], status: 400, json: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: batch requests are not supported' } } },
  { name: 'empty array → 400 -32600', body: '[]', status: 400, check: (r) => expect((r.json as { error: { code: number } }).error.code).to.equal(-32600) },
  { name: 'invalid JSON → 400 -32700 id null', body: '{"jsonrpc":', status: 400, json: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } },
  { name: 'empty body → 400 -32700', body: '', status: 400, check: (r) => expect((r.json as { error: { code: number } }).error.code).to.equal(-32700) },
  { name: 'not a JSON-RPC object → 400 -32600', body: { hello: 'world' }, status: 400, check: (r) => expect(r.json).to.deep.include({ id: null }) },
  { name: 'wrong jsonrpc version keeps a usable id', body: { jsonrpc: '1.0', id: 7, method: 'ping' }, status: 400, check: (r) => expect(r.json).to.deep.include({ id: 7 }) },
  { name: 'notification (2025) → 202 empty', body: { jsonrpc: '2.0', method: 'notifications/initialized' }, status: 202, check: (r) => expect(r.text).to.equal('') },
  { name: 'notification (modern) → 202 empty', headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'notifications/cancelled' }, body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: modernMeta() } }, status: 202, check: (r) => expect(r.text).to.equal('') },
  { name: 'a client response → 202', body: { jsonrpc: '2.0', id: 4, result: {} }, status: 202 },
  { name: 'Origin outside the allowlist → 403', headers: { origin: 'http://evil.example' }, body: request(1, 'ping'), status: 403, want: { 'cache-control': 'no-store', 'mcp-protocol-version': '2025-03-26' } },
  { name: 'Origin in the allowlist (port wildcard) → 200', headers: { origin: 'http://localhost:5173' }, body: request(1, 'ping'), status: 200, json: { jsonrpc: '2.0', id: 1, result: {} } },
  { name: 'no token → 401 with the resource_metadata challenge', token: 'none', body: request(1, 'ping'), status: 401, check: (r) => expect(r.headers.get('www-authenticate')).to.match(/^Bearer resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource"/) },
  { name: 'no token on server/discover → 401', token: 'none', ...modern(1, 'server/discover'), status: 401 },
  { name: 'a token for the REST API → 401', token: 'api-audience', body: request(1, 'ping'), status: 401 },
  // §2 Eras
  { name: 'header 2026-07-28 without the _meta envelope → 400 -32602', headers: { 'mcp-protocol-version': MODERN }, body: request(1, 'tools/list'), status: 400, want: { 'mcp-protocol-version': MODERN }, check: (r) => expect(r.json).to.deep.include({ id: 1 }).and.nested.include({ 'error.code': -32602 }) },
  { name: 'header 2026-07-28 on initialize without envelope → 400 -32602', headers: { 'mcp-protocol-version': MODERN }, body: request(1, 'initialize', { protocolVersion: '2025-06-18' }), status: 400, check: (r) => expect(r.json).to.nested.include({ 'error.code': -32602 }) },
  { name: '2025 era, unsupported header version → 400 -32022', headers: { 'mcp-protocol-version': '1999-01-01' }, body: request(1, 'tools/list'), status: 400, json: { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: SUPPORTED, requested: '1999-01-01' } } } },
  { name: 'modern: header 2026-07-28 + body v999 → 400 -32020 (headers before support)', ...modern(1, 'tools/list'), body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': 'v999' }) } }, status: 400, json: mismatch(1, 'MCP-Protocol-Version') },
  { name: 'modern: header v999 + body v999 → 400 -32022', headers: { 'mcp-protocol-version': 'v999', 'mcp-method': 'tools/list' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta({ 'io.modelcontextprotocol/protocolVersion': 'v999' }) } }, status: 400, json: { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: SUPPORTED, requested: 'v999' } } } },
  { name: 'modern: MCP-Protocol-Version header missing → -32020', ...modern(1, 'tools/list', {}, {}, ['mcp-protocol-version']), status: 400, json: mismatch(1, 'MCP-Protocol-Version') },
  { name: 'modern: header 2025-06-18 with a 2026 envelope → -32020', ...modern(1, 'tools/list', {}, { 'mcp-protocol-version': '2025-06-18' }), status: 400, json: mismatch(1, 'MCP-Protocol-Version') },
  { name: 'modern: base64 MCP-Protocol-Version is decoded', ...modern(1, 'tools/list', {}, { 'mcp-protocol-version': base64Sentinel(MODERN) }), status: 200 },
  // §3 Modern era
  { name: 'modern: clientCapabilities missing → 400 -32602', headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } }, status: 400, check: (r) => expect(r.json).to.nested.include({ 'error.code': -32602, id: 1 }) },
  { name: 'modern: clientCapabilities not an object → 400 -32602', headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': 'all' }) } }, status: 400, check: (r) => expect(r.json).to.nested.include({ 'error.code': -32602 }) },
  { name: 'modern: clientInfo is not required', headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } } }, status: 200 },
  { name: 'modern: Mcp-Method missing → -32020', ...modern(1, 'tools/list', {}, {}, ['mcp-method']), status: 400, json: mismatch(1, 'Mcp-Method') },
  { name: 'modern: Mcp-Method different → -32020', ...modern(1, 'tools/list', {}, { 'mcp-method': 'prompts/list' }), status: 400, json: mismatch(1, 'Mcp-Method') },
  { name: 'modern: Mcp-Method value is case-sensitive → -32020', ...modern(1, 'tools/list', {}, { 'mcp-method': 'Tools/List' }), status: 400, json: mismatch(1, 'Mcp-Method') },
  { name: 'modern: header names are case-insensitive', ...modern(1, 'tools/list', {}, {}, ['mcp-method']), headers: { 'MCP-PROTOCOL-VERSION': MODERN, 'MCP-METHOD': 'tools/list' }, status: 200 },
  { name: 'modern: Mcp-Name missing on tools/call → -32020', ...modern(1, 'tools/call', { name: 'finance_workspaces_list', arguments: {} }, {}, ['mcp-name']), status: 400, json: mismatch(1, 'Mcp-Name') },
  { name: 'modern: Mcp-Name different → -32020', ...modern(1, 'tools/call', { name: 'finance_workspaces_list', arguments: {} }, { 'mcp-name': 'finance_payables_list' }), status: 400, json: mismatch(1, 'Mcp-Name') },
  { name: 'modern: Mcp-Name as =?base64?…?= is decoded', ...modern(1, 'tools/call', { name: 'finance_workspaces_list', arguments: {} }, { 'mcp-name': base64Sentinel('finance_workspaces_list') }), status: 200 },
  { name: 'modern: Mcp-Name base64 of another name → -32020', ...modern(1, 'tools/call', { name: 'finance_workspaces_list', arguments: {} }, { 'mcp-name': base64Sentinel('finance_payables_list') }), status: 400, json: mismatch(1, 'Mcp-Name') },
  { name: 'modern: Mcp-Name invalid base64 → -32020', ...modern(1, 'tools/call', { name: 'finance_workspaces_list', arguments: {} }, { 'mcp-name': '=?base64?***not base64***?=' }), status: 400, json: mismatch(1, 'Mcp-Name') },
  { name: 'modern: Mcp-Name on resources/read mirrors params.uri', ...modern(1, 'resources/read', { uri: 'kobana://finance/payables/x' }, { 'mcp-name': 'kobana://finance/payables/y' }), status: 400, json: mismatch(1, 'Mcp-Name') },
  { name: 'modern: unknown method → HTTP 404 -32601', ...modern(1, 'tools/frobnicate'), status: 404, json: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } } },
  { name: 'modern: initialize does not exist → 404', ...modern(1, 'initialize'), status: 404, check: (r) => expect(r.json).to.nested.include({ 'error.code': -32601 }) },
  { name: 'modern: ping does not exist → 404', ...modern(1, 'ping'), status: 404, check: (r) => expect(r.json).to.nested.include({ 'error.code': -32601 }) },
  {
    name: 'modern: server/discover',
    ...modern(1, 'server/discover'),
    status: 200,
    want: { 'mcp-protocol-version': MODERN, 'cache-control': 'no-store' },
    check: (r) => {
      const body = r.json as { result: Record<string, unknown> };
      expect(Object.keys(body.result)).to.deep.equal(['resultType', 'supportedVersions', 'capabilities', 'instructions', 'ttlMs', 'cacheScope', '_meta']);
      expect(body.result['supportedVersions']).to.deep.equal(SUPPORTED);
      expect(body.result['capabilities']).to.deep.equal({ tools: {}, resources: {}, prompts: {}, completions: {} });
      expect(body.result['instructions']).to.be.a('string').and.match(/third parties/).and.match(/confirm/).and.match(/workspace/).and.match(/decimal string/);
      expectModernResult(r, true);
    },
  },
  { name: 'modern: tools/list has resultType, ttlMs, cacheScope, serverInfo', ...modern(1, 'tools/list'), status: 200, check: (r) => { expectModernResult(r, true); expect((result(r)['tools'] as { title?: string }[])[0]).to.have.property('title'); } },
  { name: 'modern: resources/list', ...modern(1, 'resources/list'), status: 200, check: (r) => { expectModernResult(r, true); expect(result(r)['resources']).to.be.an('array'); } },
  { name: 'modern: resources/templates/list', ...modern(1, 'resources/templates/list'), status: 200, check: (r) => { expectModernResult(r, true); expect(result(r)['resourceTemplates']).to.be.an('array'); } },
  { name: 'modern: prompts/list', ...modern(1, 'prompts/list'), status: 200, check: (r) => { expectModernResult(r, true); expect(result(r)['prompts']).to.be.an('array'); } },
  { name: 'modern: completion/complete has no ttlMs', ...modern(1, 'completion/complete', { ref: { type: 'ref/prompt', name: 'review_overdue_payables' }, argument: { name: 'workspace', value: '' } }), status: 200, check: (r) => { expectModernResult(r, false); expect(result(r)['completion']).to.have.property('values'); } },
  { name: 'modern: resources/read of an unknown URI → -32602 with data.uri (in-band)', ...modern(1, 'resources/read', { uri: 'kobana://finance/nothing/1' }), status: 200, json: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Resource not found', data: { uri: 'kobana://finance/nothing/1' } } } },
  { name: 'modern: tools/call result has resultType and serverInfo, no ttlMs', ...modern(1, 'tools/call', { name: 'finance_workspaces_list', arguments: {} }), status: 200, check: (r) => { expectModernResult(r, false); expect(result(r)['content']).to.be.an('array'); } },
  { name: 'modern: tools/call of an unknown tool → -32602', ...modern(1, 'tools/call', { name: 'finance_nothing', arguments: {} }), status: 200, check: (r) => expect(r.json).to.nested.include({ 'error.code': -32602 }) },
  // §4 2025 era
  {
    name: 'initialize echoes 2025-03-26 (no titles in that era)',
    body: request(1, 'initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } }),
    status: 200,
    want: { 'mcp-protocol-version': '2025-03-26' },
    json: { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-03-26', capabilities: { tools: { listChanged: false }, resources: { subscribe: false, listChanged: false }, prompts: { listChanged: false }, completions: {} }, serverInfo: { name: 'kobana-finance', version: '1.0.0' }, instructions: EXPECT_STRING } },
  },
  { name: 'initialize echoes 2025-06-18 with serverInfo.title', body: request(1, 'initialize', { protocolVersion: '2025-06-18' }), status: 200, want: { 'mcp-protocol-version': '2025-06-18' }, check: (r) => { expect(result(r)['protocolVersion']).to.equal('2025-06-18'); expect(result(r)['serverInfo']).to.deep.equal(SERVER_INFO); expectLegacyResult(r); } },
  { name: 'initialize with an unknown version offers 2025-06-18', body: request(1, 'initialize', { protocolVersion: '2025-11-25' }), status: 200, want: { 'mcp-protocol-version': '2025-06-18' }, check: (r) => expect(result(r)['protocolVersion']).to.equal('2025-06-18') },
  { name: 'initialize asking 2026-07-28 in params offers 2025-06-18', body: request(1, 'initialize', { protocolVersion: MODERN }), status: 200, check: (r) => expect(result(r)['protocolVersion']).to.equal('2025-06-18') },
  { name: 'initialize ignores the MCP-Protocol-Version header', headers: { 'mcp-protocol-version': '1999-01-01' }, body: request(1, 'initialize', { protocolVersion: '2025-03-26' }), status: 200, check: (r) => expect(result(r)['protocolVersion']).to.equal('2025-03-26') },
  { name: 'ping → {}', headers: { 'mcp-protocol-version': '2025-06-18' }, body: request(9, 'ping'), status: 200, want: { 'mcp-protocol-version': '2025-06-18', 'cache-control': 'no-store' }, json: { jsonrpc: '2.0', id: 9, result: {} } },
  { name: 'string ids are echoed', body: request('abc' as unknown as number, 'ping'), status: 200, json: { jsonrpc: '2.0', id: 'abc', result: {} } },
  { name: '2025: unknown method → -32601 in a 200', headers: { 'mcp-protocol-version': '2025-06-18' }, body: request(1, 'tools/frobnicate'), status: 200, json: { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } } },
  { name: '2025: server/discover does not exist → -32601 in a 200', body: request(1, 'server/discover'), status: 200, check: (r) => expect(r.json).to.nested.include({ 'error.code': -32601 }) },
  { name: '2025 without header → version 2025-03-26, tools without title', body: request(1, 'tools/list'), status: 200, want: { 'mcp-protocol-version': '2025-03-26' }, check: (r) => { expectLegacyResult(r); for (const tool of result(r)['tools'] as Record<string, unknown>[]) { expect(tool).not.to.have.property('title'); expect(tool).not.to.have.property('outputSchema'); } } },
  { name: '2025-06-18 tools carry title, no era fields', headers: { 'mcp-protocol-version': '2025-06-18' }, body: request(1, 'tools/list'), status: 200, check: (r) => { expectLegacyResult(r); const tools = result(r)['tools'] as Record<string, unknown>[]; expect(tools).to.not.be.empty; for (const tool of tools) expect(tool).to.have.property('title'); } },
  { name: '2025: resources/read not found → -32002', headers: { 'mcp-protocol-version': '2025-06-18' }, body: request(1, 'resources/read', { uri: 'kobana://finance/nothing/1' }), status: 200, json: { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'Resource not found', data: { uri: 'kobana://finance/nothing/1' } } } },
  { name: '2025: resources/list, templates, prompts without era fields', headers: { 'mcp-protocol-version': '2025-06-18' }, body: request(1, 'prompts/list'), status: 200, check: (r) => { expectLegacyResult(r); expect(result(r)['prompts']).to.be.an('array'); } },
  { name: '2025: prompts/get without name → -32602', headers: { 'mcp-protocol-version': '2025-06-18' }, body: request(1, 'prompts/get', {}), status: 200, check: (r) => expect(r.json).to.nested.include({ 'error.code': -32602 }) },
  // §5 Tools (protocol errors)
  { name: 'tools/call without name → -32602', body: request(1, 'tools/call', { arguments: {} }), status: 200, json: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Missing tool name' } } },
  { name: 'tools/call of an unknown tool → -32602', body: request(1, 'tools/call', { name: 'finance_nothing_list' }), status: 200, json: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown tool' } } },
  { name: 'tools/call with non-object arguments → -32602', body: request(1, 'tools/call', { name: 'finance_workspaces_list', arguments: [1] }), status: 200, check: (r) => expect(r.json).to.nested.include({ 'error.code': -32602 }) },
  { name: 'tools/call in 2025 has no resultType', body: request(1, 'tools/call', { name: 'finance_workspaces_list', arguments: {} }), status: 200, check: (r) => { expectLegacyResult(r); expect(result(r)['content']).to.be.an('array'); } },
];

function expectJson(actual: unknown, wanted: unknown, path = '$'): void {
  if (wanted === EXPECT_STRING) {
    expect(actual, path).to.be.a('string');
    return;
  }
  if (wanted !== null && typeof wanted === 'object' && !Array.isArray(wanted)) {
    expect(actual, path).to.be.an('object');
    expect(Object.keys(actual as object).sort(), path).to.deep.equal(Object.keys(wanted).sort());
    for (const [key, value] of Object.entries(wanted)) expectJson((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
    return;
  }
  expect(actual, path).to.deep.equal(wanted);
}

describe('POST /mcp (wire contract)', function () {
  let app: TestApp;
  const tokens: Record<string, string> = {};

  before(async function () {
    app = await startTestApp();
    tokens['admin'] = await app.mintToken({ person: 'ana@demo.test', scope: ALL_READ });
    tokens['api-audience'] = await app.mintToken({ person: 'ana@demo.test', scope: ALL_READ, aud: 'api' });
  });
  after(async () => app?.close());

  for (const row of rows) {
    it(row.name, async function () {
      const token = row.token ?? 'admin';
      const headers: Record<string, string> = { ...(token === 'none' ? {} : { authorization: `Bearer ${tokens[token]}` }), ...row.headers };
      const response = await postMcp(`${app.url}/mcp`, row.body, headers);
      expect(response.status, response.text).to.equal(row.status);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      expect(SUPPORTED).to.include(response.headers.get('mcp-protocol-version'));
      for (const [name, value] of Object.entries(row.want ?? {})) expect(response.headers.get(name), name).to.equal(value);
      if (row.json !== undefined) expectJson(response.json, row.json);
      row.check?.(response);
    });
  }

  describe('methods other than POST', function () {
    for (const method of ['GET', 'DELETE']) {
      it(`answers ${method} with 405 and Allow: POST`, async function () {
        const response = await readResponse(await fetch(`${app.url}/mcp`, { method, headers: { authorization: `Bearer ${tokens['admin']}` } }));
        expect(response.status).to.equal(405);
        expect(response.headers.get('allow')).to.equal('POST');
        expect(response.headers.get('cache-control')).to.equal('no-store');
        expect(response.headers.get('mcp-protocol-version')).to.equal('2025-03-26');
      });
    }
  });

  describe('Content-Type (docs/protocol.md#transport)', function () {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', '']) {
      it(`refuses ${contentType === '' ? 'a missing Content-Type' : contentType} with 415 and -32600 before authentication`, async function () {
        const headers: Record<string, string> = contentType === '' ? {} : { 'content-type': contentType };
        const response = await sendRaw(`${app.url}/mcp`, { headers, chunks: [Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}')] });
        expect(response.status).to.equal(415);
        expect(JSON.parse(response.text)).to.deep.equal({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Content-Type must be application/json' } });
        expect(response.headers['cache-control']).to.equal('no-store');
      });
    }

    it('accepts application/json with parameters, in any case', async function () {
      const response = await sendRaw(`${app.url}/mcp`, {
        headers: { 'content-type': 'Application/JSON; charset=utf-8', authorization: `Bearer ${tokens['admin']}` },
        chunks: [Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}')],
      });
      expect(response.status).to.equal(200);
    });
  });

  describe('the 14,680,064-byte body cap', function () {
    it('refuses a declared Content-Length above the cap with 413 before authentication', async function () {
      const response = await sendRaw(`${app.url}/mcp`, { headers: { 'content-type': 'application/json' }, declaredLength: 14_680_065 });
      expect(response.status).to.equal(413);
      expect(response.text).to.equal(TOO_LARGE);
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(response.headers['mcp-protocol-version']).to.equal('2025-03-26');
    });

    it('cuts a chunked body without Content-Length at the cap with 413', async function () {
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const chunks = function* () { for (let i = 0; i < 20; i++) yield chunk; };
      const response = await sendRaw(`${app.url}/mcp`, { headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens['admin']}` }, chunks: chunks() });
      expect(response.status).to.equal(413);
      expect(response.text).to.equal(TOO_LARGE);
    });

    it('accepts a body of exactly the cap', async function () {
      const head = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
      const tail = Buffer.from('"}}');
      const body = Buffer.concat([head, Buffer.alloc(14_680_064 - head.length - tail.length, 0x61), tail]);
      expect(body.length).to.equal(14_680_064);
      const response = await sendRaw(`${app.url}/mcp`, { headers: { 'content-type': 'application/json', authorization: `Bearer ${tokens['admin']}` }, chunks: [body] });
      expect(response.status).to.equal(200);
      expect(JSON.parse(response.text)).to.deep.equal({ jsonrpc: '2.0', id: 1, result: {} });
    });
  });

  describe('X-Workspace-Id of another organization', function () {
    it('is rejected with 403 before JSON-RPC', async function () {
      const response = await postMcp(`${app.url}/mcp`, request(1, 'ping'), { authorization: `Bearer ${tokens['admin']}`, 'x-workspace-id': await createForeignWorkspace(app) });
      expect(response.status).to.equal(403);
      expect(response.headers.get('cache-control')).to.equal('no-store');
    });
  });
});

describe('POST /mcp protocol rate limit', function () {
  let app: TestApp;
  before(async function () {
    // A fresh Redis key prefix (when REDIS_URL is set), so earlier runs' counters do not count.
    app = await startTestApp({ config: { protocolRateLimitPerMinute: 2, redisKeyPrefix: `kobana-test-${randomUUID()}:` } });
  });
  after(async () => app?.close());

  it('answers 429 with Retry-After once the per-token limit is spent', async function () {
    const token = await app.mintToken({ person: 'ana@demo.test', scope: ALL_READ });
    const headers = { authorization: `Bearer ${token}` };
    const statuses: number[] = [];
    let last: WireResponse | undefined;
    for (let i = 0; i < 4; i++) {
      last = await postMcp(`${app.url}/mcp`, request(i, 'ping'), headers);
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 2)).to.deep.equal([200, 200]);
    expect(statuses[3]).to.equal(429);
    expect(last?.headers.get('retry-after')).to.match(/^\d+$/);
    expect(last?.headers.get('cache-control')).to.equal('no-store');
  });
});

/** Another organization's workspace, inserted directly (the demo seed has one organization). */
async function createForeignWorkspace(app: TestApp): Promise<string> {
  const db = app.services.db;
  const orgId = '00000000-0000-4000-8000-0000000009f1';
  const workspaceId = '00000000-0000-4000-8000-0000000009f2';
  const now = new Date().toISOString();
  const existing = await db.selectFrom('workspaces').select('id').where('id', '=', workspaceId).executeTakeFirst();
  if (existing) return workspaceId;
  await db.insertInto('organizations').values({ id: orgId, name: 'Other Org', created_at: now, deleted_at: null }).execute();
  await db.insertInto('workspaces').values({ id: workspaceId, organization_id: orgId, name: 'Elsewhere', created_at: now }).execute();
  return workspaceId;
}
