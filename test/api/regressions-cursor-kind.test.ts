/**
 * Regression: the decoded cursor value was not checked against the sort column's kind.
 * `sort=-amount&cursor=<{"s":"-amount","v":"xx","i":"a"}>` gave 200 with a wrong page on
 * SQLite and a 500 `invalid input syntax for type bigint` on PostgreSQL. Now every kind is
 * checked (integer/money → safe integer, date → real YYYY-MM-DD, timestamp → ISO, string →
 * string, uuid → uuid; '' / -1 are the null sentinels) and the id must be a uuid, else
 * VALIDATION_ERROR. Runs on SQLite, and on PostgreSQL with DATABASE_URL set.
 */
import { expect } from 'chai';
import type { Caller, ListQuery, OperationInput } from '../../src/api/context.js';
import { ApiError } from '../../src/api/errors.js';
import { listRecords, type ListAwareContext, type ListDefinition } from '../../src/api/list.js';
import { handlers } from '../../generated/handlers.gen.js';
import { routes } from '../../generated/registry.gen.js';
import type { ListSpec } from '../../src/runtime/types.js';
import { DEMO, openTestDatabase, type TestDatabase } from '../helpers/index.js';
import { startRestApp, type RestApp } from './support/rest-app.js';
import { createDeadline } from '../../src/runtime/deadline.js';
import { systemClock } from '../../src/runtime/clock.js';

const M = DEMO.workspaces.matriz;
const A_UUID = '5eed0001-0000-4000-8000-000000000001';
const caller: Caller = {
  personId: DEMO.persons.ana, organizationId: DEMO.organizationId, scopes: new Set(['finance.all']), tokenType: 'personal', channel: 'api',
  membership: { status: 'active', isAdmin: true, permissions: new Set(), workspaceIds: [M], workspaceNames: DEMO.workspaceNames },
};

const cursorOf = (s: string, v: unknown, i: string = A_UUID): string => Buffer.from(JSON.stringify({ s, v, i }), 'utf8').toString('base64url');

describe(`regression: a cursor value must fit the sort column's kind (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(120_000);
  let store: TestDatabase;
  before(async () => { store = await openTestDatabase(); });
  after(async () => { await store?.close(); });

  function ctxFor(operationId: string): ListAwareContext {
    const route = routes.find((r) => r.operation.operationId === operationId)!;
    return { caller, workspaceId: M, db: store.db, now: () => new Date(), deadline: createDeadline(systemClock, 10_000), bounds: null, listSpec: route.list };
  }

  async function run(operationId: string, list: Partial<ListQuery>): Promise<{ code: string; body?: { data: { id: string }[]; meta: { next_cursor: string | null } } }> {
    const input: OperationInput = { path: {}, query: {}, list: { limit: 5, filters: {}, ...list } };
    try {
      const output = await handlers[operationId]!(ctxFor(operationId), input);
      return { code: 'ok', body: output.body as { data: { id: string }[]; meta: { next_cursor: string | null } } };
    } catch (err) {
      if (err instanceof ApiError) return { code: err.code };
      return { code: `other: ${(err as Error).message}` };
    }
  }

  const refused: { name: string; op: string; sort: string; v: unknown; i?: string }[] = [
    { name: 'sort=-amount with v "xx" (was a wrong page on SQLite, a bigint 500 on PostgreSQL)', op: 'payables.list', sort: '-amount', v: 'xx' },
    { name: 'sort=-amount with the reported id "a"', op: 'payables.list', sort: '-amount', v: 100, i: 'a' },
    { name: 'sort=amount with a numeric string "100"', op: 'payables.list', sort: 'amount', v: '100' },
    { name: 'sort=amount with a fraction 1.5', op: 'payables.list', sort: 'amount', v: 1.5 },
    { name: 'sort=amount with an unsafe integer 2^60', op: 'payables.list', sort: 'amount', v: 2 ** 60 },
    { name: 'sort=due_date with an impossible date 2026-02-30', op: 'payables.list', sort: 'due_date', v: '2026-02-30' },
    { name: 'sort=due_date with a number', op: 'payables.list', sort: 'due_date', v: 20260101 },
    { name: 'sort=due_date with a timestamp', op: 'payables.list', sort: 'due_date', v: '2026-01-01T00:00:00.000Z' },
    { name: 'sort=created_at with text that is no timestamp', op: 'payables.list', sort: 'created_at', v: 'yesterday' },
    { name: 'sort=-created_at with a number', op: 'payables.list', sort: '-created_at', v: 5 },
    { name: 'sort=name with a number', op: 'cost_centers.list', sort: 'name', v: 5 },
    { name: 'sort=level (integer) with text', op: 'categories.list', sort: 'level', v: 'x' },
    { name: 'sort=-size (integer) with text', op: 'attachments.list', sort: '-size', v: '12' },
    { name: 'sort=-occurred_at (date) with text', op: 'transactions.list', sort: '-occurred_at', v: 'xx' },
  ];
  for (const c of refused) {
    it(`refuses ${c.name} with VALIDATION_ERROR`, async () => {
      expect((await run(c.op, { sort: c.sort, cursor: cursorOf(c.sort, c.v, c.i) })).code).to.equal('VALIDATION_ERROR');
    });
  }

  const accepted: { name: string; op: string; sort: string; v: unknown }[] = [
    { name: 'sort=-amount with an integer', op: 'payables.list', sort: '-amount', v: 150_000 },
    { name: 'sort=amount with the null sentinel -1', op: 'payables.list', sort: 'amount', v: -1 },
    { name: 'sort=due_date with a real date', op: 'payables.list', sort: 'due_date', v: '2026-01-31' },
    { name: 'sort=due_date with the null sentinel ""', op: 'payables.list', sort: 'due_date', v: '' },
    { name: 'sort=created_at with an ISO timestamp', op: 'payables.list', sort: 'created_at', v: '2026-01-01T12:00:00.000Z' },
    { name: 'sort=name with any string', op: 'cost_centers.list', sort: 'name', v: 'M' },
    { name: 'sort=level with an integer', op: 'categories.list', sort: 'level', v: 1 },
  ];
  for (const c of accepted) {
    it(`accepts ${c.name}`, async () => {
      expect((await run(c.op, { sort: c.sort, cursor: cursorOf(c.sort, c.v) })).code).to.equal('ok');
    });
  }

  it('a uuid-kind sort refuses a value that is no uuid and accepts a uuid', async () => {
    const spec: ListSpec = { pageSize: { default: 25, minimum: 1, maximum: 100 }, sortFields: ['id'], defaultSort: 'id', filters: {}, fields: [] };
    const def: ListDefinition<'titles'> = {
      table: 'titles', resourceLabel: 'Payable', columns: { id: { column: 'id', kind: 'uuid' } }, toJson: (rows) => rows.map((r) => ({ id: r.id })),
    };
    const ctx = ctxFor('payables.list');
    const attempt = async (v: unknown) => {
      try {
        await listRecords(ctx, { limit: 5, filters: {}, sort: 'id', cursor: cursorOf('id', v) }, spec, def);
        return 'ok';
      } catch (err) {
        return err instanceof ApiError ? err.code : 'other';
      }
    };
    expect(await attempt('not-a-uuid')).to.equal('VALIDATION_ERROR');
    expect(await attempt(7)).to.equal('VALIDATION_ERROR');
    expect(await attempt(A_UUID)).to.equal('ok');
  });

  it('cursors the list itself hands out still walk every page, for every kind of sort (nulls included)', async () => {
    // hand-kept-ok: the regression's cases, one list per kind of sort column (money, date, timestamp, text, integer)
    const sorts: [string, string[]][] = [
      ['payables.list', ['-amount', 'amount', 'due_date', '-due_date', 'created_at', '-created_at', 'competence_date']],
      ['categories.list', ['level', '-name']],
      ['transactions.list', ['-occurred_at', 'amount']],
      ['attachments.list', ['size', '-created_at']],
    ];
    for (const [op, list] of sorts) {
      const all = await run(op, { limit: 100 });
      expect(all.code, op).to.equal('ok');
      for (const sort of list) {
        const ids: string[] = [];
        let cursor: string | null | undefined;
        do {
          const page = await run(op, { limit: 3, sort, ...(cursor ? { cursor } : {}) });
          expect(page.code, `${op} ${sort}`).to.equal('ok');
          ids.push(...page.body!.data.map((r) => r.id));
          cursor = page.body!.meta.next_cursor;
        } while (cursor);
        expect(new Set(ids).size, `${op} ${sort}`).to.equal(ids.length);
        if (all.body!.meta.next_cursor === null) expect(ids.length, `${op} ${sort}`).to.equal(all.body!.data.length);
      }
    }
  });

  describe('over REST', () => {
    let api: RestApp;
    before(async () => { api = await startRestApp(); });
    after(async () => { await api?.close(); });

    it('GET /v1/payables?sort=-amount&cursor=<v "xx", i "a"> is 400 VALIDATION_ERROR, not 200 or 500', async () => {
      const res = await api.call('GET', `/v1/payables?sort=-amount&cursor=${cursorOf('-amount', 'xx', 'a')}`, { workspace: M });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      expect(res.body.error.details.issues).to.deep.equal([{ path: 'cursor', message: 'is not a valid cursor for this list and sort' }]);
    });

    it('GET /v1/payables?sort=-amount follows its own next_cursor', async () => {
      const first = await api.call('GET', '/v1/payables?sort=-amount&limit=2', { workspace: M });
      expect(first.status).to.equal(200);
      const next = await api.call('GET', `/v1/payables?sort=-amount&limit=2&cursor=${first.body.meta.next_cursor}`, { workspace: M });
      expect(next.status, JSON.stringify(next.body)).to.equal(200);
      expect(next.body.data).to.have.length(2);
    });
  });
});
