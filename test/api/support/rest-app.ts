/**
 * startRestApp: the real services (startTestApp) serving /v1 over real HTTP with real tokens.
 * When the generated registry is still a stub, the route table is planned from openapi/v1.yaml
 * in memory (the codegen's own planner) and served by the REST router on a second port.
 */
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import Koa from 'koa';
import { expect } from 'chai';
import { startTestApp, type StartTestAppOptions, type TestApp } from '../../helpers/index.js';
import { routes as generatedRoutes } from '../../../generated/registry.gen.js';
import { loadSpec } from '../../../codegen/load-spec.js';
import { planSpec } from '../../../codegen/plan-spec.js';
import type { RouteDefinition } from '../../../src/runtime/types.js';
import { createOperationService } from '../../../src/api/execute.js';
import { handlers } from '../../../generated/handlers.gen.js';
import { createRestRouter } from '../../../src/http/rest.js';
import { clockDate } from '../../../src/runtime/clock.js';

export interface RestApp {
  readonly url: string;
  readonly app: TestApp;
  readonly routes: readonly RouteDefinition[];
  token(person: 'ana' | 'bruno' | 'carla', scope?: string): Promise<string>;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

export interface CallOptions {
  readonly token?: string;
  readonly workspace?: string;
  readonly body?: unknown;
  /** Raw body text (sent as is, with `contentType`). */
  readonly raw?: string;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

export interface CallResult {
  readonly status: number;
  readonly headers: Headers;
  // Response JSON is checked field by field in the tests.
  readonly body: any;
}

let plannedRoutes: Promise<readonly RouteDefinition[]> | undefined;

export function loadPlannedRoutes(): Promise<readonly RouteDefinition[]> {
  plannedRoutes ??= loadSpec('openapi/v1.yaml').then((spec) => planSpec(spec).routes);
  return plannedRoutes;
}

async function serveOwnRouter(app: TestApp, routes: readonly RouteDefinition[]): Promise<{ url: string; close(): Promise<void> }> {
  const { services } = app;
  const operations = createOperationService({ db: services.db, routes, handlers, budget: services.limits.budget, now: () => clockDate(services.clock) });
  const koa = new Koa();
  const router = createRestRouter({ operations, routes, auth: services.auth, limits: services.limits });
  koa.use(router.routes()).use(router.allowedMethods());
  const server = http.createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const EMAILS = { ana: 'ana@demo.test', bruno: 'bruno@demo.test', carla: 'carla@demo.test' } as const;

export async function startRestApp(options: StartTestAppOptions = {}): Promise<RestApp> {
  const app = await startTestApp(options);
  const routes = generatedRoutes.length > 0 ? generatedRoutes : await loadPlannedRoutes();
  const own = generatedRoutes.length > 0 ? null : await serveOwnRouter(app, routes);
  const url = own?.url ?? app.url;
  // Minted on the app's clock: a test that moves the clock (test/helpers/clock.ts) gets a fresh
  // token once its cached one was minted more than ten minutes before (or after) the clock's now.
  const tokens = new Map<string, { readonly value: string; readonly mintedAt: number }>();
  async function token(person: 'ana' | 'bruno' | 'carla', scope = 'finance.all.write finance.security.write finance.approvals.write'): Promise<string> {
    const key = `${person} ${scope}`;
    const now = app.services.clock.now();
    const cached = tokens.get(key);
    if (cached && Math.abs(now - cached.mintedAt) < 600_000) return cached.value;
    const value = await app.mintToken({ person: EMAILS[person], scope, aud: 'api' });
    tokens.set(key, { value, mintedAt: now });
    return value;
  }
  async function call(method: string, path: string, opts: CallOptions = {}): Promise<CallResult> {
    const headers: Record<string, string> = { authorization: `Bearer ${opts.token ?? (await token('ana'))}`, ...opts.headers };
    if (opts.workspace) headers['x-workspace-id'] = opts.workspace;
    let body: string | undefined;
    if (opts.raw !== undefined) {
      body = opts.raw;
      if (opts.contentType) headers['content-type'] = opts.contentType;
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = opts.contentType ?? 'application/json';
    }
    const response = await fetch(`${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Non-JSON bodies (files) stay text.
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }
  return {
    url,
    app,
    routes,
    token,
    call,
    async close() {
      await own?.close();
      await app.close();
    },
  };
}

/**
 * A caller of `api` in `workspace` that expects a 2xx (or exactly one of `statuses`) and answers
 * its body (the failing answer in the message).
 */
// Response JSON is checked field by field in the tests.
export function okCaller(api: RestApp, workspace: string, statuses?: readonly number[]): (method: string, path: string, body?: unknown) => Promise<any> {
  return async (method, path, body) => {
    const res = await api.call(method, path, { workspace, ...(body === undefined ? {} : { body }) });
    const message = `${method} ${path}: ${JSON.stringify(res.body)}`;
    if (statuses) expect(res.status, message).to.be.oneOf([...statuses]);
    else expect(res.status, message).to.be.within(200, 299);
    return res.body;
  };
}
