/**
 * The resources/prompts/completions tests' stack: the real app (test/helpers/startTestApp) and,
 * beside it on another loopback port, the real `/mcp` router over the same services with this
 * feature's providers plugged in — so the tests exercise the providers through the real
 * transport, bearer, limits and era handling whether or not src/app.ts wires them yet.
 * Also small JSON-RPC helpers for the three eras.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createMcpRouter } from '../../../../src/mcp/router.js';
import { createFinanceProviders } from '../../../../src/mcp/features/index.js';
import { resourceTemplates, tools } from '../../../../generated/registry.gen.js';
import { startTestApp, type TestApp } from '../../../helpers/test-app.js';
import { modernRequest, postMcp } from '../../support/wire.js';

export { DEMO } from '../../../../src/seed/ids.js';

export type EraName = '2026-07-28' | '2025-06-18' | '2025-03-26';
export const ERAS: readonly EraName[] = ['2026-07-28', '2025-06-18', '2025-03-26'];

export interface ResourceStack {
  readonly app: TestApp;
  /** The `/mcp` URL serving the providers. */
  readonly mcpUrl: string;
  token(person: 'ana' | 'bruno' | 'carla', scope?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startResourceStack(): Promise<ResourceStack> {
  const app = await startTestApp();
  const { services } = app;
  const providers = createFinanceProviders({ operations: services.operations, db: services.db, tools, resourceTemplates });
  const router = createMcpRouter({
    config: services.config,
    logger: services.logger,
    metrics: services.metrics,
    operations: services.operations,
    tools,
    resourceTemplates,
    auth: services.auth,
    limits: services.limits,
    db: services.db,
    ...providers,
  });
  const koa = new Koa();
  koa.use(router.routes());
  const server = http.createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    app,
    mcpUrl: `http://127.0.0.1:${port}/mcp`,
    token: (person, scope = 'finance.all') => app.mintToken({ person: `${person}@demo.test`, scope }),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

export interface RpcReply {
  readonly status: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: Record<string, unknown> };
}

let nextId = 1;

/** One JSON-RPC request in the given era (modern: `_meta` envelope and mirroring headers). */
export async function callMcp(url: string, token: string, era: EraName, method: string, params: Record<string, unknown> = {}): Promise<RpcReply> {
  const id = nextId++;
  const auth = { authorization: `Bearer ${token}` };
  let response;
  if (era === '2026-07-28') {
    const { body, headers } = modernRequest(id, method, params);
    response = await postMcp(url, body, { ...headers, ...auth });
  } else {
    const headers: Record<string, string> = era === '2025-06-18' ? { 'mcp-protocol-version': era, ...auth } : auth;
    response = await postMcp(url, { jsonrpc: '2.0', id, method, params }, headers);
  }
  const json = response.json as { result?: Record<string, unknown>; error?: RpcReply['error'] } | undefined;
  return { status: response.status, ...(json?.result ? { result: json.result } : {}), ...(json?.error ? { error: json.error } : {}) };
}

/** The result of a call that must succeed. */
export async function expectResult(url: string, token: string, era: EraName, method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const reply = await callMcp(url, token, era, method, params);
  if (reply.result === undefined) throw new Error(`${method} (${era}) failed: ${JSON.stringify(reply.error)} (HTTP ${reply.status})`);
  return reply.result;
}

export { tools, resourceTemplates };
