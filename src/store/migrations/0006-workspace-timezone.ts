/**
 * `workspaces.timezone`: the IANA time zone the workspace keeps its books in. It decides which
 * date is "today" for the cash-flow projection (realised vs projected vs overdue) when a call
 * names no `tz` (docs/domain.md#cash-flow). Brazilian companies by default.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('timezone', 'text', (c) => c.notNull().defaultTo('America/Sao_Paulo')).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table workspaces drop column timezone`.execute(db);
}
