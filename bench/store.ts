/**
 * The store's share of one read, in process, without HTTP: the statements of a
 * `finance_payables_get` (the identity-version lookup and the one-query title read) run in a
 * loop on Kysely configured several ways, so each change of issue 18 is measured on its own:
 *
 *   SQLite: statements prepared on every query (Kysely's stock driver) or cached by SQL text
 *   (src/store/statement-cache.ts); the workspace guard walking every execution's tree or once
 *   per SQL text (src/store/workspace-guard.ts); and the get as it was (the title read twice,
 *   then allocations and attachment counts: 4 finance queries + 2 membership queries) against
 *   now (1 + 1).
 *   PostgreSQL (with DATABASE_URL): unnamed statements (what Kysely's pg driver sends) against
 *   named prepared statements (`client.query({name, text, values})`), parsed once per connection.
 *
 * Reports µs per get, wall and this process's CPU, one get at a time; the variants run in turn
 * three times and the medians are shown. Usage:
 *   node --import tsx bench/store.ts [--iterations 20000]
 *   DATABASE_URL=postgres://… node --import tsx bench/store.ts
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, type Dialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type { Database } from '../src/store/schema.js';
import { createWorkspaceGuard } from '../src/store/workspace-guard.js';
import { cacheStatements } from '../src/store/statement-cache.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { seedDemoData } from '../src/seed/index.js';
import { DEMO } from '../src/seed/ids.js';
import { findTitle, readTitleJson, toTitleJsonBatch, PAYABLES } from '../src/api/rules/title-records.js';
import { readToday } from '../src/api/rules/title-status.js';
import { loadCaller } from '../src/auth/caller.js';
import type { OperationContext } from '../src/api/context.js';
import type { Caller } from '../src/identity/caller.js';
import { createDeadline } from '../src/runtime/deadline.js';
import { systemClock } from '../src/runtime/clock.js';

const { values } = parseArgs({ options: { iterations: { type: 'string', default: '20000' } } });
const iterations = Number(values.iterations);

function openKysely(dialect: Dialect, guardCached: boolean): Kysely<Database> {
  const guard = createWorkspaceGuard(guardCached ? undefined : 0);
  return new Kysely<Database>({ dialect: guard.guardDialect(dialect), plugins: [guard.plugin] });
}

const identity = {
  personId: DEMO.persons.ana, organizationId: DEMO.organizationId, scopes: new Set(['finance.all.write']),
  tokenType: 'personal' as const, tokenId: 'bench', expiresAt: 0,
};

async function getNow(db: Kysely<Database>, caller: Caller, id: string): Promise<void> {
  await db.selectFrom('identity_versions').select('version').where('organization_id', '=', DEMO.organizationId).executeTakeFirst();
  const ctx: OperationContext = { caller, workspaceId: DEMO.workspaces.matriz, db, now: () => new Date() , deadline: createDeadline(systemClock, 10_000), bounds: null };
  await readTitleJson(ctx, PAYABLES, id);
}

/** The get before issue 18: membership + workspaces, the title twice, allocations, attachment counts. */
async function getBefore(db: Kysely<Database>, _caller: Caller, id: string): Promise<void> {
  const caller = await loadCaller(db, identity, 'mcp');
  const ctx: OperationContext = { caller, workspaceId: DEMO.workspaces.matriz, db, now: () => new Date() , deadline: createDeadline(systemClock, 10_000), bounds: null };
  const first = await findTitle(ctx, PAYABLES, id);
  const row = await findTitle(ctx, PAYABLES, first.id);
  await toTitleJsonBatch(ctx, 'payable', [row], await readToday(ctx));
}

type Get = (db: Kysely<Database>, caller: Caller, id: string) => Promise<void>;

interface Timing { readonly wallUs: number; readonly cpuUs: number }

/** µs per get, wall and this process's CPU (less sensitive to other processes on a shared machine). */
async function time(db: Kysely<Database>, get: Get, caller: Caller, id: string): Promise<Timing> {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let i = 0; i < iterations; i += 1) await get(db, caller, id);
  const used = process.cpuUsage(cpu);
  return { wallUs: Number(process.hrtime.bigint() - started) / 1_000 / iterations, cpuUs: (used.user + used.system) / iterations };
}

const ROUNDS = 3;

interface Variant { readonly label: string; readonly db: Kysely<Database>; readonly get: Get; readonly caller: Caller; readonly id: string }

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Warms every variant up, then runs them in turn ROUNDS times (drift of the machine's load hits all alike); medians. */
async function measure(variants: readonly Variant[]): Promise<string[]> {
  for (const v of variants) for (let i = 0; i < Math.min(2_000, iterations); i += 1) await v.get(v.db, v.caller, v.id);
  const timings = variants.map((): Timing[] => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [index, v] of variants.entries()) timings[index]?.push(await time(v.db, v.get, v.caller, v.id));
  }
  return variants.map((v, index) => {
    const t = timings[index] as Timing[];
    return `| ${v.label} | ${median(t.map((x) => x.wallUs)).toFixed(0)} | ${median(t.map((x) => x.cpuUs)).toFixed(0)} |`;
  });
}

async function prepare(db: Kysely<Database>): Promise<{ caller: Caller; id: string }> {
  const caller = await loadCaller(db, identity, 'mcp');
  const row = await db.selectFrom('titles').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable')
    .orderBy('id').executeTakeFirstOrThrow();
  return { caller, id: row.id };
}

async function benchSqlite(): Promise<string[]> {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kobana-bench-store-')), 'kobana.sqlite');
  const setup = openKysely(new SqliteDialect({ database: new SqliteDatabase(file) }), true);
  await migrateToLatest(setup);
  await seedDemoData(setup);
  await setup.destroy();
  const variants: { name: string; statementsCached: boolean; guardCached: boolean; get: Get }[] = [
    { name: 'get as before (6 queries), prepare every query, guard every execution', statementsCached: false, guardCached: false, get: getBefore },
    { name: 'get now (2 queries), prepare every query, guard every execution', statementsCached: false, guardCached: false, get: getNow },
    { name: 'get now, statements cached, guard every execution', statementsCached: true, guardCached: false, get: getNow },
    { name: 'get now, prepare every query, guard once per SQL text', statementsCached: false, guardCached: true, get: getNow },
    { name: 'get now, statements cached, guard once per SQL text (as shipped)', statementsCached: true, guardCached: true, get: getNow },
  ];
  const opened: Variant[] = [];
  for (const v of variants) {
    const database = new SqliteDatabase(file);
    database.pragma('journal_mode = WAL');
    const db = openKysely(new SqliteDialect({ database: v.statementsCached ? cacheStatements(database) : database }), v.guardCached);
    opened.push({ label: `SQLite | ${v.name}`, db, get: v.get, ...await prepare(db) });
  }
  const lines = await measure(opened);
  for (const v of opened) await v.db.destroy();
  return lines;
}

/** Kysely's pg pool interface over pg.Pool, optionally naming every statement (pg then parses it once per connection). */
function poolOf(pool: pg.Pool, named: boolean): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      const query = (text: string, parameters: readonly unknown[]) => (named
        ? client.query({ name: createHash('sha1').update(text).digest('base64url'), text, values: [...parameters] })
        : client.query(text, [...parameters]));
      return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
    },
    end: () => pool.end(),
  };
}

async function benchPostgres(url: string): Promise<string[]> {
  const schema = `bench_store_${process.pid}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  await admin.query(`create schema ${schema}`);
  const options = `-c search_path=${schema}`;
  const lines: string[] = [];
  try {
    const setup = openKysely(new PostgresDialect({ pool: poolOf(new pg.Pool({ connectionString: url, options, max: 1 }), false) }), true);
    await migrateToLatest(setup);
    await seedDemoData(setup);
    await setup.destroy();
    const opened: Variant[] = [];
    for (const named of [false, true]) {
      const db = openKysely(new PostgresDialect({ pool: poolOf(new pg.Pool({ connectionString: url, options, max: 1 }), named) }), true);
      opened.push({ label: `PostgreSQL | get now, ${named ? 'named prepared statements' : 'unnamed statements (Kysely default)'}`, db, get: getNow, ...await prepare(db) });
    }
    lines.push(...await measure(opened));
    for (const v of opened) await v.db.destroy();
  } finally {
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  }
  return lines;
}

async function main(): Promise<void> {
  const lines = ['| database | variant | wall µs per get | CPU µs per get (this process) |', '|---|---|---:|---:|', ...await benchSqlite()];
  if (process.env.DATABASE_URL) lines.push(...await benchPostgres(process.env.DATABASE_URL));
  console.log(`${new Date().toISOString()} · node ${process.version} · load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} · ${iterations} gets per variant\n`);
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
