/**
 * The one status vocabulary of payables and receivables, and the one "today" it is read against
 * (docs/domain.md#status-and-today). The list's `status` and `overdue` (field and filter), a
 * title's JSON, the aggregates and the cash flow all read them from here:
 * - a title is `pending`, settled (`paid` | `received`) or `cancelled` (its stored status);
 * - it is overdue when it is pending and its due date is before today: overdue is a part of
 *   pending, never a status of its own;
 * - "today" is the date on the operation's clock (`ctx.now()`, src/runtime/clock.ts) in the
 *   workspace's time zone (`workspaces.timezone`, migration 0006): at 22:00 on the 15th in São
 *   Paulo a title due on the 15th is not overdue yet, whatever the UTC date.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { OperationContext } from '../context.js';
import { dateInZone } from '../dates.js';
import { requireWorkspace } from '../records.js';

/** The status of a title still to be paid or received. */
export const OPEN_STATUS = 'pending';

/** The zone of a workspace that has none stored (the column's default). */
export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

async function readTimeZone(db: Kysely<Database>, workspaceId: string): Promise<string> {
  const row = await db.selectFrom('workspaces').select('timezone').where('id', '=', workspaceId).executeTakeFirst();
  return row?.timezone ?? DEFAULT_TIME_ZONE;
}

/** The workspace's IANA time zone. */
export function readWorkspaceTimeZone(ctx: OperationContext): Promise<string> {
  return readTimeZone(ctx.db, requireWorkspace(ctx));
}

/** The date of `instant` in the workspace's time zone, for a caller outside an operation (the prompts, on the services' clock). */
export async function readWorkspaceDate(db: Kysely<Database>, workspaceId: string, instant: Date): Promise<string> {
  return dateInZone(instant, await readTimeZone(db, workspaceId));
}

/** Today in `tz` on the operation's clock. */
export function todayIn(ctx: OperationContext, tz: string): string {
  return dateInZone(ctx.now(), tz);
}

/** Today in the workspace's time zone on the operation's clock: what `overdue` is read against. */
export async function readToday(ctx: OperationContext): Promise<string> {
  return todayIn(ctx, await readWorkspaceTimeZone(ctx));
}

/** Whether a title with this status and due date is overdue on `today`. */
export function isOverdue(status: string, dueDate: string, today: string): boolean {
  return status === OPEN_STATUS && dueDate < today;
}

/** `isOverdue` as SQL over the columns of `alias` (`r` → `r.status`, `r.due_date`; none: unqualified). */
export function overdueCondition(today: string, alias?: string): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(alias ? `${alias}.${name}` : name);
  return sql<boolean>`(${column('status')} = ${sql.lit(OPEN_STATUS)} and ${column('due_date')} < ${today})`;
}
