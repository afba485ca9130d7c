/**
 * The few column types that differ between SQLite and PostgreSQL, chosen from the dialect of
 * the migrating connection, so there is one migration set for both databases.
 */
import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** Raw bytes: `bytea` on PostgreSQL, `blob` on SQLite (both come back as a Buffer). */
export function readBytesType(db: Kysely<unknown>): RawBuilder<unknown> {
  return isPostgres(db) ? sql`bytea` : sql`blob`;
}
