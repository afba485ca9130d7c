/**
 * Table-driven REST coverage of the statuses every operation documents in openapi/v1.yaml:
 * success, 400, 401, 403, 404 (operations with a path id) and 429, one `it` per (operation,
 * status), iterating the generated route table so a new operation is covered automatically.
 * Rule-specific 409/422/413 cases live in the per-resource error-codes-*.test.ts files.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { routes } from '../../generated/registry.gen.js';
import type { RouteDefinition } from '../../src/runtime/types.js';
import { DEMO } from '../helpers/index.js';
import { DEMO_MEMBERS } from '../../src/seed/identity.js';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { REQUESTS, createTaker, takeRandom, type CoverageRequest, type Take } from './support/coverage-requests.js';
import { snapshotWorkspace } from './support/coverage-isolation.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;

function buildFor(route: RouteDefinition, take: Take): Promise<CoverageRequest> {
  const builder = REQUESTS[route.operation.operationId];
  if (!builder) throw new Error(`no coverage request for ${route.operation.operationId}`);
  return builder(take);
}

const hasPathId = (route: RouteDefinition) => route.parameters.some((p) => p.in === 'path');
// A read is a GET or an operation that changes nothing (a preview POST): it needs read scopes only.
const isWrite = (route: RouteDefinition) => !route.operation.readOnly;

/** A scope that covers everything except what this route needs: read-only for writes, another resource for reads. */
function insufficientScope(route: RouteDefinition): string {
  if (isWrite(route)) return 'finance.all';
  // An operation that names no scope takes any finance.* one (workspaces.list): a token with none is refused.
  return route.operation.scopes.length === 0 ? 'openid' : 'finance.workspaces';
}

/** Bruno's panel permissions (the seed's), in Matriz only: any other permission is refused there. */
const BRUNO_PERMISSIONS: readonly string[] = DEMO_MEMBERS.find((member) => member.email === DEMO.emails.bruno)?.permissions ?? [];
function brunoIsRefusedPermission(route: RouteDefinition): boolean {
  // `none` (any member) is held by everyone: bruno is refused only the workspace he is not granted.
  return route.operation.permission !== 'none' && !BRUNO_PERMISSIONS.includes(route.operation.permission);
}

// Response JSON is checked field by field in the tests.
async function sendFetch(url: string, request: CoverageRequest, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${request.path}`, {
    method: request.method,
    headers: { ...headers, ...(request.body ? { 'content-type': 'application/json' } : {}) },
    ...(request.body ? { body: JSON.stringify(request.body) } : {}),
  });
  const text = await response.text();
  // Bodies are checked field by field below.
  let body: any = text;
  try { body = JSON.parse(text); } catch { /* file downloads stay text */ }
  return { status: response.status, body };
}

describe('every operation × documented status (REST, table-driven)', function () {
  this.timeout(180_000);
  let api: RestApp;
  let takeMatriz: Take;
  before(async () => {
    api = await startRestApp();
    takeMatriz = await createTaker(api, M);
  });
  after(async () => { await api?.close(); });

  for (const route of routes) {
    const op = route.operation;
    const workspace = op.workspaceScoped ? M : undefined;
    const call = (request: CoverageRequest, token?: string) =>
      api.call(request.method, request.path, { ...(workspace ? { workspace } : {}), ...(request.body ? { body: request.body } : {}), ...(token ? { token } : {}) });

    /** A refused call writes nothing: Matriz (the workspace named) is byte-for-byte unchanged. */
    const refusedIt = (title: string, body: () => Promise<void>) => it(`${title}; nothing written`, async () => {
      const before = await snapshotWorkspace(api.app.services.db, M);
      await body();
      expect((await snapshotWorkspace(api.app.services.db, M)).rows).to.deep.equal(before.rows);
    });

    describe(`${op.operationId} (${op.method} ${op.path})`, () => {
      it(`${route.successStatus}: success path`, async () => {
        const res = await call(await buildFor(route, takeMatriz));
        expect(res.status, JSON.stringify(res.body)).to.equal(route.successStatus);
      });

      refusedIt('400: a malformed request is refused (VALIDATION_ERROR / BAD_REQUEST / workspace_required)', async () => {
        const request = await buildFor(route, takeRandom);
        let res;
        let expected: string;
        if (route.list) {
          res = await call({ ...request, path: `${request.path}${request.path.includes('?') ? '&' : '?'}no_such_filter=1` });
          expected = 'BAD_REQUEST';
        } else if (hasPathId(route)) {
          res = await call({ ...request, path: request.path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, 'not-a-uuid') });
          expected = 'VALIDATION_ERROR';
        } else if (request.body) {
          res = await call({ ...request, body: { ...request.body, zz_unknown_field: 1 } });
          expected = 'VALIDATION_ERROR';
        } else {
          // Ana reaches two workspaces: without naming one, nothing can be resolved.
          res = await api.call(request.method, request.path);
          expected = 'workspace_required';
        }
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error.code).to.equal(expected);
      });

      refusedIt('401: no token, and a token minted for the MCP audience', async () => {
        const request = await buildFor(route, takeRandom);
        const headers: Record<string, string> = workspace ? { 'x-workspace-id': workspace } : {};
        const none = await sendFetch(api.url, request, headers);
        expect(none.status).to.equal(401);
        expect(none.body.error.code).to.equal('unauthorized');
        const mcpToken = await api.app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', aud: 'mcp' });
        const mcp = await sendFetch(api.url, request, { ...headers, authorization: `Bearer ${mcpToken}` });
        expect(mcp.status).to.equal(401);
        expect(mcp.body.error.code).to.equal('unauthorized');
      });

      refusedIt('403: insufficient_scope, and a refused permission or workspace for bruno', async () => {
        const request = await buildFor(route, takeRandom);
        const scoped = await call(request, await api.token('ana', insufficientScope(route)));
        expect(scoped.status, JSON.stringify(scoped.body)).to.equal(403);
        expect(scoped.body.error.code).to.equal('insufficient_scope');
        const bruno = await api.token('bruno', 'finance.all.write finance.security.write finance.approvals.write');
        if (route.operation.permission === 'none' && !route.operation.workspaceScoped) {
          // Needs no permission and runs in no workspace (workspaces.list): bruno is answered with his own workspace only.
          const res = await call(request, bruno);
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          expect(JSON.stringify(res.body), 'only his own workspace').to.not.include(F);
        } else if (brunoIsRefusedPermission(route)) {
          const res = await call(request, bruno);
          expect(res.status, JSON.stringify(res.body)).to.equal(403);
          expect(res.body.error.code).to.equal('insufficient_permission');
        } else {
          const res = await api.call(request.method, request.path, { workspace: F, token: bruno });
          expect(res.status, JSON.stringify(res.body)).to.equal(403);
          expect(res.body.error.code).to.equal('workspace_access_denied');
        }
      });

      if (hasPathId(route)) {
        refusedIt('404: an id that names no record', async () => {
          const res = await call(await buildFor(route, takeRandom));
          expect(res.status, JSON.stringify(res.body)).to.equal(404);
          expect(res.body.error.code).to.equal('NOT_FOUND');
        });
      }
    });
  }
});

describe('every operation answers 429 once the API budget is spent (REST, table-driven)', function () {
  this.timeout(120_000);
  let api: RestApp;
  before(async () => {
    api = await startRestApp({ config: { apiReadBudget: 1, apiWriteBudget: 1, apiBudgetWindowSeconds: 3600 } });
    // Spend both budgets with calls that change nothing.
    await api.call('GET', '/v1/workspaces');
    await api.call('DELETE', `/v1/taxes/${randomUUID()}`, { workspace: M });
  });
  after(async () => { await api?.close(); });

  for (const route of routes) {
    it(`${route.operation.operationId}: 429 RATE_LIMITED with Retry-After; nothing written`, async () => {
      const before = await snapshotWorkspace(api.app.services.db, M);
      const request = await buildFor(route, takeRandom);
      const res = await api.call(request.method, request.path, { ...(route.operation.workspaceScoped ? { workspace: M } : {}), ...(request.body ? { body: request.body } : {}) });
      expect(res.status, JSON.stringify(res.body)).to.equal(429);
      expect(res.body.error.code).to.equal('RATE_LIMITED');
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      expect((await snapshotWorkspace(api.app.services.db, M)).rows).to.deep.equal(before.rows);
    });
  }
});
