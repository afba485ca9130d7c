/**
 * The embedded Account's signing keys in the database, so replicas on one PostgreSQL share them
 * (src/auth/account-key.ts), and `shared_secrets` for the other key they must agree on (the
 * confirmation key, src/confirmation/key.ts). Identity/infrastructure tables, not finance ones:
 * no workspace. At most one signing key is current (`retired_at` null), enforced by a partial
 * unique index, so replicas starting at once each insert a candidate and all read back the one
 * that won; a secret's name is its primary key, to the same effect.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('account_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    /** The private JWK (JSON text), as the data folder's `account-key.json` holds it on SQLite. */
    .addColumn('private_jwk', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    /** Set when the key stops signing; it still verifies until its row is deleted. */
    .addColumn('retired_at', 'text')
    .execute();
  await db.schema.createIndex('account_keys_one_current').on('account_keys')
    .unique().expression(sql`(retired_at is null)`).where(sql.ref('retired_at'), 'is', null)
    .execute();
  await db.schema.createTable('shared_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('shared_secrets').ifExists().execute();
  await db.schema.dropTable('account_keys').ifExists().execute();
}
