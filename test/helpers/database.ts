/**
 * Test databases: SQLite in memory by default, or a fresh PostgreSQL schema when DATABASE_URL
 * is set (created here, dropped on close), migrated and seeded with the demo data.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { loadConfig, type Config } from '../../src/config.js';
import { openDatabase } from '../../src/store/db.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { seedDemoData } from '../../src/seed/index.js';
import { systemClock } from '../../src/runtime/clock.js';
import { routes } from '../../generated/registry.gen.js';
import { handlers } from '../../generated/handlers.gen.js';
import type { Database } from '../../src/store/schema.js';

export interface TestSchema {
  /** DATABASE_URL with `search_path` pinned to the fresh schema; null on SQLite. */
  readonly databaseUrl: string | null;
  drop(): Promise<void>;
}

/**
 * One PostgreSQL database per test run, holding one schema per test app. Kysely's Migrator
 * introspects every schema of its database (`has_schema_privilege(nspname, …)`), so a schema
 * dropped by another process mid-query fails that query; a private database per run keeps
 * concurrent runs (developers, CI) from ever seeing each other's schemas.
 */
let runDatabase: Promise<string> | null = null;

async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function ensureRunDatabase(base: string): Promise<string> {
  runDatabase ??= (async () => {
    const name = `kf_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    await withClient(base, (c) => c.query(`CREATE DATABASE ${name}`));
    const url = new URL(base);
    url.pathname = `/${name}`;
    return url.toString();
  })();
  return runDatabase;
}

/** Drops this run's PostgreSQL database (root hook after all tests); a no-op on SQLite. */
export async function dropRunDatabase(): Promise<void> {
  const base = process.env.DATABASE_URL;
  if (!base || runDatabase === null) return;
  const url = new URL(await runDatabase);
  runDatabase = null;
  await withClient(base, (c) => c.query(`DROP DATABASE IF EXISTS ${url.pathname.slice(1)} WITH (FORCE)`));
}

/** Creates an isolated PostgreSQL schema when DATABASE_URL is set; a no-op on SQLite. */
export async function createTestSchema(): Promise<TestSchema> {
  const base = process.env.DATABASE_URL;
  if (!base) return { databaseUrl: null, drop: async () => {} };
  const database = await ensureRunDatabase(base);
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await withClient(database, (c) => c.query(`CREATE SCHEMA ${schema}`));
  const url = new URL(database);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    databaseUrl: url.toString(),
    async drop() {
      await withClient(database, (c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    },
  };
}

export function buildTestConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({}),
    host: '127.0.0.1',
    dataDir: ':memory:',
    logLevel: 'silent',
    confirmationKey: randomBytes(32).toString('base64url'),
    redisUrl: process.env.REDIS_URL || null,
    // Every test app counts in its own Redis keyspace: apps share the fixed demo ids.
    redisKeyPrefix: `kf-test-${randomBytes(6).toString('hex')}:`,
    // High by default so unrelated tests never trip them; limit tests override.
    authFailureLimitPerMinute: 1_000_000,
    protocolRateLimitPerMinute: 1_000_000,
    apiReadBudget: 10_000_000,
    apiWriteBudget: 10_000_000,
    shutdownGraceMs: 1_000,
    ...overrides,
  };
}

export interface TestDatabase {
  readonly db: Kysely<Database>;
  readonly dialect: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

/** A migrated database with the demo identity (and finance seed) on the dialect under test. */
export async function openTestDatabase(options: { seed?: boolean } = {}): Promise<TestDatabase> {
  const schema = await createTestSchema();
  const store = await openDatabase(buildTestConfig({ databaseUrl: schema.databaseUrl }));
  try {
    await migrateToLatest(store.db);
    // The registry's routes and handlers, as src/bootstrap.ts passes them: the demo's approval requests too.
    if (options.seed ?? true) await seedDemoData(store.db, systemClock, { routes, handlers });
  } catch (err) {
    await store.close();
    await schema.drop();
    throw err;
  }
  return {
    db: store.db,
    dialect: store.dialect,
    async close() {
      await store.close();
      await schema.drop();
    },
  };
}
