/**
 * seedDemoData: the demo organization, people and finance records on a fresh database.
 * Idempotent — an existing demo organization means the seed already ran. Identity lives in
 * `identity.ts`; finance records in `finance.ts` (the money helper's).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { hasDemoIdentity, seedIdentity } from './identity.js';
import { seedFinanceDemo } from './finance.js';
import { clockDate, systemClock, type Clock } from '../runtime/clock.js';

/** `clock`: the services' clock (src/runtime/clock.ts): the records' `created_at` and the finance records' "today". */
export async function seedDemoData(db: Kysely<Database>, clock: Clock = systemClock): Promise<void> {
  const now = clockDate(clock);
  const seeded = await db.transaction().execute(async (trx) => {
    if (await hasDemoIdentity(trx)) return false;
    await seedIdentity(trx, now.toISOString());
    return true;
  });
  if (seeded) await seedFinanceDemo(db, now);
}
