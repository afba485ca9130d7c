/**
 * tools/list as ready gzip bytes (src/mcp/json-rpc.ts `PreparedResult.gzip`): the result is
 * deflated once and each request only appends its id as a stored block plus the trailer. The
 * output must be a valid gzip member that any decoder (node's zlib, which checks CRC-32 and
 * length; undici's fetch, as SDK clients use) turns into the same JSON-RPC response as the
 * uncompressed form, for every id; a client that does not accept gzip gets plain JSON.
 */
import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { PreparedResult, serializePrepared, type JsonRpcId } from '../../src/mcp/json-rpc.js';
import { DEMO } from '../../src/seed/ids.js';
import { ALL_WRITE, startTestApp, type TestApp } from './support/app.js';

function sameResponse(gzipped: Buffer, plain: Buffer): void {
  const decoded = JSON.parse(gunzipSync(gzipped).toString('utf8')) as Record<string, unknown>;
  const expected = JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
  expect(decoded).to.deep.equal(expected);
  expect(Object.keys(decoded)).to.deep.equal(['jsonrpc', 'result', 'id']);
}

describe('PreparedResult.gzip(): compressed once, the id appended per request', function () {
  // A result larger than a deflate window and than one stored block, with text that compresses.
  const big = JSON.stringify({ tools: Array.from({ length: 900 }, (_, i) => ({ name: `tool_${i}`, description: `Lists the things of kind ${i % 7}: áéí “quoted” ✓` })) });
  const ids: JsonRpcId[] = [0, 1, -7, 2 ** 53 - 1, 1.5, '', 'abc', 'ñ “x” \u2028 🙂', '"}{', 'x'.repeat(65_000)];

  for (const result of ['{}', big]) {
    it(`decodes to the plain response for every id kind (result of ${result.length} bytes)`, function () {
      const prepared = new PreparedResult(result);
      for (const id of ids) sameResponse(prepared.gzip(id)!, serializePrepared(id, prepared));
    });
  }

  it('compresses the admin-sized list ~10x and reuses the one compression for every id', function () {
    const prepared = new PreparedResult(big);
    const first = prepared.gzip(1)!;
    const second = prepared.gzip(2)!;
    expect(first.length).to.be.below(serializePrepared(1, prepared).length / 5);
    expect(first.length).to.equal(second.length);
    // Everything but the id's stored block and the trailer is the same bytes.
    expect(first.subarray(0, first.length - 15).equals(second.subarray(0, second.length - 15))).to.equal(true);
  });

  it('gives no gzip form for an id too long for one stored block (the caller sends plain JSON)', function () {
    expect(new PreparedResult('{}').gzip('x'.repeat(70_000))).to.equal(undefined);
  });
});

describe('tools/list over HTTP: gzip when accepted, plain JSON otherwise', function () {
  let app: TestApp;
  let token: string;
  before(async function () {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
  });
  after(async () => app?.close());

  const list = (id: JsonRpcId, encoding?: string): Promise<Response> => fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18', ...(encoding === undefined ? {} : { 'accept-encoding': encoding }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
  });

  it('fetch (undici, as the SDK clients send it) gets gzip and reads the same list as a plain client', async function () {
    const zipped = await list(7);
    const plain = await list(7, 'identity');
    expect(zipped.headers.get('content-encoding')).to.equal('gzip');
    expect(plain.headers.get('content-encoding')).to.equal(null);
    for (const response of [zipped, plain]) expect(response.headers.get('vary')).to.match(/accept-encoding/i);
    const [a, b] = [await zipped.json(), await plain.json()] as { id: JsonRpcId; result: { tools: unknown[] } }[];
    expect(a).to.deep.equal(b);
    expect(a!.id).to.equal(7);
    expect(a!.result.tools.length).to.be.above(50);
  });

  it('honours gzip;q=0 and an id too long to append: plain JSON, same list', async function () {
    const refused = await list(8, 'gzip;q=0, identity');
    expect(refused.headers.get('content-encoding')).to.equal(null);
    const longId = 'i'.repeat(70_000);
    const long = await list(longId);
    expect(long.headers.get('content-encoding')).to.equal(null);
    expect(((await long.json()) as { id: string }).id).to.equal(longId);
    expect(((await refused.json()) as { id: number }).id).to.equal(8);
  });
});
