import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../src/api/errors.js';
import type { Caller } from '../../src/api/context.js';
import type { OperationRef } from '../../src/runtime/types.js';
import { assertMembership, assertPermission, assertScope, canReach, resolveWorkspace } from '../../src/api/authorize.js';
import { loadCaller } from '../../src/auth/caller.js';
import { parseScopes } from '../../src/identity/scopes.js';
import { API_ERROR_STATUS } from '../../src/http/rest-error-status.js';
import { openTestDatabase, DEMO, type TestDatabase } from '../helpers/index.js';

const LIST_PAYABLES: OperationRef = {
  operationId: 'payables.list', method: 'GET', path: '/v1/payables', scopes: ['finance.payables'],
  permission: 'payables.view', movesMoney: false, outflow: null, workspaceScoped: true, readOnly: true, destructive: false, idempotent: true, confirmation: null, changes: [], shows: [], sums: [],
};
const SETTLE_PAYABLE: OperationRef = {
  operationId: 'payables.settle', method: 'POST', path: '/v1/payables/{id}/settle',
  scopes: ['finance.payables.write', 'finance.money.write'], permission: 'payables.settle', movesMoney: true, outflow: 'payable-settlement', workspaceScoped: true,
  readOnly: false, destructive: true, idempotent: false, confirmation: { describer: 'title' }, changes: [], shows: [], sums: [],
};
/** What bruno may not do (he settles payables, for the demo's approval requests, but not receivables). */
const SETTLE_RECEIVABLE: OperationRef = {
  operationId: 'receivables.settle', method: 'POST', path: '/v1/receivables/{id}/settle',
  scopes: ['finance.receivables.write', 'finance.money.write'], permission: 'receivables.settle', movesMoney: true, outflow: null, workspaceScoped: true,
  readOnly: false, destructive: true, idempotent: false, confirmation: { describer: 'title' }, changes: [], shows: [], sums: [],
};
const LIST_ACCOUNTS: OperationRef = {
  operationId: 'accounts.list', method: 'GET', path: '/v1/accounts', scopes: ['finance.accounts'],
  permission: 'accounts.view', movesMoney: false, outflow: null, workspaceScoped: true, readOnly: true, destructive: false, idempotent: true, confirmation: null, changes: [], shows: [], sums: [],
};

function expectApiError(fn: () => unknown, code: string, details?: Record<string, unknown>): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).to.be.instanceOf(ApiError);
  const error = caught as ApiError;
  expect(error.code).to.equal(code);
  if (details) expect(error.details).to.deep.equal(details);
}

async function expectApiRejection(promise: Promise<unknown>, code: string, details?: Record<string, unknown>): Promise<ApiError> {
  const caught = await promise.then(() => undefined, (err: unknown) => err);
  expect(caught).to.be.instanceOf(ApiError);
  const error = caught as ApiError;
  expect(error.code).to.equal(code);
  if (details) expect(error.details).to.deep.equal(details);
  return error;
}

describe('authorize', () => {
  let store: TestDatabase;
  const callerOf = (personId: string, scope: string, organizationId: string = DEMO.organizationId): Promise<Caller> =>
    loadCaller(store.db, {
      personId, organizationId, scopes: parseScopes(scope), tokenType: 'personal', tokenId: randomUUID(), expiresAt: Date.now() / 1000 + 60,
    }, 'api');

  before(async () => {
    store = await openTestDatabase();
  });
  after(async () => {
    await store?.close();
  });

  describe('assertMembership(caller)', () => {
    it('passes an active member', async () => {
      assertMembership(await callerOf(DEMO.persons.bruno, 'finance.all'));
    });

    it('throws membership_inactive for an inactive member', async () => {
      const carla = await callerOf(DEMO.persons.carla, 'finance.all');
      expect(carla.membership?.status).to.equal('inactive');
      expectApiError(() => assertMembership(carla), 'membership_inactive');
    });

    it('throws membership_inactive for a person without a membership in the organization', async () => {
      const stranger = await callerOf(DEMO.persons.ana, 'finance.all', randomUUID());
      expect(stranger.membership).to.equal(null);
      expectApiError(() => assertMembership(stranger), 'membership_inactive');
    });
  });

  describe('assertScope(caller, op)', () => {
    it('throws insufficient_scope naming required and granted when the resource is missing', async () => {
      const caller = await callerOf(DEMO.persons.ana, 'finance.receivables finance.accounts');
      expectApiError(() => assertScope(caller, LIST_PAYABLES), 'insufficient_scope', {
        required: ['finance.payables'], granted: ['finance.accounts', 'finance.receivables'],
      });
    });

    it('throws insufficient_scope for a money-moving op without finance.money.write', async () => {
      const caller = await callerOf(DEMO.persons.ana, 'finance.payables.write');
      expectApiError(() => assertScope(caller, SETTLE_PAYABLE), 'insufficient_scope', {
        required: ['finance.payables.write', 'finance.money.write'], granted: ['finance.payables.write'],
      });
    });

    it('throws insufficient_scope for a write with read-only finance.all', async () => {
      const caller = await callerOf(DEMO.persons.ana, 'finance.all');
      expectApiError(() => assertScope(caller, SETTLE_PAYABLE), 'insufficient_scope');
    });

    it('passes with finance.all.write', async () => {
      assertScope(await callerOf(DEMO.persons.ana, 'finance.all.write'), SETTLE_PAYABLE);
    });
  });

  describe('assertPermission(caller, op)', () => {
    it('throws insufficient_permission naming the permission the member lacks', async () => {
      const bruno = await callerOf(DEMO.persons.bruno, 'finance.all.write');
      expectApiError(() => assertPermission(bruno, SETTLE_RECEIVABLE), 'insufficient_permission', { permission: 'receivables.settle' });
      expectApiError(() => assertPermission(bruno, LIST_ACCOUNTS), 'insufficient_permission', { permission: 'accounts.view' });
    });

    it('passes a granted permission and every permission of an admin', async () => {
      assertPermission(await callerOf(DEMO.persons.bruno, 'finance.all'), LIST_PAYABLES);
      const ana = await callerOf(DEMO.persons.ana, 'finance.all');
      assertPermission(ana, SETTLE_PAYABLE);
      assertPermission(ana, LIST_ACCOUNTS);
    });
  });

  describe('canReach(caller, op)', () => {
    it('combines membership, scope and permission', async () => {
      expect(canReach(await callerOf(DEMO.persons.ana, 'finance.all.write'), SETTLE_PAYABLE)).to.equal(true);
      expect(canReach(await callerOf(DEMO.persons.ana, 'finance.all'), SETTLE_PAYABLE)).to.equal(false);
      expect(canReach(await callerOf(DEMO.persons.bruno, 'finance.all.write'), LIST_PAYABLES)).to.equal(true);
      expect(canReach(await callerOf(DEMO.persons.bruno, 'finance.all.write'), SETTLE_RECEIVABLE)).to.equal(false);
      expect(canReach(await callerOf(DEMO.persons.bruno, 'finance.all'), SETTLE_PAYABLE), 'a permission without the scope').to.equal(false);
      expect(canReach(await callerOf(DEMO.persons.carla, 'finance.all.write'), LIST_PAYABLES)).to.equal(false);
    });
  });

  describe('resolveWorkspace(db, caller, hint)', () => {
    it('prefers the argument over the connection default', async () => {
      const ana = await callerOf(DEMO.persons.ana, 'finance.all');
      const id = await resolveWorkspace(store.db, ana, { argument: DEMO.workspaces.filial, connectionDefault: DEMO.workspaces.matriz });
      expect(id).to.equal(DEMO.workspaces.filial);
    });

    it('uses the connection default when there is no argument', async () => {
      const ana = await callerOf(DEMO.persons.ana, 'finance.all');
      expect(await resolveWorkspace(store.db, ana, { connectionDefault: DEMO.workspaces.matriz })).to.equal(DEMO.workspaces.matriz);
    });

    it('falls back to the only workspace the person reaches', async () => {
      const bruno = await callerOf(DEMO.persons.bruno, 'finance.all');
      expect(await resolveWorkspace(store.db, bruno, {})).to.equal(DEMO.workspaces.matriz);
    });

    it('throws workspace_required with the choices when several are reachable', async () => {
      const ana = await callerOf(DEMO.persons.ana, 'finance.all');
      await expectApiRejection(resolveWorkspace(store.db, ana, {}), 'workspace_required', {
        workspaces: [{ id: DEMO.workspaces.filial, name: 'Filial' }, { id: DEMO.workspaces.matriz, name: 'Matriz' }],
      });
    });

    it('throws workspace_access_denied for a workspace not granted to the person', async () => {
      const bruno = await callerOf(DEMO.persons.bruno, 'finance.all');
      await expectApiRejection(resolveWorkspace(store.db, bruno, { argument: DEMO.workspaces.filial }), 'workspace_access_denied', {
        workspace_id: DEMO.workspaces.filial,
      });
      await expectApiRejection(resolveWorkspace(store.db, bruno, { connectionDefault: DEMO.workspaces.filial }), 'workspace_access_denied');
    });

    it('throws workspace_access_denied for a nonexistent workspace', async () => {
      const ana = await callerOf(DEMO.persons.ana, 'finance.all');
      const missing = randomUUID();
      await expectApiRejection(resolveWorkspace(store.db, ana, { argument: missing }), 'workspace_access_denied', { workspace_id: missing });
    });

    it("throws workspace_access_denied for another organization's workspace", async () => {
      const now = new Date().toISOString();
      const orgId = randomUUID();
      const workspaceId = randomUUID();
      await store.db.insertInto('organizations').values({ id: orgId, name: 'Other', created_at: now, deleted_at: null }).execute();
      await store.db.insertInto('workspaces').values({ id: workspaceId, organization_id: orgId, name: 'Other WS', created_at: now }).execute();
      const ana = await callerOf(DEMO.persons.ana, 'finance.all');
      expect(ana.membership?.workspaceIds).to.not.include(workspaceId);
      await expectApiRejection(resolveWorkspace(store.db, ana, { argument: workspaceId }), 'workspace_access_denied', { workspace_id: workspaceId });
    });

    it('throws membership_inactive before resolving for an inactive member', async () => {
      const carla = await callerOf(DEMO.persons.carla, 'finance.all');
      await expectApiRejection(resolveWorkspace(store.db, carla, { argument: DEMO.workspaces.matriz }), 'membership_inactive');
    });

    it('maps the codes to the catalogue status codes REST answers', async () => {
      const bruno = await callerOf(DEMO.persons.bruno, 'finance.all');
      const denied = await expectApiRejection(resolveWorkspace(store.db, bruno, { argument: DEMO.workspaces.filial }), 'workspace_access_denied');
      expect(API_ERROR_STATUS[denied.code]).to.equal(403);
      const ana = await callerOf(DEMO.persons.ana, 'finance.all');
      const required = await expectApiRejection(resolveWorkspace(store.db, ana, {}), 'workspace_required');
      expect(API_ERROR_STATUS[required.code]).to.equal(400);
      expect(required.toEnvelope().error.details).to.have.property('workspaces');
    });
  });
});
