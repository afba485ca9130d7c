/**
 * Opens the one database of the process: SQLite (better-sqlite3, a file in `dataDir` or
 * `:memory:`) embedded, or a PostgreSQL pool when `databaseUrl` is set. Installs the
 * workspace guard. Schema creation is `migrate.ts`'s job, data is the seed's.
 */
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from './schema.js';
import { createWorkspaceGuard } from './workspace-guard.js';

export type Dialect = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

const INT8_OID = 20;

/** pg returns int8 (bigint cents, count(*)) as strings by default; cents fit a JS number. */
function readPgTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === INT8_OID) return (value: string) => Number(value);
  return pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
}

function openPostgres(databaseUrl: string): OpenedDatabase {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    types: { getTypeParser: readPgTypeParser } as pg.CustomTypesConfig,
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [createWorkspaceGuard()] });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/** The SQLite file path for a config (`:memory:` passes through for tests). */
export function resolveSqlitePath(dataDir: string): string {
  if (dataDir === ':memory:' || path.basename(dataDir) === ':memory:') return ':memory:';
  // The folder holds the books, the Account's signing key and the confirmation key: owner only.
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return path.join(dataDir, 'kobana.sqlite');
}

/** better-sqlite3 is a native module: a Node other than the one it was built for cannot load it. */
function createSqliteConnection(file: string): SqliteDatabase.Database {
  try {
    return new SqliteDatabase(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_DLOPEN_FAILED') throw err;
    throw new Error(
      `better-sqlite3 was built for another Node.js version than this one (${process.version}). ` +
        'Run with the Node.js it was installed with, or rebuild it (npm rebuild better-sqlite3).',
      { cause: err },
    );
  }
}

function openSqlite(dataDir: string): OpenedDatabase {
  const file = resolveSqlitePath(dataDir);
  const database = createSqliteConnection(file);
  if (file !== ':memory:') database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  // Another process (npm run token) may hold the write lock for a moment.
  database.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }), plugins: [createWorkspaceGuard()] });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

export async function openDatabase(config: Config): Promise<OpenedDatabase> {
  return config.databaseUrl ? openPostgres(config.databaseUrl) : openSqlite(config.dataDir);
}
