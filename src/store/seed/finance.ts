/**
 * Seeds the finance demo data (DOMAIN.md "Demo data"). Stub until filled in.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export async function seedFinanceDemo(_db: Kysely<Database>): Promise<void> {
  // filled in by the money helper
}
