/**
 * Brings the schema up to date with the static migration list (kysely Migrator). Safe to run
 * from several replicas at once: the Migrator serialises with its own lock table.
 */
import { Migrator, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { MIGRATIONS } from './migrations/index.js';

export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({
    db: db.withoutPlugins() as Kysely<unknown>,
    provider: { getMigrations: async () => ({ ...MIGRATIONS }) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
