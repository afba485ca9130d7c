/**
 * `execute` enforces the generated classification, not a rule of its own: an operation the spec
 * marks destructive with `x-mcp.annotations.destructiveHint: true` needs a confirmation proof on
 * the `mcp` channel (without one `execute` answers `needs_confirmation`), exactly as its tool's
 * `destructiveHint` says; one marked not destructive runs without. And an MCP call's arguments are validated once, by the check the transport hands
 * `execute` (issues named after tool arguments), after authorization.
 */
import { expect } from 'chai';
import type { Caller } from '../../src/api/context.js';
import { ApiError } from '../../src/api/errors.js';
import { createOperationService } from '../../src/api/execute.js';
import { handlers } from '../../generated/handlers.gen.js';
import type { RouteDefinition } from '../../src/runtime/types.js';
import { DEMO, openTestDatabase, type TestDatabase } from '../helpers/index.js';
import { loadPlannedRoutes } from './support/rest-app.js';

const M = DEMO.workspaces.matriz;

function mcpCaller(permissions: string[] = []): Caller {
  return {
    personId: DEMO.persons.ana, organizationId: DEMO.organizationId, scopes: new Set(['finance.all.write']), tokenType: 'personal', channel: 'mcp',
    membership: { status: 'active', isAdmin: permissions.length === 0, permissions: new Set(permissions), workspaceIds: [M], workspaceNames: DEMO.workspaceNames },
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    return err instanceof ApiError ? err.code : `Error: ${(err as Error).message}`;
  }
}

describe('execute() and the generated classification', () => {
  let store: TestDatabase;
  let routes: readonly RouteDefinition[];
  before(async () => {
    store = await openTestDatabase();
    routes = await loadPlannedRoutes();
  });
  after(async () => { await store?.close(); });

  /** The planned routes with `operationId`'s classification replaced, as an x-mcp.annotations override would generate it. */
  function serviceWith(operationId: string, destructive: boolean) {
    const edited = routes.map((route) => (route.operation.operationId === operationId ? { ...route, operation: { ...route.operation, destructive } } : route));
    return createOperationService({ db: store.db, routes: edited, handlers });
  }

  it('asks for a proof on an operation marked destructive, whatever its method and name', async () => {
    const input = { path: {}, query: {}, body: { name: `marked-${Date.now()}`, default_rate: '2' } };
    const request = { operationId: 'taxes.create', caller: mcpCaller(), workspace: { connectionDefault: M }, input };
    expect((await serviceWith('taxes.create', true).execute(request)).kind).to.equal('needs_confirmation');
    expect((await serviceWith('taxes.create', false).execute(request)).kind).to.equal('done');
  });

  it('runs the transport\'s argument check in place of the route schemas, after authorization', async () => {
    const svc = serviceWith('taxes.create', false);
    let checked = 0;
    const checkArguments = () => {
      checked += 1;
      throw new ApiError('VALIDATION_ERROR', 'The tool arguments are not valid.', { issues: [{ path: 'default_rate', message: 'is required' }] });
    };
    // A body the route schema would refuse (unknown field) reaches only the transport's check.
    const input = { path: {}, query: {}, body: { colour: 1 } };
    const refused = await svc.execute({ operationId: 'taxes.create', caller: mcpCaller(['taxes.view']), workspace: { connectionDefault: M }, input, checkArguments })
      .catch((err: unknown) => err);
    expect((refused as ApiError).code).to.equal('insufficient_permission');
    expect(checked).to.equal(0);
    const invalid = await svc.execute({ operationId: 'taxes.create', caller: mcpCaller(), workspace: { connectionDefault: M }, input, checkArguments })
      .catch((err: unknown) => err);
    expect((invalid as ApiError).details).to.deep.equal({ issues: [{ path: 'default_rate', message: 'is required' }] });
    expect(checked).to.equal(1);
    // Unsafe text is still refused after the transport's check passed.
    const nul = { path: {}, query: {}, body: { name: 'a\u0000b', default_rate: '2' } };
    expect(await codeOf(svc.execute({ operationId: 'taxes.create', caller: mcpCaller(), workspace: { connectionDefault: M }, input: nul, checkArguments: () => undefined })))
      .to.equal('VALIDATION_ERROR');
  });
});
