import { expect } from 'chai';
import type { Caller, OperationHandler } from '../../src/api/context.js';
import { ApiError } from '../../src/api/errors.js';
import { createOperationService } from '../../src/api/execute.js';
import { deriveAction } from '../../src/api/seguridad.js';
import type { ApiBudget, ExecuteDone, ExecuteResult } from '../../src/api/service.js';
import { handlers } from '../../generated/handlers.gen.js';
import type { RouteDefinition } from '../../src/runtime/types.js';
import { DEMO, openTestDatabase, type TestDatabase } from '../helpers/index.js';
import { loadPlannedRoutes } from './support/rest-app.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;

function makeCaller(overrides: Partial<Caller> = {}, permissions: string[] = []): Caller {
  return {
    personId: DEMO.persons.ana,
    organizationId: DEMO.organizationId,
    scopes: new Set(['finance.all.write']),
    tokenType: 'personal',
    channel: 'api',
    membership: { status: 'active', isAdmin: permissions.length === 0, permissions: new Set(permissions), workspaceIds: [M, F], workspaceNames: DEMO.workspaceNames },
    ...overrides,
  };
}

/** The call ran (REST-channel callers never need confirmation). */
function done(result: ExecuteResult): ExecuteDone {
  if (result.kind !== 'done') throw new Error(`expected done, got ${result.kind}`);
  return result;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    return err instanceof ApiError ? err.code : `Error: ${(err as Error).message}`;
  }
}

describe('createOperationService().execute', () => {
  let store: TestDatabase;
  let routes: readonly RouteDefinition[];
  before(async () => {
    store = await openTestDatabase();
    routes = await loadPlannedRoutes();
  });
  after(async () => { await store?.close(); });

  function service(extra: { budget?: ApiBudget; handlers?: Record<string, OperationHandler> } = {}) {
    return createOperationService({ db: store.db, routes, handlers: { ...handlers, ...extra.handlers }, budget: extra.budget });
  }

  const taxBody = (name: string) => ({ name, default_rate: '2' });

  it('throws a plain Error (a programming error) for an unknown operationId', async () => {
    expect(await codeOf(service().execute({ operationId: 'nope.list', caller: makeCaller(), workspace: {}, input: { path: {}, query: {} } })))
      .to.match(/^Error: Unknown operationId/);
  });

  it('checks permission before arguments, and arguments before Seguridad', async () => {
    const svc = service();
    const noPermission = makeCaller({}, ['taxes.view']);
    const bad = { path: {}, query: {}, body: { colour: 1 } };
    expect(await codeOf(svc.execute({ operationId: 'taxes.create', caller: noPermission, workspace: { connectionDefault: M }, input: bad })))
      .to.equal('insufficient_permission');
    await store.db.insertInto('security_settings').values({ workspace_id: F, blocked: JSON.stringify({ api: ['create'], mcp: [] }), updated_at: new Date().toISOString(), updated_by: DEMO.persons.ana, version: 2 }).execute();
    expect(await codeOf(svc.execute({ operationId: 'taxes.create', caller: makeCaller(), workspace: { connectionDefault: F }, input: bad })))
      .to.equal('VALIDATION_ERROR');
    expect(await codeOf(svc.execute({ operationId: 'taxes.create', caller: makeCaller(), workspace: { connectionDefault: F }, input: { path: {}, query: {}, body: taxBody('x') } })))
      .to.equal('SECURITY_BLOCKED');
    await store.db.deleteFrom('security_settings').where('workspace_id', '=', F).execute();
  });

  it('blocks per channel: an action blocked for mcp still runs for api', async () => {
    await store.db.insertInto('security_settings').values({ workspace_id: M, blocked: JSON.stringify({ api: [], mcp: ['create', 'delete'] }), updated_at: new Date().toISOString(), updated_by: DEMO.persons.ana, version: 2 }).execute();
    try {
      const svc = service();
      const input = { path: {}, query: {}, body: taxBody(`mcp-${Date.now()}`) };
      try {
        await svc.execute({ operationId: 'taxes.create', caller: makeCaller({ channel: 'mcp' }), workspace: { argument: M }, input });
        expect.fail('should be blocked');
      } catch (err) {
        expect((err as ApiError).toEnvelope().error).to.deep.include({ code: 'SECURITY_BLOCKED', details: { channel: 'mcp', action: 'create' } });
      }
      const ok = done(await svc.execute({ operationId: 'taxes.create', caller: makeCaller({ channel: 'api' }), workspace: { connectionDefault: M }, input }));
      expect(ok.output.outcome).to.equal('created');
      expect((ok.output.body as { created_via: string }).created_via).to.equal('api');
    } finally {
      await store.db.deleteFrom('security_settings').where('workspace_id', '=', M).execute();
    }
  });

  it('derives the Seguridad action of every operation', () => {
    const byId = new Map(routes.map((r) => [r.operation.operationId, r.operation]));
    // hand-kept-ok: the expected Seguridad action of a sample of operations, one or more per action
    const want: Record<string, string | null> = {
      'payables.settle': 'move_money', 'receivables.reopen': 'move_money', 'transfers.create': 'move_money',
      'attachments.upload': 'upload', 'attachments.link': 'update', 'attachments.unlink': 'update', 'payables.cancel': 'update',
      'accounts.delete': 'delete', 'attachments.delete': 'delete', 'accounts.create': 'create', 'accounts.update': 'update',
      'payables.list': null, 'attachments.download': null,
    };
    for (const [operationId, action] of Object.entries(want)) {
      const op = byId.get(operationId);
      expect(op, operationId).to.not.equal(undefined);
      expect(deriveAction(op!), operationId).to.equal(action);
    }
  });

  it('counts reads and writes against the budget and returns the budget state', async () => {
    const kinds: string[] = [];
    const budget: ApiBudget = { consume: async (_p, _o, kind) => { kinds.push(kind); return { limit: 10, remaining: 7, resetSeconds: 12.2 }; } };
    const svc = service({ budget });
    const read = done(await svc.execute({ operationId: 'taxes.list', caller: makeCaller(), workspace: { connectionDefault: M }, input: { path: {}, query: {}, list: { limit: 1, filters: {} } } }));
    expect(read.budget).to.deep.equal({ limit: 10, remaining: 7, resetSeconds: 12.2 });
    await svc.execute({ operationId: 'taxes.create', caller: makeCaller(), workspace: { connectionDefault: M }, input: { path: {}, query: {}, body: taxBody(`b-${Date.now()}`) } });
    expect(kinds).to.deep.equal(['read', 'write']);
  });

  it('stops before the operation when the budget is spent', async () => {
    const name = `spent-${Date.now()}`;
    const budget: ApiBudget = { consume: async () => { throw new ApiError('RATE_LIMITED', 'Budget spent.', { retry_after_seconds: 3, limit: 1 }); } };
    const code = await codeOf(service({ budget }).execute({ operationId: 'taxes.create', caller: makeCaller(), workspace: { connectionDefault: M }, input: { path: {}, query: {}, body: taxBody(name) } }));
    expect(code).to.equal('RATE_LIMITED');
    expect(await store.db.selectFrom('taxes').select('id').where('workspace_id', '=', M).where('name', '=', name).executeTakeFirst()).to.equal(undefined);
  });

  it('runs hooks in order and rolls the write back when the operation fails', async () => {
    const seen: string[] = [];
    const name = `rollback-${Date.now()}`;
    const failing: OperationHandler = async (ctx, input) => {
      await handlers['taxes.create']!(ctx, input);
      seen.push('handler');
      throw new ApiError('UNPROCESSABLE_ENTITY', 'Fails after writing.');
    };
    const svc = service({ handlers: { 'taxes.create': failing } });
    const code = await codeOf(svc.execute({
      operationId: 'taxes.create', caller: makeCaller(), workspace: { connectionDefault: M }, input: { path: {}, query: {}, body: taxBody(name) },
      hooks: { beforeExecute: async (p) => { seen.push(`before:${p.workspaceId}`); }, inTransaction: async () => { seen.push('trx'); } },
    }));
    expect(code).to.equal('UNPROCESSABLE_ENTITY');
    expect(seen).to.deep.equal([`before:${M}`, 'trx', 'handler']);
    expect(await store.db.selectFrom('taxes').select('id').where('workspace_id', '=', M).where('name', '=', name).executeTakeFirst()).to.equal(undefined);
  });

  it('replays an idempotent create, conflicts on another body, and scopes keys per workspace', async () => {
    const svc = service();
    const key = `idem-${Date.now()}`;
    const input = { path: {}, query: {}, body: taxBody(key), idempotencyKey: key };
    const first = done(await svc.execute({ operationId: 'taxes.create', caller: makeCaller(), workspace: { connectionDefault: M }, input }));
    const again = done(await svc.execute({ operationId: 'taxes.create', caller: makeCaller(), workspace: { connectionDefault: M }, input: { ...input, body: { default_rate: '2', name: key } } }));
    expect(again.output.body).to.deep.equal(first.output.body);
    expect(again.replayed).to.equal(true);
    expect(first.replayed).to.equal(false);
    const rows = await store.db.selectFrom('taxes').select('id').where('workspace_id', '=', M).where('name', '=', key).execute();
    expect(rows).to.have.length(1);
    expect(await codeOf(svc.execute({ operationId: 'taxes.create', caller: makeCaller(), workspace: { connectionDefault: M }, input: { ...input, body: taxBody(`${key}-other`) } })))
      .to.equal('CONFLICT');
    // Another workspace: the key is free there.
    const elsewhere = done(await svc.execute({ operationId: 'taxes.create', caller: makeCaller(), workspace: { connectionDefault: F }, input }));
    expect(elsewhere.replayed).to.equal(false);
  });

  it('runs a key again after it expired (24 h)', async () => {
    const svc = service();
    const key = `exp-${Date.now()}`;
    const input = { path: {}, query: {}, body: { name: 'Exp Center', type: 'cost' }, idempotencyKey: key };
    await svc.execute({ operationId: 'cost_centers.create', caller: makeCaller(), workspace: { connectionDefault: M }, input });
    await store.db.updateTable('idempotency_keys').set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('workspace_id', '=', M).where('key', '=', key).execute();
    const again = done(await svc.execute({ operationId: 'cost_centers.create', caller: makeCaller(), workspace: { connectionDefault: M }, input }));
    expect(again.replayed).to.equal(false);
  });

  it('answers one winner and replays for concurrent first uses of one key', async () => {
    const svc = service();
    const key = `race-${Date.now()}`;
    const input = { path: {}, query: {}, body: { name: 'Race Center', type: 'cost' }, idempotencyKey: key };
    const results = await Promise.allSettled(Array.from({ length: 5 }, () =>
      svc.execute({ operationId: 'cost_centers.create', caller: makeCaller(), workspace: { connectionDefault: M }, input })));
    const ok = results.filter((r) => r.status === 'fulfilled').map((r) => done((r as PromiseFulfilledResult<ExecuteResult>).value));
    expect(ok).to.have.length(5);
    expect(new Set(ok.map((o) => (o.output.body as { id: string }).id)).size).to.equal(1);
  });
});

describe('createOperationService() database races', () => {
  let store: TestDatabase;
  let routes: readonly RouteDefinition[];
  before(async () => {
    store = await openTestDatabase();
    routes = await loadPlannedRoutes();
  });
  after(async () => { await store?.close(); });

  it('answers CONFLICT, not 500, when concurrent creates race past the duplicate check', async () => {
    const svc = createOperationService({ db: store.db, routes, handlers });
    const name = `race-tax-${Date.now()}`;
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => svc.execute({
      operationId: 'taxes.create', caller: makeCaller(), workspace: { connectionDefault: M }, input: { path: {}, query: {}, body: { name, default_rate: '1' } },
    })));
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const codes = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => (r.reason as ApiError).code);
    expect(fulfilled).to.have.length(1);
    expect(codes.every((c) => c === 'CONFLICT'), codes.join()).to.equal(true);
  });

  it('ignores Idempotency-Key on routes that do not declare it (PATCH)', async () => {
    const svc = createOperationService({ db: store.db, routes, handlers });
    const created = done(await svc.execute({ operationId: 'cost_centers.create', caller: makeCaller(), workspace: { connectionDefault: M }, input: { path: {}, query: {}, body: { name: 'P', type: 'cost' } } }));
    const id = (created.output.body as { id: string }).id;
    const patch = (name: string) => svc.execute({ operationId: 'cost_centers.update', caller: makeCaller(), workspace: { connectionDefault: M }, input: { path: { id }, query: {}, body: { name }, idempotencyKey: 'same' } });
    await patch('A');
    const second = done(await patch('B'));
    expect((second.output.body as { name: string; version: number })).to.include({ name: 'B', version: 3 });
  });
});
