/**
 * Bills from their codes (issue 30 item 1; docs/domain.md#bills-from-their-codes): a payable
 * recorded from a boleto or a Pix BR Code keeps the code it was read from.
 * - `titles.payment_code_kind`: `boleto` | `utility` | `pix_static` | `pix_dynamic`, null for a
 *   title typed by hand.
 * - `titles.payment_code`: the boleto's 44-digit barcode, or the BR Code payload as read
 *   (src/api/codes/pix.ts `payload`).
 * - `titles.payment_code_key`: the identity of ONE payment, null when the code names none: the
 *   barcode of a boleto, `pix:<txid>` for a Pix code with a txid (not `***`).
 * - `titles.payment_code_details`: JSON of what the decoder read when the payable was recorded
 *   (barcode, digitable_line, payload, pix_key, txid, location): the payable's `payment_code`,
 *   read back as stored (the JSON of a title is built in src/api/rules, which may not depend on
 *   the decoders of src/api/codes; a recorded code never changes).
 * A partial UNIQUE index on (workspace_id, payment_code_key) over titles that are not cancelled
 * refuses recording one payment twice in a workspace even under a race (the operation's
 * pre-check names the existing payable; the index is the backstop), while a cancelled title's
 * code can be recorded again. Both dialects accept the partial index (as migration 0002's).
 */
import { sql, type Kysely } from 'kysely';

const COLUMNS = ['payment_code_kind', 'payment_code', 'payment_code_key', 'payment_code_details'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('titles').addColumn(column, 'text').execute();
  await db.schema.createIndex('titles_ws_payment_code_key_unique').on('titles').columns(['workspace_id', 'payment_code_key']).unique()
    .where((eb) => eb.and([eb(sql.ref('payment_code_key'), 'is not', null), eb(sql.ref('status'), '<>', sql.lit('cancelled'))]))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('titles_ws_payment_code_key_unique').ifExists().execute();
  for (const column of [...COLUMNS].reverse()) await sql`alter table titles drop column ${sql.ref(column)}`.execute(db);
}
