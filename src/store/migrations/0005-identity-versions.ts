/**
 * `identity_versions`: one counter per organization that the database itself increments, in
 * the same transaction, on every change to what a caller is allowed — a membership (status,
 * admin flag, permissions), its granted workspaces, the organization's workspaces, and a
 * workspace's Seguridad settings. Replicas cache a caller's membership (src/auth/caller.ts)
 * together with the version it was read at, and use it only while the version is unchanged, so
 * a revoked permission is never served from a cache, whichever replica or tool made the change
 * (there is no API for memberships: the panel, operators and tests write them directly, which
 * is why these are triggers and not application code).
 *
 * A row is created with its organization (and backfilled here); an organization without one
 * is never cached (src/auth/caller.ts), so a row lost by a restore with triggers disabled costs
 * speed, not correctness.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './column-types.js';

/** The tables whose changes bump a version, and how a row names its organization. */
const WATCHED: readonly { readonly table: string; readonly organization: (row: 'new' | 'old') => string }[] = [
  { table: 'memberships', organization: (row) => `${row}.organization_id` },
  { table: 'workspaces', organization: (row) => `${row}.organization_id` },
  { table: 'membership_workspaces', organization: (row) => `(select organization_id from workspaces where id = ${row}.workspace_id)` },
  { table: 'security_settings', organization: (row) => `(select organization_id from workspaces where id = ${row}.workspace_id)` },
];

function bump(organization: string): string {
  return `update identity_versions set version = version + 1 where organization_id = ${organization};`;
}

async function createSqliteTriggers(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`create trigger organizations_identity_version after insert on organizations begin
    insert or ignore into identity_versions (organization_id, version) values (new.id, 0); end`).execute(db);
  for (const { table, organization } of WATCHED) {
    await sql.raw(`create trigger ${table}_identity_version_insert after insert on ${table} begin ${bump(organization('new'))} end`).execute(db);
    await sql.raw(`create trigger ${table}_identity_version_delete after delete on ${table} begin ${bump(organization('old'))} end`).execute(db);
    await sql.raw(`create trigger ${table}_identity_version_update after update on ${table} begin
      ${bump(organization('old'))} ${bump(organization('new'))} end`).execute(db);
  }
}

async function createPostgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql.raw(`create function organizations_identity_version() returns trigger language plpgsql as $$
    begin insert into identity_versions (organization_id, version) values (new.id, 0) on conflict do nothing; return null; end $$`).execute(db);
  await sql.raw(`create trigger organizations_identity_version after insert on organizations
    for each row execute function organizations_identity_version()`).execute(db);
  // TRUNCATE fires no row trigger: it bumps every organization.
  await sql.raw(`create function identity_versions_truncate() returns trigger language plpgsql as $$
    begin update identity_versions set version = version + 1; return null; end $$`).execute(db);
  for (const { table, organization } of WATCHED) {
    await sql.raw(`create trigger ${table}_identity_version_truncate after truncate on ${table}
      for each statement execute function identity_versions_truncate()`).execute(db);
    await sql.raw(`create function ${table}_identity_version() returns trigger language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then ${bump(organization('old'))} end if;
        if tg_op in ('INSERT', 'UPDATE') then ${bump(organization('new'))} end if;
        return null;
      end $$`).execute(db);
    await sql.raw(`create trigger ${table}_identity_version after insert or update or delete on ${table}
      for each row execute function ${table}_identity_version()`).execute(db);
  }
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('identity_versions')
    .addColumn('organization_id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into identity_versions (organization_id, version) select id, 0 from organizations`.execute(db);
  await (isPostgres(db) ? createPostgresTriggers(db) : createSqliteTriggers(db));
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db);
  for (const table of ['organizations', ...WATCHED.map((w) => w.table)]) {
    if (postgres) {
      await sql.raw(`drop trigger if exists ${table}_identity_version_truncate on ${table}`).execute(db);
      await sql.raw(`drop trigger if exists ${table}_identity_version on ${table}`).execute(db);
      await sql.raw(`drop function if exists ${table}_identity_version()`).execute(db);
    } else {
      for (const suffix of table === 'organizations' ? [''] : ['_insert', '_delete', '_update']) {
        await sql.raw(`drop trigger if exists ${table}_identity_version${suffix}`).execute(db);
      }
    }
  }
  if (postgres) await sql.raw('drop function if exists identity_versions_truncate()').execute(db);
  await db.schema.dropTable('identity_versions').ifExists().execute();
}
