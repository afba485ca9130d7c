/**
 * Queries compiled once (src/store/prepared-query.ts): each run binds its own values and reads
 * what the same builder query reads; the builder runs once per Kysely instance; a builder that
 * does not pass a value straight through is refused; and the workspace guard checks the shape
 * as it checks any query (an unscoped finance query is refused before any SQL runs).
 */
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { prepareQuery } from '../../src/store/prepared-query.js';
import type { Database } from '../../src/store/schema.js';
import { WorkspaceGuardError } from '../../src/store/workspace-guard.js';
import { openTestDatabase, DEMO, type TestDatabase } from '../helpers/index.js';

describe('prepareQuery(): compiled once, run with new values', () => {
  let store: TestDatabase;
  before(async () => {
    store = await openTestDatabase({ seed: true });
  });
  after(async () => {
    await store?.close();
  });

  type TitleStatus = Database['titles']['status'];
  const builderQuery = (db: Kysely<Database>, workspaceId: string, status: string) => db.selectFrom('titles')
    .select(['id', 'status', 'workspace_id']).where('workspace_id', '=', workspaceId).where('status', '=', status as TitleStatus).where('kind', '=', 'payable').orderBy('id');

  it('reads what the builder query reads, for every set of values, building once', async () => {
    let builds = 0;
    const read = prepareQuery(['workspaceId', 'status'], (db: Kysely<Database>, slot) => {
      builds += 1;
      return builderQuery(db, slot.workspaceId, slot.status);
    });
    const cases = [
      [DEMO.workspaces.matriz, 'pending'], [DEMO.workspaces.filial, 'pending'], [DEMO.workspaces.matriz, 'paid'],
      [DEMO.workspaces.matriz, 'no-such-status'], ['00000000-0000-4000-8000-00000000dead', 'pending'],
    ] as const;
    let nonEmpty = 0;
    for (const [workspaceId, status] of cases) {
      const rows = await read(store.db, { workspaceId, status });
      expect(rows).to.deep.equal(await builderQuery(store.db, workspaceId, status).execute());
      if (rows.length > 0) nonEmpty += 1;
    }
    expect(nonEmpty).to.be.at.least(2);
    expect(builds).to.equal(1);
  });

  it('refuses a builder that transforms a value instead of binding it', async () => {
    const read = prepareQuery(['status'], (db: Kysely<Database>, slot) => builderQuery(db, DEMO.workspaces.matriz, slot.status.toUpperCase()));
    let caught: unknown;
    try {
      await read(store.db, { status: 'pending' });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(Error).with.property('message').that.matches(/does not bind status/);
  });

  it('is checked by the workspace guard: an unscoped finance query never runs', async () => {
    const read = prepareQuery(['id'], (db: Kysely<Database>, slot) => db.selectFrom('titles').selectAll().where('id', '=', slot.id));
    let caught: unknown;
    try {
      await read(store.db, { id: '00000000-0000-4000-8000-000000000001' });
    } catch (error) {
      caught = error;
    }
    expect(caught).to.be.instanceOf(WorkspaceGuardError);
  });
});
