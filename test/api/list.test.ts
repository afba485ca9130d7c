import { expect } from 'chai';
import type { Caller, ListQuery, OperationContext } from '../../src/api/context.js';
import { ApiError } from '../../src/api/errors.js';
import { listRecords, type ListDefinition } from '../../src/api/list.js';
import { decodeCursor, encodeCursor } from '../../src/api/cursor.js';
import { formatCents } from '../../src/api/money.js';
import type { ListSpec } from '../../src/runtime/types.js';
import { DEMO, openTestDatabase, type TestDatabase } from '../helpers/index.js';
import { createDeadline } from '../../src/runtime/deadline.js';
import { systemClock } from '../../src/runtime/clock.js';

const M = DEMO.workspaces.matriz;
const MONEY = { type: ['string', 'number'], pattern: '^\\d{1,12}(\\.\\d{1,2})?$', exclusiveMinimum: 0 };

const SPEC: ListSpec = {
  pageSize: { default: 25, minimum: 1, maximum: 100 },
  sortFields: ['due_date', 'amount', 'payment_date'],
  defaultSort: 'due_date',
  filters: {
    status: { operators: ['eq', 'in'], schema: { type: 'string', enum: ['pending', 'paid', 'cancelled'] } },
    due_date: { operators: ['eq', 'gte', 'gt', 'lte', 'lt'], schema: { type: 'string', format: 'date' } },
    amount: { operators: ['gte', 'lte'], schema: MONEY },
  },
  fields: ['description', 'amount', 'due_date', 'status'],
};

const DEF: ListDefinition<'titles'> = {
  table: 'titles',
  resourceLabel: 'Payable',
  columns: {
    id: { column: 'id', kind: 'uuid' },
    status: { column: 'status', kind: 'string' },
    due_date: { column: 'due_date', kind: 'date' },
    amount: { column: 'amount_cents', kind: 'money' },
    payment_date: { column: 'payment_date', kind: 'date' },
  },
  baseWhere: (qb) => qb.where('kind', '=', 'payable'),
  toJson: (rows) => rows.map((r) => ({ id: r.id, description: r.description, amount: formatCents(r.amount_cents), due_date: r.due_date, status: r.status, payment_date: r.payment_date })),
};

const caller: Caller = {
  personId: DEMO.persons.ana, organizationId: DEMO.organizationId, scopes: new Set(['finance.all']), tokenType: 'personal', channel: 'api',
  membership: { status: 'active', isAdmin: true, permissions: new Set(), workspaceIds: [M], workspaceNames: DEMO.workspaceNames },
};

describe('listRecords()', () => {
  let store: TestDatabase;
  let ctx: OperationContext;
  before(async () => {
    store = await openTestDatabase();
    ctx = { caller, workspaceId: M, db: store.db, now: () => new Date() , deadline: createDeadline(systemClock, 10_000), bounds: null };
  });
  after(async () => { await store?.close(); });

  const query = (q: Partial<ListQuery>): ListQuery => ({ limit: 25, filters: {}, ...q });

  async function walkAll(q: Partial<ListQuery>): Promise<Record<string, string | null>[]> {
    const out: Record<string, string | null>[] = [];
    let cursor: string | undefined;
    do {
      const page = await listRecords(ctx, query({ ...q, ...(cursor ? { cursor } : {}) }), SPEC, DEF);
      out.push(...(page.data as Record<string, string | null>[]));
      cursor = page.meta.next_cursor ?? undefined;
    } while (cursor);
    return out;
  }

  it('walks every payable of the workspace once, for each sort (nullable columns included)', async () => {
    const total = await store.db.selectFrom('titles').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', '=', M).where('kind', '=', 'payable').executeTakeFirstOrThrow();
    expect(Number(total.n)).to.be.greaterThan(20);
    for (const sort of ['due_date', '-due_date', 'amount', '-amount', 'payment_date', '-payment_date']) {
      const rows = await walkAll({ limit: 7, sort });
      expect(rows, sort).to.have.length(Number(total.n));
      expect(new Set(rows.map((r) => r['id'])).size, sort).to.equal(Number(total.n));
    }
  });

  it('orders by amount in cents, not as text', async () => {
    const rows = await walkAll({ limit: 50, sort: 'amount' });
    const cents = rows.map((r) => Math.round(Number(r['amount']) * 100));
    expect(cents).to.deep.equal([...cents].sort((a, b) => a - b));
  });

  it('filters money and dates with range operators (string or number input)', async () => {
    const rows = await walkAll({ limit: 100, filters: { amount: { gte: '100.00', lte: 5000 }, due_date: { gte: '2026-01-01', lt: '2027-01-01' } } });
    expect(rows.length).to.be.greaterThan(0);
    for (const r of rows) {
      expect(Number(r['amount'])).to.be.within(100, 5000);
      expect(r['due_date']! >= '2026-01-01' && r['due_date']! < '2027-01-01').to.equal(true);
    }
    const inList = await walkAll({ limit: 100, filters: { status: { in: ['paid', 'cancelled'] } } });
    expect(inList.length).to.be.greaterThan(0);
    expect(inList.every((r) => r['status'] === 'paid' || r['status'] === 'cancelled')).to.equal(true);
  });

  async function codeOf(q: Partial<ListQuery>): Promise<string> {
    try {
      await listRecords(ctx, query(q), SPEC, DEF);
      return 'ok';
    } catch (err) {
      return err instanceof ApiError ? err.code : 'other';
    }
  }

  const cases: { name: string; q: Partial<ListQuery>; want: string }[] = [
    { name: 'an impossible date', q: { filters: { due_date: { gte: '2026-02-30' } } }, want: 'VALIDATION_ERROR' },
    { name: 'a 3-decimal amount', q: { filters: { amount: { gte: '1.234' } } }, want: 'VALIDATION_ERROR' },
    { name: 'a 3-decimal numeric amount', q: { filters: { amount: { gte: 1.234 } } }, want: 'VALIDATION_ERROR' },
    { name: 'an enum outside the list', q: { filters: { status: { eq: 'lost' } } }, want: 'VALIDATION_ERROR' },
    { name: 'an object as a value', q: { filters: { status: { eq: { $ne: 1 } } } }, want: 'VALIDATION_ERROR' },
    { name: 'an unknown filter', q: { filters: { owner: { eq: 'x' } } }, want: 'BAD_REQUEST' },
    { name: 'an operator the filter lacks', q: { filters: { amount: { eq: '1' } } }, want: 'BAD_REQUEST' },
    { name: 'an unknown field', q: { fields: ['secret'] }, want: 'BAD_REQUEST' },
    { name: 'an unknown sort', q: { sort: 'owner' }, want: 'BAD_REQUEST' },
    { name: 'limit 0', q: { limit: 0 }, want: 'VALIDATION_ERROR' },
    { name: 'a cursor of another sort', q: { sort: 'amount', cursor: encodeCursor({ sort: 'due_date', value: '2026-01-01', id: 'x' }) }, want: 'VALIDATION_ERROR' },
    { name: 'a garbage cursor', q: { cursor: 'eyJ' }, want: 'VALIDATION_ERROR' },
  ];
  for (const c of cases) it(`rejects ${c.name} with ${c.want}`, async () => expect(await codeOf(c.q)).to.equal(c.want));

  it('returns sparse fields plus id', async () => {
    const page = await listRecords(ctx, query({ limit: 2, fields: ['amount'] }), SPEC, DEF);
    expect(page.data).to.not.be.empty;
    for (const row of page.data) expect(Object.keys(row).sort()).to.deep.equal(['amount', 'id']);
  });

  it('never returns rows of another workspace', async () => {
    const other = { ...ctx, workspaceId: DEMO.workspaces.filial };
    const mine = new Set((await walkAll({ limit: 100 })).map((r) => r['id']));
    const page = await listRecords(other, query({ limit: 100 }), SPEC, DEF);
    expect(page.data).to.not.be.empty;
    for (const row of page.data as { id: string }[]) expect(mine.has(row.id)).to.equal(false);
  });
});

describe('decodeCursor()', () => {
  it('round-trips what encodeCursor wrote', () => {
    const c = encodeCursor({ sort: '-amount', value: 1234, id: 'abc' });
    expect(decodeCursor(c, '-amount')).to.deep.equal({ sort: '-amount', value: 1234, id: 'abc' });
  });
});
