/**
 * seedDemoData: the demo organization, people and finance records on a fresh database.
 * Idempotent — an existing demo organization means the seed already ran. Identity lives in
 * `identity.ts`; finance records in `finance.ts` (the money helper's); the pending approval
 * requests in `approvals.ts`, made through the operations' own code, hence `sources`.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { DescriberSources } from '../api/index.js';
import { hasDemoIdentity, seedIdentity } from './identity.js';
import { seedFinanceDemo } from './finance.js';
import { seedDemoApprovals } from './approvals.js';
import { clockDate, systemClock, type Clock } from '../runtime/clock.js';

/**
 * `clock`: the services' clock (src/runtime/clock.ts): the records' `created_at` and the finance records' "today".
 * `sources`: the generated routes and handlers (src/bootstrap.ts passes its registry's), which the
 * approval requests are made with; without them (the token command) the demo has none.
 */
export async function seedDemoData(db: Kysely<Database>, clock: Clock = systemClock, sources?: DescriberSources): Promise<void> {
  const now = clockDate(clock);
  const seeded = await db.transaction().execute(async (trx) => {
    if (await hasDemoIdentity(trx)) return false;
    await seedIdentity(trx, now.toISOString());
    return true;
  });
  if (!seeded) return;
  await seedFinanceDemo(db, now);
  if (sources) await seedDemoApprovals(db, now, sources);
}
