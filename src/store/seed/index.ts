/** STUB */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
export async function seedDemoData(_db: Kysely<Database>): Promise<void> {}
