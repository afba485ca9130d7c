/**
 * The embedded SQLite database as `openDatabase` configures it (src/store/db.ts), on a real
 * file: commits are durable (`synchronous = FULL`, also once the file is WAL and reopened,
 * where better-sqlite3's build default would be NORMAL), and a transaction SQLite rolled back
 * by itself keeps its cause — SQLITE_FULL, not the "cannot rollback" of Kysely's ROLLBACK.
 * SQLite only: these are properties of the embedded file.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { sql, type Kysely } from 'kysely';
import { openDatabase, type OpenedDatabase } from '../../src/store/db.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import type { Database } from '../../src/store/schema.js';
import { buildTestConfig } from '../helpers/index.js';

async function pragma(db: Kysely<Database>, name: string): Promise<unknown> {
  const { rows } = await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(db);
  return rows[0]?.[name];
}

describe('the embedded SQLite file: durable commits, failures that keep their cause', () => {
  let dataDir: string;
  let store: OpenedDatabase | undefined;

  beforeEach(function () {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-sqlite-'));
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function open(): Promise<OpenedDatabase> {
    // The PostgreSQL URL of a run is ignored here: this is the embedded file.
    store = await openDatabase(buildTestConfig({ dataDir, databaseUrl: null }));
    return store;
  }

  it('syncs every commit (synchronous = FULL), on the first open and on a reopened WAL file', async () => {
    const first = await open();
    await migrateToLatest(first.db);
    expect(await pragma(first.db, 'journal_mode')).to.equal('wal');
    expect(await pragma(first.db, 'synchronous')).to.equal(2);
    await first.close();
    store = undefined;
    const reopened = await open();
    expect(await pragma(reopened.db, 'journal_mode')).to.equal('wal');
    expect(await pragma(reopened.db, 'synchronous')).to.equal(2);
  });

  it('a transaction that ran out of space fails with SQLITE_FULL, and the connection takes the next transaction', async () => {
    const { db } = await open();
    await migrateToLatest(db);
    const original = Number(await pragma(db, 'max_page_count'));
    await sql.raw(`pragma max_page_count = ${Number(await pragma(db, 'page_count'))}`).execute(db);
    // 64 KiB of text does not fit the pages the file has: SQLite fails the insert and rolls the transaction back itself.
    const secret = (name: string) => ({ name, value: randomBytes(32 * 1024).toString('hex'), created_at: new Date().toISOString() });
    const failure = await db.transaction().execute(async (trx) => {
      await trx.insertInto('shared_secrets').values(secret('a')).execute();
    }).then(() => null, (err: unknown) => err);
    expect(failure).to.be.instanceOf(Error);
    expect((failure as { code?: unknown }).code).to.equal('SQLITE_FULL');
    await sql.raw(`pragma max_page_count = ${original}`).execute(db);
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('shared_secrets').values(secret('b')).execute();
    });
    expect((await db.selectFrom('shared_secrets').select('name').execute()).map((row) => row.name)).to.deep.equal(['b']);
  });
});
