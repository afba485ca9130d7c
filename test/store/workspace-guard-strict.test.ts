/**
 * The strict workspace guard: each finance table of a query (FROM, JOIN, UPDATE/DELETE target)
 * needs its own top-level AND condition `workspace_id = <value>` / `in (<values>)`, or an
 * equality with an already scoped table's workspace_id. Every bypass a review found is here.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { WorkspaceGuardError } from '../../src/store/workspace-guard.js';
import { openTestDatabase, DEMO, type TestDatabase } from '../helpers/index.js';

const W1: string = DEMO.workspaces.matriz;
const W2: string = DEMO.workspaces.filial;

async function expectGuarded(run: () => Promise<unknown>, table: string): Promise<WorkspaceGuardError> {
  // Kysely runs plugins on a subquery when it is built, so the guard may throw before execute().
  const caught = await Promise.resolve().then(run).then(() => undefined, (err: unknown) => err);
  expect(caught, `a query on ${table} ran without being scoped`).to.be.instanceOf(WorkspaceGuardError);
  expect((caught as WorkspaceGuardError).table).to.equal(table);
  expect((caught as Error).message).to.not.include(W1).and.to.not.include(W2);
  return caught as WorkspaceGuardError;
}

function audit(now: string) {
  return { created_at: now, updated_at: now, created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'api' as const, updated_via: 'api' as const, version: 1 };
}

describe('workspace guard (strict scoping)', () => {
  let store: TestDatabase;
  const taxId = randomUUID();
  const now = new Date().toISOString();

  before(async () => {
    store = await openTestDatabase({ seed: true });
    await store.db.insertInto('taxes').values({ id: taxId, workspace_id: W1, name: `guard ${taxId}`, default_rate: '1.00', active: 1, ...audit(now) }).execute();
  });
  after(async () => {
    await store?.close();
  });

  describe('refuses the reviewed bypasses', () => {
    it('an OR root that hides the workspace condition (select and delete)', async () => {
      await expectGuarded(() => store.db.selectFrom('titles').selectAll()
        .where((eb) => eb.or([eb('workspace_id', '=', W1), eb('id', '!=', '')])).execute(), 'titles');
      await expectGuarded(() => store.db.deleteFrom('titles')
        .where((eb) => eb.or([eb('workspace_id', '=', W1), eb('id', '!=', '')])).execute(), 'titles');
      await expectGuarded(() => store.db.updateTable('taxes').set({ active: 1 })
        .where((eb) => eb('workspace_id', '=', W1).or('id', '!=', '')).execute(), 'taxes');
    });

    it('negative and non-equality operators on workspace_id', async () => {
      for (const op of ['!=', '<>', 'not in', 'like', '>', 'is not'] as const) {
        const value = op === 'not in' ? ['x'] : op === 'is not' ? null : 'x';
        await expectGuarded(() => store.db.selectFrom('titles').select('id').where('workspace_id', op, value as never).execute(), 'titles');
      }
    });

    it('NOT around the workspace condition', async () => {
      await expectGuarded(() => store.db.selectFrom('titles').select('id')
        .where((eb) => eb.not(eb('workspace_id', '=', W1))).execute(), 'titles');
    });

    it('a workspace condition only inside an IN (subquery) does not scope the outer table', async () => {
      await expectGuarded(() => store.db.selectFrom('titles').select('id')
        .where('id', 'in', store.db.selectFrom('titles as inner_t').select('inner_t.id').where('inner_t.workspace_id', '=', W1))
        .execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom('titles').select('id')
        .where((eb) => eb.exists(eb.selectFrom('accounts').select('accounts.id').where('accounts.workspace_id', '=', W1)))
        .execute(), 'titles');
    });

    it('workspace_id compared with a subquery, a column or a raw fragment is not a value', async () => {
      await expectGuarded(() => store.db.selectFrom('titles').select('id')
        .where('workspace_id', 'in', store.db.selectFrom('workspaces').select('id')).execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom('titles').select('id')
        .where('workspace_id', '=', store.db.selectFrom('workspaces').select('id').limit(1)).execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom('titles as t').select('t.id').whereRef('t.workspace_id', '=', 't.workspace_id').execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom('titles as t').select('t.id').whereRef('t.workspace_id', '=', 'T.workspace_id' as never).execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom('titles').select('id').where('workspace_id', '=', sql<string>`workspace_id`).execute(), 'titles');
    });

    it('a joined finance table without its own workspace condition', async () => {
      await expectGuarded(() => store.db.selectFrom('titles as t').innerJoin('accounts as a', 'a.id', 'a.id')
        .select('t.id').where('t.workspace_id', '=', W1).execute(), 'accounts');
      await expectGuarded(() => store.db.selectFrom('titles as t').leftJoin('accounts as a', 'a.id', 't.financial_account_id')
        .select('t.id').where('t.workspace_id', '=', W1).execute(), 'accounts');
      // Equality with a table that is not scoped itself.
      await expectGuarded(() => store.db.selectFrom('titles as t')
        .innerJoin('accounts as a', (j) => j.onRef('a.workspace_id', '=', 't.workspace_id'))
        .innerJoin('people as p', (j) => j.onRef('p.workspace_id', '=', 'a.workspace_id'))
        .select('t.id').execute(), 'titles');
      // An OR in the ON clause hides the condition.
      await expectGuarded(() => store.db.selectFrom('titles as t')
        .innerJoin('accounts as a', (j) => j.on((eb) => eb.or([eb('a.workspace_id', '=', W1), eb('a.id', '!=', '')])))
        .select('t.id').where('t.workspace_id', '=', W1).execute(), 'accounts');
      // A right/full join keeps all the joined table's rows whatever ON says.
      await expectGuarded(() => store.db.selectFrom('titles as t')
        .rightJoin('accounts as a', (j) => j.onRef('a.id', '=', 't.financial_account_id').on('a.workspace_id', '=', W1))
        .select('a.id').where('t.workspace_id', '=', W1).execute(), 'accounts');
    });

    it('an ON condition does not scope the table the join starts from', async () => {
      await expectGuarded(() => store.db.selectFrom('titles as t')
        .innerJoin('accounts as a', (j) => j.onRef('a.id', '=', 't.financial_account_id').on('a.workspace_id', '=', W1).on('t.workspace_id', '=', W1))
        .select('t.id').execute(), 'titles');
    });

    it('a bare workspace_id with two finance tables in scope, and a second FROM table', async () => {
      await expectGuarded(() => store.db.selectFrom('titles as t').innerJoin('accounts as a', 'a.id', 't.financial_account_id')
        .select('t.id').where('workspace_id' as never, '=', W1 as never).execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom(['titles as t', 'accounts as a']).select('t.id').where('t.workspace_id', '=', W1).execute(), 'accounts');
    });

    it('a subquery correlated to an unscoped outer table, or scoped only by its outer query', async () => {
      await expectGuarded(() => store.db.selectFrom('workspaces as w')
        .select((eb) => eb.selectFrom('accounts as a').select('a.name').whereRef('a.workspace_id', '=', 'w.id').limit(1).as('n'))
        .execute(), 'accounts');
      await expectGuarded(() => store.db.selectFrom('titles as t').select('t.id').where('t.workspace_id', '=', W1)
        .select((eb) => eb.selectFrom('people').select('people.name').whereRef('people.id', '=', 't.person_id').limit(1).as('n'))
        .execute(), 'people');
    });

    it('unscoped queries in a CTE, a derived table or a union member', async () => {
      await expectGuarded(() => store.db.with('x', (db) => db.selectFrom('titles').select('id'))
        .selectFrom('x').selectAll().execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom((db) => db.selectFrom('titles').select('id').as('x'))
        .selectAll().execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom('titles').select('id').where('workspace_id', '=', W1)
        .union(store.db.selectFrom('titles').select('id')).execute(), 'titles');
    });

    it('a raw filter fragment that would change the shape of the WHERE', async () => {
      await expectGuarded(() => store.db.selectFrom('titles').select('id')
        .where(sql<boolean>`1 = 1 or 1 = 1`).where('workspace_id', '=', W1).execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom('titles').select('id')
        .where('workspace_id', '=', W1).where(sql<boolean>`1 = 1) or (1 = 1`).execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom('titles').select('id')
        .where(sql<boolean>`1 = 1 --`).where('workspace_id', '=', W1).execute(), 'titles');
      await expectGuarded(() => store.db.selectFrom('titles').select('id')
        .where('workspace_id', '=', W1).where(sql<boolean>`1 = 1 union select id from titles`).execute(), 'titles');
    });

    it('an upsert whose conflict target may hit another workspace\'s row', async () => {
      const row = { id: taxId, workspace_id: W2, name: `other ${taxId}`, default_rate: '9.00', active: 1, ...audit(now) };
      await expectGuarded(() => store.db.insertInto('taxes').values(row)
        .onConflict((oc) => oc.column('id').doUpdateSet({ name: (eb) => eb.ref('excluded.name') })).execute(), 'taxes');
      await expectGuarded(() => store.db.insertInto('taxes').values(row)
        .onConflict((oc) => oc.column('id').doUpdateSet({ name: 'x' }).where('taxes.workspace_id', '!=', W1)).execute(), 'taxes');
      await expectGuarded(() => store.db.insertInto('taxes').values(row)
        .onConflict((oc) => oc.columns(['workspace_id', 'name']).doUpdateSet({ workspace_id: W1 })).execute(), 'taxes');
      const untouched = await store.db.selectFrom('taxes').select(['workspace_id', 'name']).where('workspace_id', '=', W1).where('id', '=', taxId).executeTakeFirst();
      expect(untouched).to.deep.equal({ workspace_id: W1, name: `guard ${taxId}` });
    });

    it('an insert whose workspace_id is not a bound value, insert or replace', async () => {
      const base = { id: randomUUID(), name: `ins ${randomUUID()}`, default_rate: '1.00', active: 1, ...audit(now) };
      await expectGuarded(() => store.db.insertInto('taxes')
        .values({ ...base, workspace_id: (eb) => eb.selectFrom('workspaces').select('id').limit(1) }).execute(), 'taxes');
      await expectGuarded(() => store.db.insertInto('taxes').values({ ...base, workspace_id: sql<string>`'x'` }).execute(), 'taxes');
      await expectGuarded(() => store.db.insertInto('taxes').orReplace().values({ ...base, workspace_id: W1 }).execute(), 'taxes');
      await expectGuarded(() => store.db.insertInto('taxes').defaultValues().execute(), 'taxes');
    });

    it('INSERT … SELECT from an unscoped select, or taking workspace_id from an unscoped table', async () => {
      await expectGuarded(() => store.db.insertInto('taxes')
        .columns(['id', 'workspace_id', 'name', 'default_rate', 'active', 'created_at', 'updated_at', 'created_by', 'updated_by', 'created_via', 'updated_via', 'version'])
        .expression((eb) => eb.selectFrom('taxes as s').select([
          sql<string>`lower(hex(randomblob(16)))`.as('id'), 's.workspace_id', sql<string>`'copy ' || s.name`.as('name'), 's.default_rate', 's.active',
          's.created_at', 's.updated_at', 's.created_by', 's.updated_by', 's.created_via', 's.updated_via', 's.version',
        ]).where('s.workspace_id', '!=', 'x'))
        .execute(), 'taxes');
      await expectGuarded(() => store.db.insertInto('taxes')
        .columns(['id', 'workspace_id', 'name', 'default_rate', 'active', 'created_at', 'updated_at', 'created_by', 'updated_by', 'created_via', 'updated_via', 'version'])
        .expression((eb) => eb.selectFrom('workspaces as w').select([
          sql<string>`w.id || '-t'`.as('id'), 'w.id', sql<string>`'everywhere'`.as('name'), sql<string>`'1.00'`.as('r'), sql<number>`1`.as('a'),
          sql<string>`'x'`.as('c1'), sql<string>`'x'`.as('c2'), sql<string>`'x'`.as('c3'), sql<string>`'x'`.as('c4'), sql<string>`'api'`.as('c5'), sql<string>`'api'`.as('c6'), sql<number>`1`.as('v'),
        ]))
        .execute(), 'taxes');
    });

    it('an update that moves rows to another workspace', async () => {
      await expectGuarded(() => store.db.updateTable('taxes').set({ workspace_id: W2 }).where('workspace_id', '=', W1).where('id', '=', taxId).execute(), 'taxes');
    });

    it('names the table and the alias, never a value', async () => {
      const err = await expectGuarded(() => store.db.selectFrom('titles as t').innerJoin('accounts as a', 'a.id', 't.financial_account_id')
        .select('t.id').where('t.workspace_id', '=', W1).where('t.description', '=', 'secret-value').execute(), 'accounts');
      expect(err.message).to.include('"accounts"').and.include('"a"').and.not.include('secret-value');
      expect(err.statement).to.equal('select');
    });
  });

  describe('runs the legitimate forms', () => {
    it('= and IN on the main table, bare or qualified, in any AND position, with OR kept in parentheses', async () => {
      const both = await store.db.selectFrom('titles').select('workspace_id')
        .where((eb) => eb.or([eb('status', '=', 'pending'), eb('status', '!=', 'pending')]))
        .where('workspace_id', '=', W1).execute();
      expect(both.length).to.be.greaterThan(0);
      expect(new Set(both.map((r) => r.workspace_id))).to.deep.equal(new Set([W1]));
      const inList = await store.db.selectFrom('titles as t').select('t.workspace_id').where('t.workspace_id', 'in', [W1, W2]).execute();
      expect(new Set(inList.map((r) => r.workspace_id))).to.deep.equal(new Set([W1, W2]));
      await store.db.selectFrom('titles').select('id').where((eb) => eb.and({ workspace_id: W1, status: 'pending' })).execute();
      await store.db.selectFrom('titles').select('id').where((eb) => eb.and([eb('status', '=', 'pending'), eb.and([eb('workspace_id', '=', W1)])])).execute();
      await store.db.selectFrom('titles').select('id').where((eb) => eb.or([eb('workspace_id', '=', W1)])).execute();
      await store.db.selectFrom('titles').select('id').where((eb) => eb(eb.val(W1), '=', eb.ref('workspace_id'))).execute();
    });

    it('joins scoped in ON (value or equality with a scoped table) or in WHERE', async () => {
      await store.db.selectFrom('titles as t')
        .leftJoin('people as p', (j) => j.onRef('p.id', '=', 't.person_id').onRef('p.workspace_id', '=', 't.workspace_id'))
        .leftJoin('accounts as a', (j) => j.onRef('a.id', '=', 't.financial_account_id').onRef('a.workspace_id', '=', 't.workspace_id'))
        .select(['t.id', 'p.name', 'a.name as account']).where('t.workspace_id', '=', W1).execute();
      await store.db.selectFrom('titles as t')
        .innerJoin('accounts as a', (j) => j.onRef('a.id', '=', 't.financial_account_id').on('a.workspace_id', '=', W1))
        .select('t.id').where('t.workspace_id', '=', W1).execute();
      await store.db.selectFrom('titles as t').innerJoin('accounts as a', 'a.id', 't.financial_account_id')
        .select('t.id').where('t.workspace_id', '=', W1).where('a.workspace_id', '=', W1).execute();
      await store.db.selectFrom('titles as t').innerJoin('accounts as a', 'a.id', 't.financial_account_id')
        .select('t.id').where('a.workspace_id', '=', W1).whereRef('t.workspace_id', '=', 'a.workspace_id').execute();
      await store.db.selectFrom('workspaces as w').innerJoin('titles', 'titles.workspace_id', 'w.id')
        .select('titles.id').where('titles.workspace_id', '=', W1).execute();
    });

    it('a right join scoped in WHERE, and a whole raw sql query (unchecked by design)', async () => {
      await store.db.selectFrom('titles as t')
        .rightJoin('accounts as a', (j) => j.onRef('a.id', '=', 't.financial_account_id').onRef('a.workspace_id', '=', 't.workspace_id'))
        .select('a.id').where('t.workspace_id', '=', W1).where('a.workspace_id', '=', W1).execute();
      // Raw queries are NOT guarded (see the module header): this reads every workspace.
      const { rows } = await sql<{ n: number }>`select count(distinct workspace_id) as n from titles`.execute(store.db);
      expect(Number(rows[0]?.n)).to.equal(2);
    });

    it('scoped subqueries: IN, EXISTS, correlated to a scoped outer table, CTEs and unions', async () => {
      await store.db.selectFrom('titles').select('id').where('workspace_id', '=', W1)
        .where('person_id', 'in', store.db.selectFrom('people').select('id').where('workspace_id', '=', W1)).execute();
      await store.db.deleteFrom('taxes').where('workspace_id', '=', W1).where('id', '=', randomUUID())
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('titles').select('id').where('workspace_id', '=', W1)))).execute();
      await store.db.selectFrom('titles as t').select('t.id').where('t.workspace_id', '=', W1)
        .select((eb) => eb.selectFrom('people as p').select('p.name').whereRef('p.id', '=', 't.person_id').whereRef('p.workspace_id', '=', 't.workspace_id').limit(1).as('n'))
        .execute();
      await store.db.with('x', (db) => db.selectFrom('titles').select('id').where('workspace_id', '=', W1))
        .selectFrom('x').selectAll().execute();
      await store.db.selectFrom('titles').select('id').where('workspace_id', '=', W1)
        .union(store.db.selectFrom('titles').select('id').where('workspace_id', '=', W2)).execute();
    });

    it('raw filter fragments that keep their shape (as in production)', async () => {
      await store.db.selectFrom('taxes').select('id').where('workspace_id', '=', W1).where(sql`lower(name)`, '=', 'iss').execute();
      const overdue = sql<boolean>`(status = 'pending' and due_date < ${'2000-01-01'})`;
      await store.db.selectFrom('titles').select('id').where('workspace_id', '=', W1).where(sql<boolean>`not ${overdue}`).execute();
      await store.db.selectFrom('titles').select('id').where('workspace_id', '=', W1)
        .where(sql<boolean>`(${sql.ref('due_date')} > ${'2000-01-01'} or (${sql.ref('due_date')} = ${'2000-01-01'} and ${sql.ref('id')} > ${'x'}))`).execute();
      await store.db.selectFrom('people').select('id').where('workspace_id', '=', W1)
        .where(sql<boolean>`lower(${sql.ref('name')}) like ${'%a%'} escape '\\'`).execute();
    });

    it('inserts with a bound workspace_id, upserts that cannot leave the workspace, INSERT … SELECT from a scoped select', async () => {
      const name = `legit ${randomUUID()}`;
      await store.db.insertInto('taxes').values({ id: randomUUID(), workspace_id: W1, name, default_rate: '1.00', active: 1, ...audit(now) })
        .onConflict((oc) => oc.columns(['workspace_id', 'name']).doUpdateSet({ default_rate: '2.00' })).execute();
      await store.db.insertInto('taxes').values({ id: randomUUID(), workspace_id: W1, name, default_rate: '1.00', active: 1, ...audit(now) })
        .onConflict((oc) => oc.columns(['workspace_id', 'name']).doUpdateSet({ default_rate: '3.00' })).execute();
      await store.db.insertInto('taxes').values({ id: taxId, workspace_id: W1, name: `guard ${taxId}`, default_rate: '1.00', active: 1, ...audit(now) })
        .onConflict((oc) => oc.column('id').doUpdateSet({ active: 1 }).where('taxes.workspace_id', '=', W1)).execute();
      await store.db.insertInto('taxes').values({ id: taxId, workspace_id: W1, name: `guard ${taxId}`, default_rate: '1.00', active: 1, ...audit(now) })
        .onConflict((oc) => oc.column('id').doUpdateSet({ active: 1 }).whereRef('taxes.workspace_id', '=', 'excluded.workspace_id')).execute();
      await store.db.insertInto('taxes').values({ id: taxId, workspace_id: W2, name: `guard ${taxId}`, default_rate: '1.00', active: 1, ...audit(now) })
        .onConflict((oc) => oc.column('id').doNothing()).execute();
      const rate = await store.db.selectFrom('taxes').select('default_rate').where('workspace_id', '=', W1).where('name', '=', name).executeTakeFirst();
      expect(String(rate?.default_rate)).to.match(/^3(\.00?)?$/);

      const copy = `copy ${randomUUID()}`;
      const columns = ['id', 'workspace_id', 'name', 'default_rate', 'active', 'created_at', 'updated_at', 'created_by', 'updated_by', 'created_via', 'updated_via', 'version'] as const;
      await store.db.insertInto('taxes').columns([...columns])
        .expression((eb) => eb.selectFrom('taxes as s').select([
          eb.val(randomUUID()).as('id'), 's.workspace_id', eb.val(copy).as('name'), 's.default_rate', 's.active',
          's.created_at', 's.updated_at', 's.created_by', 's.updated_by', 's.created_via', 's.updated_via', 's.version',
        ]).where('s.workspace_id', '=', W1).where('s.id', '=', taxId))
        .execute();
      await store.db.insertInto('taxes').columns([...columns])
        .expression((eb) => eb.selectFrom('taxes as s').select([
          eb.val(randomUUID()).as('id'), eb.val(W1).as('workspace_id'), eb.val(`${copy} 2`).as('name'), 's.default_rate', 's.active',
          's.created_at', 's.updated_at', 's.created_by', 's.updated_by', 's.created_via', 's.updated_via', 's.version',
        ]).where('s.workspace_id', '=', W1).where('s.id', '=', taxId))
        .execute();
      const copies = await store.db.selectFrom('taxes').select('workspace_id').where('workspace_id', 'in', [W1, W2]).where('name', 'like', `${copy}%`).execute();
      expect(copies).to.deep.equal([{ workspace_id: W1 }, { workspace_id: W1 }]);
    });

    it('update and delete scoped by workspace, including through a correlated subquery in SET', async () => {
      await store.db.updateTable('taxes').set({ active: 1 }).where('workspace_id', '=', W1).where('id', '=', taxId).execute();
      await store.db.updateTable('taxes')
        .set((eb) => ({ name: eb.selectFrom('taxes as o').select('o.name').whereRef('o.id', '=', 'taxes.id').whereRef('o.workspace_id', '=', 'taxes.workspace_id').limit(1) }))
        .where('workspace_id', '=', W1).where('id', '=', taxId).execute();
      await store.db.deleteFrom('taxes').where('workspace_id', 'in', [W1]).where('id', '=', randomUUID()).execute();
    });
  });
});
