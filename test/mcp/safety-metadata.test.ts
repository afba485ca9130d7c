/**
 * Uniform safety metadata, checked from the registry (issue 27, Build 7; docs/protocol.md#tools):
 * - every destructive or money-moving tool that is not idempotent takes `idempotency_key` (its
 *   route the Idempotency-Key header), and the key replays a cancel instead of refusing the second;
 * - every tool whose operation declares `changes: []` is read-only (`readOnlyHint: true`, not
 *   destructive), needs only read scopes and a `.view` permission (or none), is listed in a
 *   `read_only` view to a read-only token, and — called over MCP with valid arguments under that
 *   token — leaves every table of the database as it was: its row count and a digest of its
 *   `updated_at` values, before the call and after.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { sql, type Kysely } from 'kysely';
import { routes, tools } from '../../generated/registry.gen.js';
import type { RouteDefinition, ToolDefinition } from '../../src/runtime/types.js';
import type { Database } from '../../src/store/schema.js';
import { DEMO } from '../../src/seed/ids.js';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { createTaker, deriveRequest, type Take } from '../api/support/coverage-requests.js';
import { callTool } from '../confirmation/support.js';
import { modernRequest, postMcp } from './support/wire.js';

const MATRIZ = DEMO.workspaces.matriz;

/** Declares `changes: []`: the generator derives the read-only classification from it (codegen/classify.ts). */
const changesNothing = tools.filter((tool) => tool.operation.changes.length === 0);
const nonIdempotentRisky = tools.filter((tool) => (tool.operation.destructive || tool.operation.movesMoney) && !tool.operation.idempotent);

const routeOf = (tool: ToolDefinition): RouteDefinition => {
  const route = routes.find((r) => r.operation.operationId === tool.operation.operationId);
  if (!route) throw new Error(`no route for ${tool.operation.operationId}`);
  return route;
};

const inputProperties = (tool: ToolDefinition): Record<string, unknown> => (tool.inputSchema['properties'] ?? {}) as Record<string, unknown>;

/** table → `<rows> <sha256 of the sorted updated_at values>` (or only the count for a table without updated_at), over every table of the database. */
async function digestDatabase(db: Kysely<Database>): Promise<Record<string, string>> {
  const tables = (await db.introspection.getTables()).filter((table) => !table.isView);
  const digest: Record<string, string> = {};
  for (const table of tables) {
    const hasUpdatedAt = table.columns.some((column) => column.name === 'updated_at');
    const counted = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table.name)}`.execute(db);
    let stamp = '';
    if (hasUpdatedAt) {
      const stamps = await sql<{ updated_at: unknown }>`select updated_at from ${sql.table(table.name)}`.execute(db);
      stamp = ' ' + createHash('sha256').update(stamps.rows.map((row) => String(row.updated_at instanceof Date ? row.updated_at.toISOString() : row.updated_at)).sort().join('\n')).digest('hex');
    }
    digest[table.name] = `${Number(counted.rows[0]?.n ?? 0)}${stamp}`;
  }
  return digest;
}

describe('safety metadata over the registry', function () {
  this.timeout(180_000);

  it('finds the tools the rules are about (non-idempotent destructive or money-moving tools; tools that change nothing, a POST among them)', () => {
    expect(nonIdempotentRisky.length).to.be.greaterThan(3);
    expect(changesNothing.length).to.be.greaterThan(20);
    expect(changesNothing.some((tool) => tool.operation.method === 'POST')).to.equal(true);
  });

  it('every destructive or money-moving tool that is not idempotent takes idempotency_key (its route the Idempotency-Key header)', () => {
    expect(nonIdempotentRisky).to.not.be.empty;
    for (const tool of nonIdempotentRisky) {
      expect(inputProperties(tool), tool.name).to.have.property('idempotency_key');
      expect(routeOf(tool).parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'), tool.name).to.equal(true);
    }
  });

  it('every tool that changes nothing is read-only, not destructive, and needs only read scopes and a .view permission (or none)', () => {
    expect(changesNothing).to.not.be.empty;
    for (const tool of changesNothing) {
      expect(tool.annotations, tool.name).to.include({ readOnlyHint: true, destructiveHint: false });
      expect(tool.operation.scopes.filter((scope) => scope.endsWith('.write')), tool.name).to.deep.equal([]);
      expect(tool.operation.permission === 'none' || tool.operation.permission.endsWith('.view'), `${tool.name}: ${tool.operation.permission}`).to.equal(true);
    }
    // And the other way round: a tool that writes is never called read-only.
    const writers = tools.filter((tool) => tool.operation.changes.length > 0);
    expect(writers).to.not.be.empty;
    for (const tool of writers) expect(tool.annotations.readOnlyHint, tool.name).to.equal(false);
  });

  describe('run', function () {
    let api: RestApp;
    let take: Take;
    let readToken: string;
    before(async function () {
      api = await startRestApp();
      take = await createTaker(api, MATRIZ);
      readToken = await api.app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all' });
    });
    after(async () => api?.close());

    it('a read-only view lists every tool that changes nothing to a read-only token, and no other', async () => {
      const { body, headers } = modernRequest(1, 'tools/list');
      const response = await postMcp(`${api.app.url}/mcp?read_only=true`, body, { ...headers, authorization: `Bearer ${readToken}` });
      const listed = ((response.json as { result: { tools: { name: string; annotations: { readOnlyHint: boolean } }[] } }).result.tools);
      expect(listed.map((tool) => tool.name).sort()).to.deep.equal(changesNothing.map((tool) => tool.name).sort());
      for (const tool of listed) expect(tool.annotations.readOnlyHint, tool.name).to.equal(true);
    });

    it('the Idempotency-Key replays a cancel: the second call answers the stored result instead of refusing a cancelled record', async () => {
      const payable = await take('payables');
      const headers = { 'idempotency-key': `safety-${payable.id}` };
      const first = await api.call('POST', `/v1/payables/${payable.id}/cancel`, { workspace: MATRIZ, headers });
      expect(first.status, JSON.stringify(first.body)).to.equal(200);
      const again = await api.call('POST', `/v1/payables/${payable.id}/cancel`, { workspace: MATRIZ, headers });
      expect(again.status, JSON.stringify(again.body)).to.equal(200);
      expect(again.headers.get('idempotency-replayed')).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      const unkeyed = await api.call('POST', `/v1/payables/${payable.id}/cancel`, { workspace: MATRIZ });
      expect(unkeyed.status).to.equal(422);
    });

    it('the digest sees a write: an update changes the updated_at digest of its table and the row count of activity', async () => {
      const db = api.app.services.db;
      const category = await take('categories');
      const before = await digestDatabase(db);
      const writer = await api.app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
      const updated = await callTool(api.app.url, writer, 'finance_categories_update', { workspace_id: MATRIZ, id: category.id, name: `Renomeada ${category.id.slice(0, 8)}` });
      expect(updated.body.result?.['isError'], JSON.stringify(updated.body)).to.not.equal(true);
      const after = await digestDatabase(db);
      expect(after['categories']).to.not.equal(before['categories']);
      expect(after['categories']!.split(' ')[0]).to.equal(before['categories']!.split(' ')[0]);
      expect(Number(after['activity']!.split(' ')[0])).to.be.greaterThan(Number(before['activity']!.split(' ')[0]));
    });

    for (const tool of changesNothing) {
      it(`${tool.name} changes nothing in the database when run over MCP with a read-only token`, async () => {
        // The request's records are made first (that writes); then only the call runs between the digests.
        const request = await deriveRequest(routeOf(tool), take);
        const args = { ...(tool.operation.workspaceScoped ? { workspace_id: MATRIZ } : {}), ...request.params, ...(request.body ?? {}) };
        const before = await digestDatabase(api.app.services.db);
        const answer = await callTool(api.app.url, readToken, tool.name, args);
        const result = answer.body.result;
        expect(result, JSON.stringify(answer.body)).to.not.equal(undefined);
        expect(result!['isError'], `${tool.name}: ${JSON.stringify(result)}`).to.not.equal(true);
        expect(await digestDatabase(api.app.services.db), tool.name).to.deep.equal(before);
      });
    }
  });
});
