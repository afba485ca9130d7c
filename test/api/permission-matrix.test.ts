/**
 * The permission matrix of issue 25 (docs/security.md#resources-touched), DERIVED from the
 * generated registry: for every operation × every resource of its `changes` and `shows`, a
 * person missing that one permission, and a token missing that one scope, is
 * - refused (`insufficient_permission` / `insufficient_scope`, `details.resource` naming it, and
 *   `canReach` false, so tools/list hides the tool) when the resource is one it changes or the
 *   operation's own — and nothing in the workspace changes;
 * - answered without those records when it only shows them: `meta.omitted` names the kind, no
 *   id of a record of that kind is in the answer, and a read changes nothing.
 * The caller holds exactly what the operation declares, minus the one thing. Calls go straight to
 * an OperationService (no budget, `api` channel), so the matrix stays fast; the REST and MCP
 * surfaces render what `execute` answers (test/api/operations/reconciliation-permissions.test.ts
 * goes through REST with real memberships). SQLite and, with DATABASE_URL, PostgreSQL.
 */
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { routes } from '../../generated/registry.gen.js';
import { handlers } from '../../generated/handlers.gen.js';
import { createOperationService } from '../../src/api/execute.js';
import { ApiError } from '../../src/api/errors.js';
import type { Caller, OperationInput } from '../../src/api/context.js';
import type { OperationService } from '../../src/api/service.js';
import { ALL_SCOPES, grantsScope } from '../../src/identity/scopes.js';
import { NO_PERMISSION } from '../../src/identity/permissions.js';
import type { OperationRef, ResourceAccess, RouteDefinition } from '../../src/runtime/types.js';
import type { Database } from '../../src/store/schema.js';
import { FINANCE_TABLES } from '../../src/store/workspace-guard.js';
import { DEMO } from '../helpers/index.js';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { createTaker, deriveRequest, takeRandom, type CoverageRequest, type Take } from './support/coverage-requests.js';
import { checkLedger } from './support/ledger.js';

const M = DEMO.workspaces.matriz;

/** Where the records of a kind that an operation may leave out live (the data model's vocabulary, not a list of operations). */
const RECORDS_OF: Readonly<Record<string, (db: Kysely<Database>) => Promise<string[]>>> = {
  payables: async (db) => (await db.selectFrom('titles').select('id').where('workspace_id', '=', M).where('kind', '=', 'payable').execute()).map((r) => r.id),
  receivables: async (db) => (await db.selectFrom('titles').select('id').where('workspace_id', '=', M).where('kind', '=', 'receivable').execute()).map((r) => r.id),
  transactions: async (db) => (await db.selectFrom('transactions').select('id').where('workspace_id', '=', M).execute()).map((r) => r.id),
  reconciliations: async (db) => (await db.selectFrom('statement_lines').select('id').where('workspace_id', '=', M).execute()).map((r) => r.id),
};

/** Every row of the workspace, as text: what "nothing changed" is compared on. */
async function snapshot(db: Kysely<Database>): Promise<string> {
  const tables = [...FINANCE_TABLES].filter((table) => table !== 'blobs').sort();
  const rows = await Promise.all(tables.map((table) =>
    // every finance table has workspace_id
    db.selectFrom(table as any).selectAll().where('workspace_id' as any, '=', M).execute()));
  return JSON.stringify(rows.map((list) => list.map((row) => JSON.stringify(row)).sort()));
}

/**
 * A token that declares no scope (`security: [{oauth2: []}]`, openapi/README.md) still needs some
 * `finance.*` scope: this one stands for "any".
 */
const ANY_SCOPE_STAND_IN = 'finance.payables';

/** What the operation declares it needs: its own permission and scopes and those of every resource it touches (`none` is no permission to hold). */
function declaredNeeds(op: OperationRef): { permissions: Set<string>; scopes: Set<string> } {
  const touched = [...op.changes, ...op.shows];
  const scopes = new Set([...op.scopes, ...touched.flatMap((a) => a.scopes)]);
  return {
    permissions: new Set([op.permission, ...touched.map((a) => a.permission)].filter((p) => p !== NO_PERMISSION)),
    scopes: scopes.size > 0 ? scopes : new Set([ANY_SCOPE_STAND_IN]),
  };
}

/** Whether the caller lacks a scope of `a`; no declared scope: whether it lacks every `finance.*` scope. */
const lacksScope = (caller: Caller, a: { scopes: readonly string[] }): boolean => (a.scopes.length === 0
  ? ![...caller.scopes].some((s) => ALL_SCOPES.includes(s))
  : a.scopes.some((s) => !grantsScope(caller.scopes, s)));

const lacksPermission = (caller: Caller, a: { permission: string }): boolean =>
  a.permission !== NO_PERMISSION && caller.membership?.permissions.has(a.permission) !== true;

function callerWith(permissions: ReadonlySet<string>, scopes: ReadonlySet<string>): Caller {
  return {
    personId: DEMO.persons.bruno, organizationId: DEMO.organizationId, scopes, tokenType: 'personal', channel: 'api',
    membership: { status: 'active', isAdmin: false, permissions, workspaceIds: [M], workspaceNames: DEMO.workspaceNames },
  };
}

type Expected =
  | { readonly refused: 'insufficient_permission' | 'insufficient_scope'; readonly resource: string | null }
  | { readonly omitted: readonly string[] };

const reaches = (caller: Caller, access: { permission: string; scopes: readonly string[] }) =>
  !lacksPermission(caller, access) && !lacksScope(caller, access);

/**
 * What the declaration promises for this caller: the first refusal in check order (scope, then
 * permission), else the kinds left out. An operation that changes something requires what it shows as well as what it changes
 * (its request names those records: docs/security.md#resources-touched); an operation that changes
 * nothing leaves them out.
 */
function expectFor(op: OperationRef, caller: Caller): Expected {
  const scopeGap = (a: { scopes: readonly string[] }) => lacksScope(caller, a);
  const permissionGap = (a: { permission: string }) => lacksPermission(caller, a);
  const required = op.changes.length === 0 ? op.changes : [...op.changes, ...op.shows];
  if (scopeGap(op)) return { refused: 'insufficient_scope', resource: null };
  const scopeChange = required.find(scopeGap);
  if (scopeChange) return { refused: 'insufficient_scope', resource: scopeChange.kind };
  if (permissionGap(op)) return { refused: 'insufficient_permission', resource: null };
  const permissionChange = required.find(permissionGap);
  if (permissionChange) return { refused: 'insufficient_permission', resource: permissionChange.kind };
  return { omitted: [...new Set(op.shows.filter((a) => !reaches(caller, a)).map((a) => a.kind))].sort() };
}

/** One case: the operation's declared needs minus one permission, or minus one scope (and every scope that implies it). */
interface MatrixCase {
  readonly label: string;
  readonly caller: Caller;
  readonly expected: Expected;
}

function casesOf(op: OperationRef): MatrixCase[] {
  const needs = declaredNeeds(op);
  const entries: [string, ResourceAccess][] = [...op.changes.map((a) => ['changes', a] as [string, ResourceAccess]), ...op.shows.map((a) => ['shows', a] as [string, ResourceAccess])];
  const cases: MatrixCase[] = [];
  for (const [role, access] of entries) {
    if (access.permission !== NO_PERMISSION) {
      const permissions = new Set([...needs.permissions].filter((p) => p !== access.permission));
      const withoutPermission = callerWith(permissions, needs.scopes);
      cases.push({ label: `${role} ${access.kind}: without ${access.permission}`, caller: withoutPermission, expected: expectFor(op, withoutPermission) });
    }
    if (access.scopes.length === 0) {
      const withoutAnyScope = callerWith(needs.permissions, new Set());
      cases.push({ label: `${role} ${access.kind}: without any finance.* scope`, caller: withoutAnyScope, expected: expectFor(op, withoutAnyScope) });
    }
    for (const scope of access.scopes) {
      const scopes = new Set([...needs.scopes].filter((s) => s !== scope && s !== `${scope}.write`));
      const withoutScope = callerWith(needs.permissions, scopes);
      cases.push({ label: `${role} ${access.kind}: without ${scope}`, caller: withoutScope, expected: expectFor(op, withoutScope) });
    }
  }
  return cases;
}

function toInput(route: RouteDefinition, request: CoverageRequest): OperationInput {
  return { path: request.params, query: {}, ...(route.list ? { list: { limit: 100, filters: {} } } : {}), ...(request.body ? { body: request.body } : {}) };
}

describe(`permission matrix: every operation × every resource it changes or shows (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(300_000);
  let api: RestApp;
  let service: OperationService;
  let take: Take;
  before(async () => {
    api = await startRestApp();
    service = createOperationService({ db: api.app.services.db, routes, handlers });
    take = await createTaker(api, M);
  });
  after(async () => { await api?.close(); });

  it('every operation declares what it touches, each resource resolved to a permission and scopes', () => {
    for (const { operation } of routes) {
      for (const access of [...operation.changes, ...operation.shows]) {
        // `none` with no scope: any active member with any finance.* scope (openapi/README.md; workspaces.list).
        if (access.permission === NO_PERMISSION) expect(access.scopes, operation.operationId).to.deep.equal([]);
        else expect(access.permission, operation.operationId).to.match(/^[a-z_]+\.[a-z_]+$/);
        if (access.permission !== NO_PERMISSION) expect(access.scopes.length, operation.operationId).to.be.greaterThan(0);
      }
    }
    // The matrix exercises both answers: some cases are refused, some answered with records left out.
    const all = routes.flatMap((r) => casesOf(r.operation));
    expect(all.filter((c) => 'refused' in c.expected && c.expected.resource !== null)).to.not.have.length(0);
    expect(all.filter((c) => 'omitted' in c.expected && c.expected.omitted.length > 0)).to.not.have.length(0);
  });

  for (const route of routes) {
    const op = route.operation;
    const cases = casesOf(op);
    if (cases.length === 0) continue;
    it(`${op.operationId}: ${cases.length} cases`, async () => {
      const db = api.app.services.db;
      const refusals = cases.filter((c) => 'refused' in c.expected);
      const before = await snapshot(db);
      for (const { label, caller, expected } of refusals) {
        if (!('refused' in expected)) continue;
        expect(service.canReach(caller, op), `${label}: canReach (tools/list)`).to.equal(false);
        const input = toInput(route, await deriveRequest(route, takeRandom));
        const error = await service.execute({ operationId: op.operationId, caller, workspace: { argument: M }, input }).then(() => null, (err: unknown) => err);
        expect(error, `${label}: refused`).to.be.instanceOf(ApiError);
        const { code, details } = error as ApiError;
        expect(code, label).to.equal(expected.refused);
        const named = (details as Record<string, unknown> | undefined)?.['resource'] ?? null;
        expect(named, `${label}: details.resource`).to.equal(expected.resource);
      }
      expect(await snapshot(db), `${op.operationId}: a refused call changed the workspace`).to.equal(before);

      for (const { label, caller, expected } of cases) {
        if (!('omitted' in expected)) continue;
        expect(service.canReach(caller, op), `${label}: canReach`).to.equal(true);
        const input = toInput(route, await deriveRequest(route, take));
        const quiet = op.readOnly ? await snapshot(db) : null;
        const result = await service.execute({ operationId: op.operationId, caller, workspace: { argument: M }, input });
        expect(result.kind, label).to.equal('done');
        const body = (result.kind === 'done' ? result.output.body : undefined) as { meta?: { omitted?: string[] } } | undefined;
        expect(body?.meta?.omitted, `${label}: meta.omitted`).to.deep.equal(expected.omitted);
        const text = JSON.stringify(body);
        for (const kind of expected.omitted) {
          const records = RECORDS_OF[kind];
          if (!records) throw new Error(`permission matrix: teach RECORDS_OF where the records of ${kind} live`);
          const ids = await records(db);
          expect(ids, `${label}: the ${kind} records it must leave out`).to.not.be.empty;
          for (const id of ids) expect(text, `${label}: a ${kind} record is in the answer`).to.not.include(id);
        }
        if (quiet !== null) expect(await snapshot(db), `${label}: a read changed the workspace`).to.equal(quiet);
      }
      // With everything it declares, nothing is left out: the omissions above come from the one thing missing.
      if (cases.some((c) => 'omitted' in c.expected)) {
        const needs = declaredNeeds(op);
        const input = toInput(route, await deriveRequest(route, take));
        const result = await service.execute({ operationId: op.operationId, caller: callerWith(needs.permissions, needs.scopes), workspace: { argument: M }, input });
        const body = (result.kind === 'done' ? result.output.body : undefined) as { meta?: { omitted?: string[] } } | undefined;
        expect(body?.meta?.omitted, `${op.operationId}: with every declared permission and scope`).to.equal(undefined);
      }
      expect((await checkLedger(db, M)).violations).to.deep.equal([]);
    });
  }
});
