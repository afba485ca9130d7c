/**
 * A minimal Koa app around the real `/mcp` router with a stand-in bearer (token = person key)
 * and operation service, for exercising the transport without the database-backed services.
 * Integration tests use test/helpers/startTestApp instead.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import { ApiError } from '../../../src/api/errors.js';
import type { Caller } from '../../../src/api/context.js';
import type { OperationService } from '../../../src/api/service.js';
import { assertMembership, assertPermission, assertScope, canReach } from '../../../src/api/authorize.js';
import { HttpError } from '../../../src/http/errors.js';
import type { Limits } from '../../../src/http/limits.js';
import { createMcpRouter } from '../../../src/mcp/router.js';
import type { ToolDefinition } from '../../../src/runtime/types.js';
import type { Config } from '../../../src/config.js';

const WORKSPACE = '00000000-0000-4000-8000-000000000001';

export const fakeCallers: Record<string, Caller> = {
  admin: {
    personId: 'p-admin', organizationId: 'org', scopes: new Set(['finance.all.write']), tokenType: 'personal', channel: 'mcp',
    membership: { status: 'active', isAdmin: true, permissions: new Set(), workspaceIds: [WORKSPACE], workspaceNames: new Map([[WORKSPACE, 'Test workspace']]) },
  },
  reader: {
    personId: 'p-reader', organizationId: 'org', scopes: new Set(['finance.all']), tokenType: 'oauth', channel: 'mcp',
    membership: { status: 'active', isAdmin: false, permissions: new Set(['payables.view']), workspaceIds: [WORKSPACE], workspaceNames: new Map([[WORKSPACE, 'Test workspace']]) },
  },
};

export function buildFakeTools(): ToolDefinition[] {
  const op = (operationId: string, method: 'GET' | 'DELETE', scopes: string[], permission: string) =>
    ({
      operationId, method, path: '/v1/payables', scopes, permission, movesMoney: false, outflow: null, workspaceScoped: false,
      readOnly: method === 'GET', destructive: method === 'DELETE', idempotent: true, confirmation: method === 'DELETE' ? { template: 'Delete {id}?', target: 'payables.get' } : null, changes: [], shows: [], sums: [],
    });
  return [
    {
      name: 'finance_payables_list', title: 'List payables', description: 'Lists payables.',
      inputSchema: { type: 'object', properties: { limit: { type: 'integer' }, filters: { type: 'object', additionalProperties: false, properties: { status: { type: 'string' } } } }, additionalProperties: false },
      argumentSchema: { type: 'object', properties: { limit: { type: 'integer', minimum: 1, maximum: 100 }, filters: { type: 'object', additionalProperties: false, properties: { status: { type: 'string' } } } }, additionalProperties: false },
      annotations: { title: 'List payables', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      operation: op('payables.list', 'GET', ['finance.payables'], 'payables.view'),
      args: { limit: { in: 'list', name: 'limit' }, filters: { in: 'list', name: 'filters' } },
      minBodyArguments: 0,
      output: null,
      toolsets: ['payables'],
    },
    {
      name: 'finance_payables_delete', title: 'Delete a payable', description: 'Deletes a payable.',
      inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      argumentSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      operation: op('payables.delete', 'DELETE', ['finance.payables.write'], 'payables.delete'),
      args: { id: { in: 'path', name: 'id' } },
      minBodyArguments: 0,
      output: null,
      toolsets: ['payables'],
    },
  ];
}

export function createFakeOperations(): OperationService & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    canReach,
    async authorize(request) {
      // The fake tools are not workspace-scoped: the three caller checks are all there is.
      const operation = buildFakeTools().find((t) => t.operation.operationId === request.operationId)?.operation;
      if (operation === undefined) throw new Error(`Unknown operationId: ${request.operationId}`);
      assertMembership(request.caller);
      assertScope(request.caller, operation);
      assertPermission(request.caller, operation);
      return null;
    },
    async execute(request) {
      calls.push(request);
      if (request.operationId === 'payables.list') {
        if (request.input.list?.filters['status']?.eq === 'boom') throw new Error('boom');
        if (request.input.list?.filters['status']?.eq === 'missing') throw new ApiError('NOT_FOUND', 'Payable not found.');
        return { kind: 'done', output: { body: { data: [], meta: { next_cursor: null } } }, replayed: false };
      }
      return { kind: 'done', output: { outcome: 'deleted' }, replayed: false };
    },
  };
}

const limits: Limits = {
  budget: { async consume() { return { limit: 1, remaining: 1, resetSeconds: 1 }; } },
  async consumeProtocol(subject) { if (subject === 'p-limited') throw new HttpError(429, 'Too many requests', { 'Retry-After': '7' }); },
  async assertAuthAllowed() {},
  async recordAuthFailure() {},
  async consumeRegistration() {},
  async close() {},
};

export interface FakeStack { url: string; operations: ReturnType<typeof createFakeOperations>; close(): Promise<void> }

export async function startFakeStack(): Promise<FakeStack> {
  const operations = createFakeOperations();
  const config = { allowedOrigins: ['http://localhost:*'] } as unknown as Config;
  const router = createMcpRouter({
    config, logger: pino({ level: 'silent' }), operations, tools: buildFakeTools(), resourceTemplates: [], limits,
    db: undefined as never,
    auth: {
      bearer: () => async (ctx, next) => {
        const token = /^Bearer (\S+)$/.exec(ctx.get('authorization'))?.[1];
        const caller = token ? fakeCallers[token] : undefined;
        if (!caller) throw new HttpError(401, 'Unauthorized', { 'WWW-Authenticate': 'Bearer' });
        Object.assign(ctx.state, { caller, connectionWorkspaceId: undefined });
        await next();
      },
    },
  });
  const app = new Koa();
  app.use(router.routes());
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    operations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
