/**
 * test/helpers/connection-retry.ts retries the connection, never an answer: a request reset
 * before any answer is sent again on a new connection; an answer of any status is returned at
 * once; a client process that failed to connect runs again, one that failed otherwise does not.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from 'chai';
import { CONNECTION_ATTEMPTS, connectionErrorCode, connectionRetryingFetch, failedToConnect, runConnectingProcess } from '../helpers/connection-retry.js';

/** A server that resets the first `resets` connections and answers `status` on the others. */
async function startServer(resets: number, status: number): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let connections = 0;
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests += 1;
    res.writeHead(status, { connection: 'close' }).end('answer');
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    if (connections <= resets) socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, requests: () => requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('connection retries of the interop tests (test/helpers/connection-retry.ts)', () => {
  it('sends a request reset before any answer again, on a new connection', async () => {
    const server = await startServer(2, 200);
    try {
      const res = await connectionRetryingFetch()(server.url, { method: 'POST', body: '{"jsonrpc":"2.0"}' });
      expect(res.status).to.equal(200);
      expect(await res.text()).to.equal('answer');
      expect(server.requests()).to.equal(1);
    } finally {
      await server.close();
    }
  });

  it('gives up after CONNECTION_ATTEMPTS, with the connection error', async () => {
    const server = await startServer(CONNECTION_ATTEMPTS, 200);
    try {
      const err = await connectionRetryingFetch()(server.url).then(() => null, (e: unknown) => e);
      expect(connectionErrorCode(err)).to.be.a('string');
      expect(server.requests()).to.equal(0);
    } finally {
      await server.close();
    }
  });

  it('returns an answer of any status at once: the test asserts on it', async () => {
    const server = await startServer(0, 500);
    try {
      const res = await connectionRetryingFetch()(server.url, { method: 'POST', body: 'x' });
      expect(res.status).to.equal(500);
      expect(server.requests()).to.equal(1);
    } finally {
      await server.close();
    }
  });

  it('throws any other error at once', async () => {
    let calls = 0;
    const failing = connectionRetryingFetch(async () => { calls += 1; throw new TypeError('bad request'); });
    const err = await failing('http://127.0.0.1:1/').then(() => null, (e: unknown) => e);
    expect(err).to.be.instanceOf(TypeError);
    expect(calls).to.equal(1);
  });

  it('runs a client process again only when it failed to connect', async () => {
    expect(failedToConnect({ code: 1, stdout: '', stderr: 'TypeError: fetch failed\n  [cause]: Error: read ECONNRESET' })).to.equal(true);
    expect(failedToConnect({ code: 1, stdout: '', stderr: 'Error: expected tools' })).to.equal(false);
    expect(failedToConnect({ code: 0, stdout: 'ECONNRESET in a row', stderr: '' })).to.equal(false);
    const runs = [{ code: 1, stdout: '', stderr: 'connect ECONNREFUSED' }, { code: 2, stdout: '', stderr: 'wrong answer' }, { code: 0, stdout: '', stderr: '' }];
    let calls = 0;
    const result = await runConnectingProcess(async () => runs[calls++] as (typeof runs)[number]);
    expect(result.code).to.equal(2);
    expect(calls).to.equal(2);
  });
});
