/** STUB */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
export async function migrateToLatest(_db: Kysely<Database>): Promise<void> {}
