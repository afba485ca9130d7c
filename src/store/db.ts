/**
 * Opens the one database of the process: SQLite (better-sqlite3, a file in `dataDir` or
 * `:memory:`) embedded, or a PostgreSQL pool when `databaseUrl` is set. Installs the workspace
 * guard and the query observer, and reuses prepared statements: cached by SQL text on SQLite
 * (`statement-cache.ts`), named prepared statements on PostgreSQL. Schema creation is
 * `migrate.ts`'s job, data is the seed's.
 *
 * A PostgreSQL fault is an outage, never a crash: the pool and every client carry an error
 * listener (a dropped connection is logged and replaced), connecting is bounded by
 * `databaseConnectTimeoutMs`, every statement by `statement_timeout` on the server and, for a
 * database that stops answering altogether, by a read timeout on the client — after which the
 * connection is discarded instead of returned to the pool. Sessions are named
 * `application_name=kobana-finance` (unless the URL names them) so operators can find them.
 *
 * SQLite commits durably (`synchronous = FULL`: the WAL is synced at every commit, so an
 * acknowledged write survives a power cut; bench/README.md measures the cost), and a failed
 * transaction keeps its cause: SQLite rolls some transactions back by itself, and Kysely's
 * ROLLBACK must then not replace the error with its own. Every failed statement is shown to the
 * write probe (write-probe.ts), which counts the ones that ran out of space.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
// Types only: pg is loaded when a DATABASE_URL is set, so the embedded default never pays for it.
import type pg from 'pg';
import {
  CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver,
  type DatabaseConnection, type Dialect as KyselyDialect, type LogEvent, type PostgresPool, type PostgresPoolClient, type SqliteDialectConfig,
} from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { databaseFailureKind, isDatabaseUnavailable, isDiskFull } from './db-unavailable.js';
import type { Database } from './schema.js';
import { createWorkspaceGuard } from './workspace-guard.js';
import { cacheStatements } from './statement-cache.js';
import { noteStatementFailure } from './write-probe.js';

export type Dialect = 'sqlite' | 'postgres';

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

/** Sees the SQL text of every statement sent, never its parameters (test/auth/caller-cache.test.ts counts queries with it). */
export type QueryListener = (sqlText: string) => void;

const queryListeners = new WeakMap<Kysely<Database>, Set<QueryListener>>();

/** Calls `listener` with the SQL text of each statement `db` (or a transaction of it) sends, until the returned function is called. */
export function observeQueries(db: Kysely<Database>, listener: QueryListener): () => void {
  const listeners = queryListeners.get(db);
  if (listeners === undefined) throw new Error('observeQueries needs a database opened by openDatabase');
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The better-sqlite3 connection under a SQLite Kysely instance (identityStateReader reads through it). */
const sqliteConnections = new WeakMap<Kysely<Database>, SqliteDatabase.Database>();

/** What src/auth/caller.ts compares on every call: the organization's identity version, and whether the token is revoked. */
export interface IdentityState {
  readonly version: number;
  readonly revoked: boolean;
}

/** `exists(…)` reads 1/0 on SQLite and true/false on PostgreSQL. */
export function readFlag(value: unknown): boolean {
  return value === true || Number(value) === 1;
}

/**
 * The reader of an organization's identity version together with the revocation of the token
 * calling (one statement, compiled once: `revoked_tokens` is read by primary key on every call,
 * so a revocation written by any replica is seen at the next call, with no reload interval).
 * Undefined when the organization has no version row. On SQLite, when no transaction holds the
 * connection, it runs its prepared statement on the connection directly: the same autocommit read
 * Kysely would run, without its asynchronous connection hand-off, which cost about a tenth of a
 * cached `tools/list` (bench/README.md). While a transaction is open it waits for the connection
 * through Kysely like any other query, so it never reads uncommitted work. Query observers see it
 * either way.
 */
export function identityStateReader(db: Kysely<Database>): (organizationId: string, tokenId: string) => Promise<IdentityState | undefined> {
  const { sql: text } = db.selectFrom('identity_versions')
    .select((eb) => ['version', eb.exists(eb.selectFrom('revoked_tokens').select('jti').where('jti', '=', '')).as('revoked')])
    .where('organization_id', '=', '').compile();
  type Row = { version: number | string; revoked: unknown };
  const toState = (row: Row | undefined): IdentityState | undefined =>
    row === undefined ? undefined : { version: Number(row.version), revoked: readFlag(row.revoked) };
  // Parameters in the statement's order: the token's id (the subquery), then the organization.
  const viaKysely = async (organizationId: string, tokenId: string): Promise<IdentityState | undefined> => {
    const { rows } = await db.executeQuery<Row>(CompiledQuery.raw(text, [tokenId, organizationId]));
    return toState(rows[0]);
  };
  const connection = sqliteConnections.get(db);
  if (connection === undefined) return viaKysely;
  const statement = connection.prepare(text);
  const listeners = queryListeners.get(db) ?? new Set<QueryListener>();
  return async (organizationId, tokenId) => {
    if (connection.inTransaction) return viaKysely(organizationId, tokenId);
    for (const listener of listeners) listener(text);
    return toState(statement.get(tokenId, organizationId) as Row | undefined);
  };
}

/**
 * The Kysely instance of the process: the workspace guard installed, statements reported to
 * observers and failed ones to the write probe (Kysely's log hook).
 */
function createKysely(dialect: KyselyDialect): Kysely<Database> {
  const guard = createWorkspaceGuard();
  const listeners = new Set<QueryListener>();
  const db: Kysely<Database> = new Kysely<Database>({
    dialect: guard.guardDialect(dialect),
    plugins: [guard.plugin],
    log: (event: LogEvent) => {
      if (event.level === 'error') noteStatementFailure(db, event.error);
      for (const listener of listeners) listener(event.query.sql);
    },
  });
  queryListeners.set(db, listeners);
  return db;
}

const INT8_OID = 20;

/** pg returns int8 (bigint cents, count(*)) as strings by default; cents fit a JS number. */
function pgTypeParserReader(types: typeof pg.types) {
  return (oid: number, format?: 'text' | 'binary'): ((value: string) => unknown) => {
    if (oid === INT8_OID) return (value: string) => Number(value);
    return types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown;
  };
}

export const APPLICATION_NAME = 'kobana-finance';

/** How much longer than `statement_timeout` the client waits for an answer before giving the connection up. */
const READ_TIMEOUT_MARGIN_MS = 1_000;

export type DatabaseTimeouts = Pick<Config, 'databaseConnectTimeoutMs' | 'databaseStatementTimeoutMs' | 'databaseIdleTimeoutMs'>;

type FailureLogger = Pick<Logger, 'warn'>;

/** Named statements one connection keeps prepared; past this the connection is replaced (its statements go with it). */
const PREPARED_PER_CONNECTION_MAX = 500;

/** The prepared-statement name of an SQL text: a digest, so one text always gets one name. */
function nameStatement(text: string): string {
  return `k${createHash('sha1').update(text).digest('base64url')}`;
}

/**
 * Hands Kysely pooled clients that send every statement with parameters as a named prepared
 * statement and that leave the pool when their connection failed.
 *
 * Named statements: pg parses and plans a name once per connection and then only binds and
 * executes it (bench/README.md measures the saving); the names a connection holds are bounded
 * by replacing the connection. Failed connections: after a read timeout the socket may still be
 * open but will never answer, and the next query would queue behind the lost one.
 */
function discardFailedConnections(pool: pg.Pool): PostgresPool {
  const prepared = new WeakMap<pg.PoolClient, Set<string>>();
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      let names = prepared.get(client);
      if (names === undefined) {
        names = new Set();
        prepared.set(client, names);
      }
      const held = names;
      let failed = false;
      const query = async (text: string, parameters: readonly unknown[]) => {
        // Without parameters (DDL of migrations, begin/commit) pg keeps its simple protocol, which
        // also accepts several statements in one text.
        const name = parameters.length > 0 ? nameStatement(text) : undefined;
        if (name !== undefined) held.add(name);
        try {
          return await (name === undefined ? client.query(text) : client.query({ name, text, values: [...parameters] }));
        } catch (err) {
          // Out of space is the disk's fault, not the connection's: it stays in the pool.
          if (isDatabaseUnavailable(err) && !isDiskFull(err)) failed = true;
          throw err;
        }
      };
      return {
        // Kysely passes a cursor only when the dialect is given one; this one is not.
        query: query as unknown as PostgresPoolClient['query'],
        release: (destroy?: boolean) => client.release(destroy === true || failed || held.size > PREPARED_PER_CONNECTION_MAX),
      };
    },
    end: () => pool.end(),
  };
}

async function openPostgres(databaseUrl: string, timeouts: DatabaseTimeouts, logger: FailureLogger | undefined): Promise<OpenedDatabase> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    application_name: APPLICATION_NAME,
    connectionTimeoutMillis: timeouts.databaseConnectTimeoutMs,
    idleTimeoutMillis: timeouts.databaseIdleTimeoutMs,
    statement_timeout: timeouts.databaseStatementTimeoutMs,
    query_timeout: timeouts.databaseStatementTimeoutMs + READ_TIMEOUT_MARGIN_MS,
    keepAlive: true,
    types: { getTypeParser: pgTypeParserReader(pg.types) } as pg.CustomTypesConfig,
  });
  // Without these listeners one terminated backend ends the process ("Unhandled 'error' event").
  // The failing client is already out of the pool (pg-pool removes idle ones; in-use ones are
  // discarded on release); its queries fail and answer as an outage. One line per connection.
  const logConnectionError = (err: Error): void => {
    logger?.warn({ db_error: databaseFailureKind(err) }, 'database connection lost; it will be replaced');
  };
  pool.on('connect', (client) => client.on('error', logConnectionError));
  // pg-pool re-emits an idle client's error here too: already logged by the client's listener.
  pool.on('error', () => {});
  const db = createKysely(new PostgresDialect({ pool: discardFailedConnections(pool) }));
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

/**
 * Kysely's SQLite driver, but ROLLBACK is skipped when no transaction is open any more. SQLite
 * rolls a transaction back by itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM,
 * SQLITE_BUSY); Kysely's ROLLBACK then failed with "cannot rollback - no transaction is active",
 * and that error replaced the cause: a full disk answered 500 and never reached the log.
 */
class CauseKeepingSqliteDriver extends SqliteDriver {
  readonly #connection: SqliteDatabase.Database;

  constructor(config: SqliteDialectConfig, connection: SqliteDatabase.Database) {
    super(config);
    this.#connection = connection;
  }

  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.#connection.inTransaction) await super.rollbackTransaction(connection);
  }
}

/** SqliteDialect with the driver above. */
class CauseKeepingSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #connection: SqliteDatabase.Database;

  constructor(config: SqliteDialectConfig, connection: SqliteDatabase.Database) {
    super(config);
    this.#config = config;
    this.#connection = connection;
  }

  override createDriver(): SqliteDriver {
    return new CauseKeepingSqliteDriver(this.#config, this.#connection);
  }
}

function openSqlite(dataDir: string): OpenedDatabase {
  const file = resolveSqlitePath(dataDir);
  const database = createSqliteConnection(file);
  if (file !== ':memory:') database.pragma('journal_mode = WAL');
  // In WAL mode better-sqlite3's build default is NORMAL, which syncs only at checkpoints: the
  // last acknowledged commits could be lost on a power cut. FULL syncs the WAL at every commit.
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  // Another process (npm run token) may hold the write lock for a moment.
  database.pragma('busy_timeout = 5000');
  const db = createKysely(new CauseKeepingSqliteDialect({ database: cacheStatements(database) }, database));
  sqliteConnections.set(db, database);
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** `logger` receives one warn line per lost PostgreSQL connection (none when omitted, e.g. the token CLI). */
export async function openDatabase(config: Config, logger?: FailureLogger): Promise<OpenedDatabase> {
  return config.databaseUrl ? openPostgres(config.databaseUrl, config, logger) : openSqlite(config.dataDir);
}
