/**
 * Raw HTTP helpers for `/mcp` tests: POST a body with chosen headers and read status, headers
 * and JSON; build modern-era `_meta` envelopes and their mirroring headers.
 */
import http from 'node:http';

export const MODERN = '2026-07-28';

export interface WireResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
}

export async function postMcp(url: string, body: unknown, headers: Record<string, string> = {}): Promise<WireResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return readResponse(response);
}

export async function readResponse(response: Response): Promise<WireResponse> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export function modernMeta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'wire-test', version: '1.0.0' },
    ...extra,
  };
}

/** A modern request and the headers that mirror it (Mcp-Name for tools/call, prompts/get, resources/read). */
export function modernRequest(id: number, method: string, params: Record<string, unknown> = {}): { body: unknown; headers: Record<string, string> } {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
  const name = method === 'resources/read' ? params['uri'] : params['name'];
  if (['tools/call', 'prompts/get', 'resources/read'].includes(method) && typeof name === 'string') headers['mcp-name'] = name;
  return { body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } }, headers };
}

export function base64Sentinel(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * Sends raw bytes with node:http (chunked, no Content-Length, or a declared length) and
 * resolves with the first response, ignoring write errors once the server answered.
 */
export function sendRaw(
  url: string,
  options: { headers: Record<string, string>; chunks?: Iterable<Buffer> | undefined; declaredLength?: number },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.declaredLength !== undefined) headers['content-length'] = options.declaredLength;
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') });
        req.destroy();
      });
    });
    req.on('error', (error) => { if (!answered) reject(error); });
    if (options.declaredLength !== undefined && options.chunks === undefined) {
      req.flushHeaders();
      return;
    }
    void (async () => {
      for (const chunk of options.chunks ?? []) {
        if (answered || req.destroyed) return;
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
      }
      if (!answered && !req.destroyed) req.end();
    })();
  });
}
