/**
 * The harness's loopback proxy: forwards every request to the server unchanged (method, path,
 * headers — Host and Origin as the suite sent them — and body) and adds
 * `Authorization: Bearer <token>`, because the conformance suite cannot send one. It lives in
 * the harness only: the product never gains an unauthenticated mode.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BearerProxy {
  /** `http://127.0.0.1:<port>` — append `/mcp` for the endpoint. */
  readonly url: string;
  /** Requests forwarded so far (a run with zero is a harness fault, not a pass). */
  forwarded(): number;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) are the connection's own and never forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

function copyHeaders(raw: readonly string[], token: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    const lower = name.toLowerCase();
    // The suite never authenticates; a header it might send is replaced, never doubled.
    if (HOP_BY_HOP.has(lower) || lower === 'authorization') continue;
    out.push(name, raw[i + 1] ?? '');
  }
  out.push('Authorization', `Bearer ${token}`);
  return out;
}

/** Starts the proxy on a free loopback port, forwarding to `target` (`http://127.0.0.1:<port>`). */
export async function startBearerProxy(target: string, token: string): Promise<BearerProxy> {
  const upstream = new URL(target);
  let count = 0;
  const server = http.createServer((req, res) => {
    count += 1;
    const forward = http.request({
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      // Raw pairs keep the suite's Host (dns-rebinding-protection sends a foreign one) and casing.
      headers: copyHeaders(req.rawHeaders, token),
    }, (answer) => {
      const headers: string[] = [];
      for (let i = 0; i < answer.rawHeaders.length; i += 2) {
        const name = answer.rawHeaders[i] ?? '';
        if (!HOP_BY_HOP.has(name.toLowerCase())) headers.push(name, answer.rawHeaders[i + 1] ?? '');
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
      answer.pipe(res);
    });
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('proxy: upstream unreachable');
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded: () => count,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
