/**
 * Regression: `in` filters bypassed the 1–100 cap when the filter was a custom one (attachments
 * `parent_id`): 40,000 ids reached SQLite as 40,000 variables → "too many SQL variables" → a
 * 500 / -32603. The cap now runs for every filter before any filter is applied, and the MCP
 * filters schema says `maxItems: 100`.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Caller, ListQuery } from '../../src/api/context.js';
import { ApiError } from '../../src/api/errors.js';
import { listRecords, type AnySelect, type CustomFilter, type ListDefinition } from '../../src/api/list.js';
import type { ListAwareContext } from '../../src/api/list.js';
import { handlers } from '../../generated/handlers.gen.js';
import { routes, tools } from '../../generated/registry.gen.js';
import { MAX_IN_FILTER_VALUES, planFilterSchema } from '../../src/runtime/tool-schema.js';
import type { ListSpec } from '../../src/runtime/types.js';
import { DEMO, openTestDatabase, startTestApp, type TestApp, type TestDatabase } from '../helpers/index.js';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { modernRequest, postMcp } from '../mcp/support/wire.js';
import { createDeadline } from '../../src/runtime/deadline.js';
import { systemClock } from '../../src/runtime/clock.js';

const M = DEMO.workspaces.matriz;
const caller: Caller = {
  personId: DEMO.persons.ana, organizationId: DEMO.organizationId, scopes: new Set(['finance.all']), tokenType: 'personal', channel: 'api',
  membership: { status: 'active', isAdmin: true, permissions: new Set(), workspaceIds: [M], workspaceNames: DEMO.workspaceNames },
};
const uuids = (n: number): string[] => Array.from({ length: n }, () => randomUUID());

async function codeOf(work: () => Promise<unknown>): Promise<{ code: string; error?: ApiError }> {
  try {
    await work();
    return { code: 'ok' };
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, error: err };
    return { code: `other: ${(err as Error).message.slice(0, 200)}` };
  }
}

describe('regression: `in` filters are capped at 100 values before any filter runs', function () {
  this.timeout(120_000);
  let store: TestDatabase;
  before(async () => { store = await openTestDatabase(); });
  after(async () => { await store?.close(); });

  const attachmentsList = handlers['attachments.list']!;
  const listRoute = routes.find((r) => r.operation.operationId === 'attachments.list')!;
  const ctx = (): ListAwareContext => ({ caller, workspaceId: M, db: store.db, now: () => new Date(), deadline: createDeadline(systemClock, 10_000), bounds: null, listSpec: listRoute.list });
  const listInput = (filters: ListQuery['filters']) => ({ path: {}, query: {}, list: { limit: 25, filters } });

  it('attachments.list with 40,000 parent_id values is a VALIDATION_ERROR, not a SqliteError "too many SQL variables"', async () => {
    const { code, error } = await codeOf(() => attachmentsList(ctx(), listInput({ parent_id: { in: uuids(40_000) } })));
    expect(code).to.equal('VALIDATION_ERROR');
    expect(error!.details).to.deep.equal({ issues: [{ path: 'filters.parent_id.in', message: 'must list from 1 to 100 values' }] });
  });

  it('attachments.list with 101 parent_id values (custom filter) is refused like 101 content_type values (column filter)', async () => {
    const custom = await codeOf(() => attachmentsList(ctx(), listInput({ parent_id: { in: uuids(101) } })));
    const column = await codeOf(() => attachmentsList(ctx(), listInput({ content_type: { in: Array.from({ length: 101 }, (_, i) => `x/${i}`) } })));
    expect(custom.code).to.equal('VALIDATION_ERROR');
    expect(column.code).to.equal('VALIDATION_ERROR');
    expect(custom.error!.details).to.deep.equal({ issues: [{ path: 'filters.parent_id.in', message: 'must list from 1 to 100 values' }] });
    expect(column.error!.details).to.deep.equal({ issues: [{ path: 'filters.content_type.in', message: 'must list from 1 to 100 values' }] });
  });

  it('attachments.list with an empty parent_id list is refused, and exactly 100 values still run', async () => {
    expect((await codeOf(() => attachmentsList(ctx(), listInput({ parent_id: { in: [] } })))).code).to.equal('VALIDATION_ERROR');
    expect((await codeOf(() => attachmentsList(ctx(), listInput({ parent_id: { in: uuids(100) } })))).code).to.equal('ok');
  });

  it('a custom filter is never called when any `in` filter of the query is over the cap (checked before any filter runs)', async () => {
    let calls = 0;
    let tagged: CustomFilter = (qb) => { calls += 1; return qb; };
    const spec: ListSpec = {
      pageSize: { default: 25, minimum: 1, maximum: 100 }, sortFields: ['due_date'], defaultSort: 'due_date', fields: [],
      filters: {
        tagged: { operators: ['eq', 'in'], schema: { type: 'string' } },
        status: { operators: ['in'], schema: { type: 'string' } },
      },
    };
    const def: ListDefinition<'titles'> = {
      table: 'titles', resourceLabel: 'Payable',
      columns: { due_date: { column: 'due_date', kind: 'date' }, status: { column: 'status', kind: 'string' } },
      customFilters: { tagged: (qb, operator, value) => tagged(qb, operator, value) },
      toJson: (rows) => rows.map((r) => ({ id: r.id })),
    };
    const c = ctx();
    // The custom filter comes first in the query; the oversized list comes after it.
    const over = await codeOf(() => listRecords(c, { limit: 5, filters: { tagged: { eq: 'x' }, status: { in: uuids(MAX_IN_FILTER_VALUES + 1) } } }, spec, def));
    expect(over.code).to.equal('VALIDATION_ERROR');
    expect(calls).to.equal(0);
    const customOver = await codeOf(() => listRecords(c, { limit: 5, filters: { tagged: { in: uuids(MAX_IN_FILTER_VALUES + 1) } } }, spec, def));
    expect(customOver.code).to.equal('VALIDATION_ERROR');
    expect(calls).to.equal(0);
    // A comma-separated text value is counted the same way and reaches the custom filter as a list.
    let received: unknown;
    tagged = (qb: AnySelect, _operator, value) => { received = value; return qb; };
    expect((await codeOf(() => listRecords(c, { limit: 5, filters: { tagged: { in: Array(101).fill('a').join(',') } } }, spec, def))).code).to.equal('VALIDATION_ERROR');
    expect((await codeOf(() => listRecords(c, { limit: 5, filters: { tagged: { in: 'a,b' } } }, spec, def))).code).to.equal('ok');
    expect(received).to.deep.equal(['a', 'b']);
  });

  it('the tool view emits maxItems 100 (the runtime cap) for `in` lists in the MCP filters schema', () => {
    // An eq/in filter is shown as the list of values (src/runtime/tool-schema.ts); the argument schema keeps the cap.
    const planned = planFilterSchema({ name: 'parent_id', description: null, schema: { type: 'string', format: 'uuid' }, operators: ['eq', 'in'] });
    expect(planned).to.deep.equal({ type: 'array', items: { type: 'string', format: 'uuid' }, minItems: 1, maxItems: 100 });
    let seen = 0;
    for (const tool of tools) {
      const filters = (tool.argumentSchema['properties'] as Record<string, { properties?: Record<string, Record<string, unknown>> }> | undefined)?.['filters'];
      for (const filter of Object.values(filters?.properties ?? {})) {
        const inList = filter['type'] === 'array' ? filter : (filter['properties'] as Record<string, Record<string, unknown>> | undefined)?.['in'];
        if (!inList) continue;
        seen += 1;
        expect(inList['maxItems']).to.equal(MAX_IN_FILTER_VALUES);
      }
    }
    expect(seen).to.be.greaterThan(10);
  });

  describe('over the transports', () => {
    let api: RestApp;
    let app: TestApp;
    let mcpToken: string;
    before(async () => {
      api = await startRestApp();
      app = await startTestApp();
      mcpToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all', type: 'personal', aud: 'mcp' });
    });
    after(async () => {
      await api?.close();
      await app?.close();
    });

    it('REST GET /v1/attachments?parent_id[in]=<101 ids> is 400 VALIDATION_ERROR, not 500', async () => {
      const res = await api.call('GET', `/v1/attachments?parent_id[in]=${uuids(101).join(',')}`, { workspace: M });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      expect(res.body.error.details.issues).to.deep.equal([{ path: 'filters.parent_id.in', message: 'must list from 1 to 100 values' }]);
    });

    it('MCP finance_attachments_list with 40,000 parent_id values is a VALIDATION_ERROR tool result, not -32603', async () => {
      const { body, headers } = modernRequest(1, 'tools/call', {
        name: 'finance_attachments_list', arguments: { workspace_id: M, filters: { parent_id: { in: uuids(40_000) } } },
      });
      const reply = await postMcp(`${app.url}/mcp`, body, { ...headers, authorization: `Bearer ${mcpToken}` });
      const json = reply.json as { error?: unknown; result?: { isError?: boolean; content?: { text: string }[] } };
      expect(json.error, reply.text.slice(0, 500)).to.equal(undefined);
      expect(json.result?.isError).to.equal(true);
      const payload = JSON.parse(json.result!.content![0]!.text) as { error: { code: string; details: { issues: { path: string }[] } } };
      expect(payload.error.code).to.equal('VALIDATION_ERROR');
      // `{in: [...]}` is read as the list form the schema shows (src/runtime/tool-schema.ts), so the issue names the filter.
      expect(payload.error.details.issues.map((i) => i.path)).to.include('filters.parent_id');
    });
  });
});
