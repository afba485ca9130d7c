/**
 * Prepared statements reused by SQL text for better-sqlite3. Kysely's SQLite driver calls
 * `prepare` on every query, and preparing (parsing and planning the SQL) was the largest single
 * cost of a read (bench/README.md). The statements of one connection are cached here, bounded,
 * least recently used out first. Reusing one is safe because the driver runs one query at a
 * time on its one connection (a streamed query holds the connection until it ends), and SQLite
 * re-prepares a statement by itself when the schema changed under it.
 */
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Distinct statements kept per connection: every shape the app runs, with room for list filters. */
const STATEMENT_CACHE_MAX = 1_000;

/** `database` with a `prepare` that hands back the statement already prepared for the same text. */
export function cacheStatements(database: SqliteDatabase, max = STATEMENT_CACHE_MAX): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => database.close(),
    prepare(sql: string): SqliteStatement {
      const cached = statements.get(sql);
      if (cached !== undefined) {
        // Re-inserted so Map order is least recently used first.
        statements.delete(sql);
        statements.set(sql, cached);
        return cached;
      }
      const statement = database.prepare(sql);
      if (statements.size >= max) statements.delete(statements.keys().next().value as string);
      statements.set(sql, statement);
      return statement;
    },
  };
}
