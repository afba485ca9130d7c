/**
 * Cross-workspace isolation over EVERY operation of the generated route table (issue 4, "Done
 * when"): as ana in Matriz, ids of Filial records are answered exactly like ids that name
 * nothing, lists never reveal a Filial id, and nothing in Filial changes. Request shapes come
 * from support/coverage-requests.ts; a route without a case fails the test.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { parse } from 'yaml';
import { routes } from '../../generated/registry.gen.js';
import type { RouteDefinition } from '../../src/runtime/types.js';
import { DEMO } from '../helpers/index.js';
import { startRestApp, type CallResult, type RestApp } from './support/rest-app.js';
import { REQUESTS, createTaker, replaceAt, takeRandom, type CoverageRequest, type Take } from './support/coverage-requests.js';
import { collectBodyIdPointers, snapshotWorkspace } from './support/coverage-isolation.js';

const M = DEMO.workspaces.matriz;
const F = DEMO.workspaces.filial;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

type Spec = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
const spec = parse(fs.readFileSync('openapi/v1.yaml', 'utf8')) as Spec;
const documentedStatuses = (route: RouteDefinition) =>
  Object.keys(spec.paths[route.operation.path]?.[route.operation.method.toLowerCase()]?.responses ?? {}).map(Number);

function build(route: RouteDefinition, take: Take): Promise<CoverageRequest> {
  const builder = REQUESTS[route.operation.operationId];
  if (!builder) throw new Error(`no coverage request for ${route.operation.operationId}`);
  return builder(take);
}

/**
 * The answer, with each id the call's own body sent read as a placeholder by its place in the body
 * (a batch names the failing title it was given, `details.failed[].id`): two calls of the same
 * shape compare equal when they answer the same about the ids they sent.
 */
const outcome = (res: CallResult, sentBody?: unknown) => {
  let text = JSON.stringify(res.body ?? null);
  for (const [index, id] of (JSON.stringify(sentBody ?? null).match(UUID) ?? []).entries()) text = text.replaceAll(id, `<sent id ${index}>`);
  return { status: res.status, body: JSON.parse(text) as unknown };
};

describe('cross-workspace isolation of every operation (Matriz caller, Filial ids)', function () {
  this.timeout(300_000);
  let api: RestApp;
  let takeMatriz: Take;
  let takeFilial: Take;
  before(async () => {
    api = await startRestApp();
    takeMatriz = await createTaker(api, M);
    takeFilial = await createTaker(api, F);
  });
  after(async () => { await api?.close(); });

  it('every route: Filial ids → the same answer as a random uuid (NOT_FOUND or a documented 422), lists never show Filial ids, Filial unchanged', async () => {
    const callMatriz = (request: CoverageRequest) =>
      api.call(request.method, request.path, { workspace: M, ...(request.body ? { body: request.body } : {}) });
    const failures: string[] = [];
    const check = (ok: boolean, message: string) => { if (!ok) failures.push(message); };

    // Build every Filial-side request first (this writes in Filial), then freeze Filial.
    const filialRequests = new Map<string, CoverageRequest>();
    const filialReferences = new Map<string, string>();
    for (const route of routes) {
      const request = await build(route, takeFilial);
      filialRequests.set(route.operation.operationId, request);
      for (const [pointer, kind] of Object.entries(request.references ?? {})) {
        filialReferences.set(`${route.operation.operationId} ${pointer}`, (await takeFilial(kind)).id);
      }
    }
    const filialBefore = await snapshotWorkspace(api.app.services.db, F);
    const filialIds = new Set(filialBefore.ids);
    const casesRun = new Map<string, string[]>();
    const ran = (route: RouteDefinition, kind: string) => casesRun.set(route.operation.operationId, [...(casesRun.get(route.operation.operationId) ?? []), kind]);

    for (const route of routes) {
      const op = route.operation;
      const filialRequest = filialRequests.get(op.operationId) as CoverageRequest;
      if (!op.workspaceScoped) {
        // Lists the caller's workspaces (Filial included by design); no record id to misuse.
        ran(route, 'not workspace-scoped');
        continue;
      }
      if (route.parameters.some((p) => p.in === 'path')) {
        const foreign = await callMatriz(filialRequest);
        const random = await callMatriz(await build(route, takeRandom));
        check(foreign.status === 404 && foreign.body?.error?.code === 'NOT_FOUND', `${op.operationId}: Filial path id answered ${foreign.status} ${JSON.stringify(foreign.body)}`);
        check(JSON.stringify(outcome(foreign)) === JSON.stringify(outcome(random)), `${op.operationId}: Filial id answer differs from a random uuid's`);
        ran(route, 'path id');
      }
      const schemaPointers = collectBodyIdPointers(route);
      const references = filialRequest.references ?? {};
      check(schemaPointers.every((pointer) => pointer in references), `${op.operationId}: body id fields without a reference case: ${schemaPointers.filter((p) => !(p in references)).join(', ')}`);
      for (const pointer of Object.keys(references)) {
        const matriz = await build(route, takeMatriz);
        const filialId = filialReferences.get(`${op.operationId} ${pointer}`) as string;
        const filialBody = replaceAt(matriz.body ?? {}, pointer, filialId);
        const viaFilial = await callMatriz({ ...matriz, body: filialBody });
        const again = await build(route, takeMatriz);
        const randomBody = replaceAt(again.body ?? {}, pointer, randomUUID());
        const viaRandom = await callMatriz({ ...again, body: randomBody });
        const allowed = [404, 422].filter((status) => documentedStatuses(route).includes(status));
        check(allowed.includes(viaFilial.status), `${op.operationId} ${pointer}: Filial reference answered ${viaFilial.status} ${JSON.stringify(viaFilial.body)} (documented: ${allowed.join('/')})`);
        check(JSON.stringify(outcome(viaFilial, filialBody)) === JSON.stringify(outcome(viaRandom, randomBody)), `${op.operationId} ${pointer}: Filial reference ${JSON.stringify(outcome(viaFilial, filialBody))} ≠ random ${JSON.stringify(outcome(viaRandom, randomBody))}`);
        ran(route, `body ${pointer}`);
      }
      if (route.list) {
        // A list under a record (`/v1/accounts/{id}/statement-lines`) named by a Filial id answered 404
        // above; its rows are looked at under a Matriz record.
        const listPath = route.parameters.some((p) => p.in === 'path') ? (await build(route, takeMatriz)).path : filialRequest.path;
        const seen = await collectListUuids(api, listPath);
        check(seen.status === 200, `${op.operationId}: list answered ${seen.status}`);
        const leaked = seen.uuids.filter((uuid) => filialIds.has(uuid));
        check(leaked.length === 0, `${op.operationId}: Matriz list shows ${leaked.length} Filial ids`);
        for (const filter of Object.keys(route.list.filters).filter((name) => name.endsWith('_id'))) {
          const value = (await pickFilialValue(api, filialRequest.path, filter, filialIds)) ?? [...filialIds][0];
          const filtered = await callMatriz({ method: 'GET', params: {}, path: `${listPath}&${filter}=${value}` });
          check(filtered.status === 200 && filtered.body.data.length === 0, `${op.operationId}: ${filter}=<Filial id> answered ${filtered.status} with ${filtered.body?.data?.length} rows`);
        }
        ran(route, 'list');
      }
      if (!route.list && !route.parameters.some((p) => p.in === 'path') && Object.keys(references).length === 0) {
        // No record id to name (creates without references, Seguridad): the call runs in Matriz, Filial must not move.
        const res = await callMatriz(await build(route, takeMatriz));
        check(res.status === route.successStatus, `${op.operationId}: answered ${res.status}`);
        check(!JSON.stringify(res.body ?? '').match(UUID)?.some((uuid) => filialIds.has(uuid)), `${op.operationId}: answer names a Filial id`);
        ran(route, 'no record id: runs in Matriz only');
      }
    }

    check(routes.every((route) => casesRun.has(route.operation.operationId)), `routes without a case: ${routes.filter((r) => !casesRun.has(r.operation.operationId)).map((r) => r.operation.operationId).join(', ')}`);
    const filialAfter = await snapshotWorkspace(api.app.services.db, F);
    check(JSON.stringify(filialAfter.rows) === JSON.stringify(filialBefore.rows), `Filial changed: ${describeDiff(filialBefore.rows, filialAfter.rows)}`);
    expect(failures).to.deep.equal([]);
  });
});

/** Every uuid anywhere in every page of a Matriz list. */
async function collectListUuids(api: RestApp, path: string): Promise<{ status: number; uuids: string[] }> {
  const uuids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await api.call('GET', `${path}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { workspace: M });
    if (res.status !== 200) return { status: res.status, uuids };
    uuids.push(...(JSON.stringify(res.body.data).match(UUID) ?? []));
    cursor = res.body.meta.next_cursor;
  } while (cursor);
  return { status: 200, uuids };
}

/** A value of `field` that a Filial row of the same list carries (so the filter would match there). */
async function pickFilialValue(api: RestApp, path: string, field: string, filialIds: ReadonlySet<string>): Promise<string | undefined> {
  const res = await api.call('GET', path, { workspace: F });
  // Only workspace records count: activity's person_id names the actor (ana), who works in both workspaces.
  const row = (res.body.data as Record<string, unknown>[]).find((r) => typeof r[field] === 'string' && filialIds.has(r[field] as string));
  return row?.[field] as string | undefined;
}

function describeDiff(before: Record<string, unknown[]>, after: Record<string, unknown[]>): string {
  return Object.keys(after).filter((table) => JSON.stringify(before[table]) !== JSON.stringify(after[table]))
    .map((table) => `${table} ${before[table]?.length ?? 0}→${after[table]?.length ?? 0} rows`).join(', ');
}
