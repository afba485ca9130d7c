/**
 * Brings the schema up to date with the static migration list (kysely Migrator). Safe to run
 * from several replicas at once: the Migrator serialises with its own lock table.
 */
import { Migrator, sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { MIGRATIONS } from './migrations/index.js';
import { isPostgres } from './migrations/column-types.js';

/**
 * On PostgreSQL the Migrator looks for its tables in every schema unless told which one, so a
 * database holding several schemas (tests, shared clusters) would find another schema's
 * tables. Pin it to the connection's `current_schema()`.
 */
async function readMigrationSchema(db: Kysely<unknown>): Promise<string | undefined> {
  if (!isPostgres(db)) return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const plain = db.withoutPlugins() as Kysely<unknown>;
  const migrationTableSchema = await readMigrationSchema(plain);
  const migrator = new Migrator({
    db: plain,
    provider: { getMigrations: async () => ({ ...MIGRATIONS }) },
    ...(migrationTableSchema !== undefined ? { migrationTableSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'setup';
    throw new Error(`Database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
