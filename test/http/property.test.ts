/**
 * Property tests of the /v1 REST surface through the real app over real HTTP: for every route
 * of the generated route table, arbitrary bytes and strings in path segments, query names and
 * values, headers and JSON body fields never produce a 5xx or crash the server, and every 4xx
 * is the API's JSON error envelope. Requests go through `http.request` so path and header bytes
 * reach the server as generated (percent-encoded bytes, `%ZZ`, overlong UTF-8, Latin-1 header
 * bytes). Case count, fault tally and RSS watch: test/helpers/property-soak.ts.
 */
import http from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import type { RouteDefinition } from '../../src/runtime/types.js';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { DEMO } from '../helpers/index.js';
import { describeCase, FaultTally, readPropertySettings, runMeasured } from '../helpers/property-soak.js';
import {
  bodyObject, collectVocabulary, deepJson, idsFor, jsonText, nastyString, ODD_IDS, type Vocabulary,
} from '../helpers/property-arbitraries.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Raw (already percent-encoded) path or query text: NUL, bad escapes, overlong UTF-8, CESU surrogates, traversal. */
const RAW_TOKENS = ['%00', 'a%00b', '%ZZ', '%', '%2', '%C0%AE', '%C0%80', '%E0%80%AF', '%ED%A0%80', '%ED%BF%BF', '%FF%FE', '%F4%90%80%80',
  '%2F', '..', '.', '%2e%2e', '%252F', '%u0041', '~', '99999999999999999999999999', '-1', '1e400', 'NaN', '__proto__', 'constructor'];
const ODD_QUERY_NAMES = ['__proto__', 'constructor', '__proto__[eq]', 'constructor[eq]', 'constructor[in]', 'prototype[gte]', 'toString',
  'hasOwnProperty[lt]', 'valueOf', 'status[]', 'status[eq][x]', 'status[zz]', 'due_date[gte]', 'amount[in]', 'workspace_id', 'limit', 'cursor',
  'sort', 'fields', 'x', '', 'a[b][c]', 'A', '1'];
const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', 'application/x-www-form-urlencoded',
  'multipart/form-data', 'multipart/form-data; boundary=xyz', 'application/octet-stream', 'application/merge-patch+json', 'json', '*/*', ';;;', 'application/json; charset="'];

const MULTIPART_BOUNDARY = 'kf-property-boundary';
const unreserved = /[A-Za-z0-9\-._~]/;

/** Percent-encodes every byte outside the unreserved set (so any byte string is a legal request target). */
function percentEncode(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) {
    const char = String.fromCharCode(byte);
    out += unreserved.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Encoded text for a path segment or query component: raw tokens, encoded strings, encoded bytes. */
const encodedText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...RAW_TOKENS),
  nastyString.map((s) => percentEncode(Buffer.from(s, 'utf8'))),
  fc.uint8Array({ maxLength: 48 }).map(percentEncode),
);

/** A header value Node lets a client send: tab, visible ASCII and bytes 0x80–0xFF (sent as Latin-1, so any UTF-8 byte sequence). */
const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', 'null', '%00', '\u00c0\u00ae', '\u00ed\u00a0\u0080', 'x'.repeat(1_000), '__proto__', '=?utf-8?b?AA==?='),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => String.fromCharCode(...bytes.filter((b) => b === 9 || (b >= 0x20 && b !== 0x7f))).trim()),
);

function multipartBody(boundary: string): fc.Arbitrary<Buffer> {
  return fc.tuple(nastyString, fc.constantFrom('application/pdf', 'image/png', 'text/html', '', 'x'), fc.uint8Array({ maxLength: 256 }))
    .map(([name, type, bytes]) => Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${type}\r\n\r\n`, 'utf8'),
      Buffer.from(bytes),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]));
}

/** One request; `auth` names a token (resolved at send time, so tokens never reach a failure message). */
interface RestCase {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly auth: string | null;
  readonly body: Buffer | null;
}

function routeCase(route: RouteDefinition, vocabulary: Vocabulary, auth: fc.Arbitrary<string | null>): fc.Arbitrary<RestCase> {
  const segment = fc.oneof(
    { arbitrary: fc.constantFrom(...idsFor(vocabulary, route.operation.path.split('/')[2])), weight: 4 },
    { arbitrary: fc.constantFrom(...vocabulary.ids), weight: 1 },
    { arbitrary: fc.uuid(), weight: 1 },
    { arbitrary: fc.constantFrom('payable', 'receivable', 'transaction'), weight: 1 },
    { arbitrary: encodedText, weight: 2 },
  );
  const names = (route.operation.path.match(/\{[^}]+\}/g) ?? []) as string[];
  const path = fc.tuple(...names.map(() => segment)).map((values) => {
    let text = route.operation.path;
    names.forEach((name, i) => { text = text.replace(name, () => values[i] as string); });
    return text;
  });
  const filterNames = Object.entries(route.list?.filters ?? {}).flatMap(([name, filter]) =>
    [name, ...filter.operators.map((op) => `${name}[${op}]`)]);
  const queryName = fc.oneof(
    ...(filterNames.length > 0 ? [{ arbitrary: fc.constantFrom(...filterNames), weight: 4 }] : []),
    { arbitrary: fc.constantFrom(...ODD_QUERY_NAMES), weight: 2 },
    { arbitrary: encodedText, weight: 1 },
  );
  const filterValues = Object.values(route.list?.filters ?? {}).flatMap((filter) => [
    ...((filter.schema['examples'] ?? []) as unknown[]), ...((filter.schema['enum'] ?? []) as unknown[]),
  ]).map(String);
  const queryValue = fc.oneof(
    ...(filterValues.length > 0 ? [fc.constantFrom(...filterValues).map((v) => encodeURIComponent(v))] : []),
    fc.constantFrom('1', '100', '101', '0', 'name', '-created_at', 'due_date,-amount', 'id,amount,nope', 'pending,paid', ',,,', '2026-03-09'),
    encodedText,
  );
  const query = fc.array(fc.tuple(queryName, queryValue, fc.boolean()), { maxLength: 6 })
    .map((pairs) => pairs.map(([name, value, bare]) => (bare && value === '' ? name : `${name}=${value}`)).join('&'));
  const method = fc.oneof({ arbitrary: fc.constant(route.operation.method as string), weight: 19 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 });
  const jsonSchema = route.requestBody?.content['application/json'];
  const bodyText = fc.oneof(
    { arbitrary: jsonSchema ? bodyObject(jsonSchema, vocabulary, 0) : jsonText, weight: 8 },
    { arbitrary: jsonText, weight: 1 },
    { arbitrary: deepJson, weight: 1 },
  ).map((text) => Buffer.from(text, 'utf8'));
  const body = fc.oneof(
    { arbitrary: bodyText, weight: route.requestBody ? 10 : 1 },
    { arbitrary: fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
    { arbitrary: multipartBody(MULTIPART_BOUNDARY), weight: route.requestBody?.content['multipart/form-data'] ? 3 : 0 },
    { arbitrary: fc.constant(null), weight: route.requestBody ? 1 : 6 },
  );
  const headers = fc.record({
    'x-workspace-id': fc.oneof(
      { arbitrary: fc.constant<string>(DEMO.workspaces.matriz), weight: 18 },
      { arbitrary: fc.constantFrom<string>(DEMO.workspaces.filial, ODD_IDS[0] as string), weight: 1 },
      { arbitrary: headerValue, weight: 1 },
    ),
    'idempotency-key': fc.oneof(fc.uuid(), headerValue),
    // Empty: the body's own type (JSON, or multipart with its boundary).
    'content-type': fc.oneof({ arbitrary: fc.constant(''), weight: 10 }, { arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 2 }, { arbitrary: headerValue, weight: 1 }),
    accept: fc.oneof(fc.constantFrom('application/json', 'text/html', '*/*', 'application/pdf'), headerValue),
    'x-request-id': headerValue,
    'if-none-match': headerValue,
    'x-forwarded-for': headerValue,
    'x-unknown-header': headerValue,
  }, { requiredKeys: ['x-workspace-id'] });
  return fc.record({ method, path, query, headers, body, auth }).map(({ method: verb, path: p, query: q, headers: h, body: b, auth: a }) => {
    const all: Record<string, string> = { ...h };
    if (all['content-type'] === '') delete all['content-type'];
    if (b !== null && !('content-type' in all)) all['content-type'] = b.subarray(0, MULTIPART_BOUNDARY.length + 2).toString() === `--${MULTIPART_BOUNDARY}` ? `multipart/form-data; boundary=${MULTIPART_BOUNDARY}` : 'application/json';
    return { operationId: route.operation.operationId, method: verb, path: q === '' ? p : `${p}?${q}`, headers: all, auth: a, body: b };
  });
}

interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

function send(agent: http.Agent, base: URL, request: RestCase, authorization: string | null): Promise<RawResponse> {
  const headers: Record<string, string> = { ...request.headers };
  if (authorization !== null) headers['authorization'] = authorization;
  // Explicit framing: Node sends a GET or DELETE body without Content-Length otherwise.
  if (request.body !== null) headers['content-length'] = String(request.body.byteLength);
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent, host: base.hostname, port: base.port, method: request.method, path: request.path, headers, timeout: 30_000,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.on('error', reject);
    req.end(request.body ?? undefined);
  });
}

describe('/v1 REST (properties)', function () {
  this.timeout(0);
  const settings = readPropertySettings();
  let api: RestApp;

  before(async function () {
    this.timeout(60_000);
    api = await startRestApp();
  });
  after(async () => api?.close());

  it(`never answers 5xx, every 4xx is the JSON error envelope, on every route (${settings.runs} cases)`, async () => {
    const lists = api.routes.filter((r) => r.list !== null && r.operation.method === 'GET').map((r) => r.operation.path);
    const vocabulary = await collectVocabulary(api.url, await api.token('ana'), lists);
    const writer = await api.token('ana', 'finance.all.write');
    const named: Record<string, string> = {
      '<writer>': `Bearer ${writer}`,
      '<security-writer>': `Bearer ${await api.token('ana')}`,
      '<reader-bruno>': `Bearer ${await api.token('bruno', 'finance.all')}`,
      '<mcp-audience>': `Bearer ${await api.app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' })}`,
      '<writer-tampered>': `Bearer ${writer}x`,
    };
    const auth: fc.Arbitrary<string | null> = fc.oneof(
      { arbitrary: fc.constant('<writer>'), weight: 40 },
      { arbitrary: fc.constantFrom(...Object.keys(named)), weight: 3 },
      { arbitrary: fc.constantFrom(null, 'Bearer not-a-token', 'Basic Zm9vOmJhcg==', 'Bearer'), weight: 1 },
      { arbitrary: headerValue, weight: 1 },
    );
    const byId = new Map(api.routes.map((route) => [route.operation.operationId, route]));
    const cases = fc.constantFrom(...api.routes).chain((route) => routeCase(route, vocabulary, auth));
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const base = new URL(api.url);
    const tally = new FaultTally(settings.tally);
    try {
      await runMeasured(settings, 'rest', tally, fc.asyncProperty(cases, async (request) => {
        tally.cases += 1;
        const authorization = request.auth === null ? null : (named[request.auth] ?? request.auth);
        const res = await send(agent, base, request, authorization);
        const where = `${request.method} ${byId.get(request.operationId)?.operation.path ?? request.operationId}`;
        if (res.status >= 500) {
          tally.record(`${where} → ${res.status}`, () => describeCase({ ...request, body: request.body?.toString('utf8').slice(0, 500) }));
          return;
        }
        expect(res.status, `${where}: ${res.text}`).to.be.at.least(200);
        const type = String(res.headers['content-type'] ?? '');
        if (res.status >= 400) {
          expect(type, `${where} → ${res.status}`).to.match(/^application\/json/);
          const envelope = JSON.parse(res.text) as { error?: { code?: unknown; message?: unknown } };
          expect(envelope.error?.code, res.text).to.be.a('string');
          expect(envelope.error?.message, res.text).to.be.a('string');
        } else if (type.startsWith('application/json')) {
          JSON.parse(res.text);
        }
      }));
    } finally {
      agent.destroy();
    }
    // The server is still up and still answers a plain call.
    const list = await api.call('GET', '/v1/payables?limit=1', { workspace: DEMO.workspaces.matriz });
    expect(list.status, JSON.stringify(list.body)).to.equal(200);
  });
});
