/**
 * The embedded OAuth authorization server's state (src/oauth/adapter.ts): registered clients,
 * grants, sessions, interactions, authorization codes and refresh tokens, one row per
 * oidc-provider model instance. In the database so every replica sees the same state and a
 * restart keeps clients logged in. Identity/infrastructure, not finance: no workspace.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('oauth_records')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    /** The model's payload as JSON text. */
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('consumed_at', 'text')
    .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id'])
    .execute();
  await db.schema.createIndex('oauth_records_grant').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_uid').on('oauth_records').columns(['model', 'uid']).execute();
  await db.schema.createIndex('oauth_records_expires').on('oauth_records').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_records').ifExists().execute();
}
