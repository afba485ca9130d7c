/**
 * `write_probes`: the table of the write probe `/readyz` runs after a write failed for lack of
 * space (src/store/write-probe.ts, docs/operations.md#database-outages). Each probe inserts one
 * row, commits it, then deletes the table's rows, so the table is empty between probes. An
 * infrastructure table, not a finance one: no workspace.
 */
import type { Kysely } from 'kysely';
import { readBytesType } from './column-types.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('write_probes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payload', readBytesType(db), (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('write_probes').ifExists().execute();
}
