/**
 * The process's body-memory budget (MAX_INFLIGHT_BODY_BYTES, src/http/capped-body.ts) through the
 * real app: a body the budget cannot hold is refused with 503 + Retry-After before it is read
 * (/mcp with a JSON-RPC error body, /v1 with its error envelope), and a reservation is released
 * when its request ends — answered or aborted by the client.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { createServices, type Services } from '../../src/bootstrap.js';
import { listenGracefully, type GracefulServer } from '../../src/http/server.js';
import { buildTestConfig, createTestSchema, DEMO, type TestSchema } from '../helpers/index.js';

const CAP = 100 * 1024;
const HELD = 80 * 1024;

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly json: unknown;
}

/** A JSON-RPC ping padded with trailing whitespace to exactly `size` bytes. */
function paddedPing(size: number): Buffer {
  const json = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' });
  return Buffer.concat([Buffer.from(json), Buffer.alloc(size - json.length, 0x20)]);
}

function post(url: string, headers: http.OutgoingHttpHeaders, body: Buffer): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'Content-Length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i += 1) await sleep(25);
  if (!condition()) throw new Error(`never happened: ${what}`);
}

describe('body-memory budget (MAX_INFLIGHT_BODY_BYTES)', function () {
  this.timeout(30_000);
  let services: Services;
  let server: GracefulServer;
  let schema: TestSchema;
  let dataDir: string;
  let url: string;
  let mcpHeaders: http.OutgoingHttpHeaders;
  let apiHeaders: http.OutgoingHttpHeaders;

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-body-memory-'));
    schema = await createTestSchema();
    const config = buildTestConfig({ port: 0, dataDir, databaseUrl: schema.databaseUrl, maxInflightBodyBytes: CAP });
    services = await createServices(config, pino({ level: 'silent' }));
    server = await listenGracefully(createApp(services), services, { port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const mint = services.auth.mintToken!;
    mcpHeaders = { Authorization: `Bearer ${await mint({ person: DEMO.emails.ana, aud: 'mcp' })}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    apiHeaders = { Authorization: `Bearer ${await mint({ person: DEMO.emails.ana, aud: 'api', scope: 'finance.all.write' })}`, 'Content-Type': 'application/json', 'X-Workspace-Id': DEMO.workspaces.matriz };
  });
  after(async () => {
    await server.shutdown();
    await schema.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('refuses a body the budget cannot hold with 503 + Retry-After, and releases the reservation of an aborted request', async () => {
    // A slow /mcp body holds HELD bytes of the budget: headers and a few bytes now, the rest never.
    const held = http.request(`${url}/mcp`, { method: 'POST', headers: { ...mcpHeaders, 'Content-Length': HELD } });
    const heldOutcome = new Promise<string>((resolve) => {
      held.on('response', () => resolve('answered'));
      held.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    held.write(paddedPing(HELD).subarray(0, 100));
    await until(() => server.bodyMemory.reservedBytes() === HELD, 'the slow body reserved its Content-Length');

    const mcp = await post(`${url}/mcp`, mcpHeaders, paddedPing(30 * 1024));
    expect(mcp.status).to.equal(503);
    expect(mcp.headers['retry-after']).to.equal('1');
    expect(mcp.json).to.nested.include({ jsonrpc: '2.0', id: null, 'error.code': -32603 });

    const body = Buffer.from(JSON.stringify({ name: 'Refused while busy', type: 'debit', note: ' '.repeat(30 * 1024) }));
    const rest = await post(`${url}/v1/categories`, apiHeaders, body);
    expect(rest.status).to.equal(503);
    expect(rest.headers['retry-after']).to.equal('1');
    expect(rest.json).to.nested.include({ 'error.code': 'service_unavailable' });
    // The refused requests reserved nothing that outlives them.
    expect(server.bodyMemory.reservedBytes()).to.equal(HELD);

    held.destroy();
    expect(await heldOutcome).to.equal('ECONNRESET');
    await until(() => server.bodyMemory.reservedBytes() === 0, 'the aborted request released its reservation');

    const after = await post(`${url}/mcp`, mcpHeaders, paddedPing(30 * 1024));
    expect(after.status).to.equal(200);
    expect(after.json).to.deep.equal({ jsonrpc: '2.0', id: 7, result: {} });
    await until(() => server.bodyMemory.reservedBytes() === 0, 'the answered request released its reservation');
  });

  it('counts a chunked body as it is read and refuses it once the budget is spent', async () => {
    const held = http.request(`${url}/mcp`, { method: 'POST', headers: { ...mcpHeaders, 'Content-Length': HELD } });
    held.on('error', () => undefined);
    held.write(paddedPing(HELD).subarray(0, 100));
    try {
      await until(() => server.bodyMemory.reservedBytes() === HELD, 'the slow body reserved its Content-Length');
      const chunked = await new Promise<Reply>((resolve, reject) => {
        const req = http.request(`${url}/mcp`, { method: 'POST', headers: { ...mcpHeaders, 'Transfer-Encoding': 'chunked' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        });
        req.on('error', reject);
        const body = paddedPing(40 * 1024);
        for (let offset = 0; offset < body.length; offset += 4 * 1024) req.write(body.subarray(offset, offset + 4 * 1024));
        req.end();
      });
      expect(chunked.status).to.equal(503);
      expect(chunked.headers['retry-after']).to.equal('1');
      expect(chunked.json).to.nested.include({ 'error.code': -32603 });
      await until(() => server.bodyMemory.reservedBytes() === HELD, 'the refused chunked body released what it had reserved');
    } finally {
      held.destroy();
    }
    await until(() => server.bodyMemory.reservedBytes() === 0, 'the aborted request released its reservation');
  });
});
