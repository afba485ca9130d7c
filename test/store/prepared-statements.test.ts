/**
 * Prepared statements reused across executions (src/store/db.ts, statement-cache.ts): results
 * stay right when the same SQL text runs with other parameters, and on PostgreSQL a named
 * statement whose plan a migration invalidated (a column added under `select *`, as another
 * replica's rolling deploy would) fails once as an outage — the connection is replaced — and the
 * retry reads the new shape.
 */
import { expect } from 'chai';
import { sql } from 'kysely';
import { isDatabaseUnavailable } from '../../src/store/db-unavailable.js';
import { withoutWorkspaceGuard } from '../../src/store/workspace-guard.js';
import { skipWithReason } from '../helpers/mocha.js';
import { openTestDatabase, DEMO, type TestDatabase } from '../helpers/index.js';

describe('prepared statements reused by SQL text', () => {
  let store: TestDatabase;
  before(async () => {
    store = await openTestDatabase({ seed: true });
  });
  after(async () => {
    await store?.close();
  });

  const countTitles = (workspaceId: string) => store.db.selectFrom('titles').select(sql<number>`count(*)`.as('n'))
    .where('workspace_id', '=', workspaceId).executeTakeFirstOrThrow().then((r) => Number(r.n));

  it('answers each execution of one statement with its own parameters', async () => {
    const matriz = await countTitles(DEMO.workspaces.matriz);
    const filial = await countTitles(DEMO.workspaces.filial);
    expect(matriz).to.be.greaterThan(0);
    expect(await countTitles(DEMO.workspaces.matriz)).to.equal(matriz);
    expect(await countTitles(DEMO.workspaces.filial)).to.equal(filial);
    expect(await countTitles('00000000-0000-4000-8000-00000000dead')).to.equal(0);
  });

  it('PostgreSQL: a plan invalidated by a schema change fails once as an outage, then the new shape is read', async function () {
    if (store.dialect !== 'postgres') skipWithReason(this, 'named prepared statements are PostgreSQL only');
    const read = () => store.db.selectFrom('taxes').selectAll().where('workspace_id', '=', DEMO.workspaces.matriz).limit(1).executeTakeFirst();
    expect(await read()).to.not.have.property('bench_extra');
    await sql`alter table taxes add column bench_extra integer`.execute(withoutWorkspaceGuard(store.db));
    const failure = await read().then(() => undefined, (err: unknown) => err);
    expect(failure, 'the stale named statement ran').to.be.instanceOf(Error);
    expect(isDatabaseUnavailable(failure), String(failure)).to.equal(true);
    expect(await read()).to.have.property('bench_extra');
  });
});
