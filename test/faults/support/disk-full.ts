/**
 * A full disk without privileges (docs/testing.md#a-full-disk), on the database of a test app:
 *
 * - SQLite: `PRAGMA max_page_count` set to the current page count. A write that needs a new
 *   page fails with SQLITE_FULL, as on a full disk; one that fits the room left in a page it
 *   already has still succeeds, so tests write until the first refusal (`writeUntilRefused`).
 * - PostgreSQL: a `BEFORE INSERT` trigger on every table of the test schema raising SQLSTATE
 *   53100 (disk_full) with PostgreSQL's own sentence, so the error comes from the server through
 *   the real driver, pool and transaction, as a full tablespace's does. The first insert fails.
 *
 * `lift()` restores the room (the original `max_page_count`; the triggers dropped).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../src/store/schema.js';
import type { Dialect } from '../../../src/store/db.js';

export interface DiskFault {
  lift(): Promise<void>;
}

/** Writes a test repeats at most before the fault must have refused one (SQLite fills in tens). */
const MAX_WRITES = 300;

async function pragmaValue(db: Kysely<Database>, name: string): Promise<number> {
  const { rows } = await sql.raw<Record<string, number>>(`pragma ${name}`).execute(db);
  return Number(rows[0]?.[name]);
}

const RAISE_DISK_FULL = sql.raw(`
  create function kf_test_disk_full() returns trigger language plpgsql as $$
  begin
    raise exception 'could not extend file: No space left on device' using errcode = 'disk_full';
  end $$`);

const ON_EVERY_TABLE = sql.raw(`
  do $$
  declare t text;
  begin
    for t in select tablename from pg_tables where schemaname = current_schema() loop
      execute format('create trigger kf_test_disk_full before insert on %I for each row execute function kf_test_disk_full()', t);
    end loop;
  end $$`);

export async function injectDiskFull(db: Kysely<Database>, dialect: Dialect): Promise<DiskFault> {
  let lifted = false;
  if (dialect === 'sqlite') {
    const original = await pragmaValue(db, 'max_page_count');
    const pages = await pragmaValue(db, 'page_count');
    await sql.raw(`pragma max_page_count = ${pages}`).execute(db);
    return {
      async lift() {
        if (lifted) return;
        lifted = true;
        await sql.raw(`pragma max_page_count = ${original}`).execute(db);
      },
    };
  }
  await RAISE_DISK_FULL.execute(db);
  await ON_EVERY_TABLE.execute(db);
  return {
    async lift() {
      if (lifted) return;
      lifted = true;
      await sql`drop function kf_test_disk_full() cascade`.execute(db);
    },
  };
}

/**
 * Calls `write(index)` with index 0, 1, 2, … while `succeeded` says it did, and returns the first
 * answer that did not and how many succeeded before it. Fails past MAX_WRITES.
 */
export async function writeUntilRefused<A>(write: (index: number) => Promise<A>, succeeded: (answer: A) => boolean): Promise<{ refused: A; written: number }> {
  for (let index = 0; index < MAX_WRITES; index += 1) {
    const answer = await write(index);
    if (!succeeded(answer)) return { refused: answer, written: index };
  }
  throw new Error(`${MAX_WRITES} writes succeeded under a full disk`);
}
