/**
 * A person's payment destinations (docs/security.md#payee-allowlist): the document number, the
 * Pix key and the bank account a payment to them can go to — what the payee allowlist approves,
 * one value per kind, and what editing a person takes off it.
 *
 *   readPixKey(value): string | null              // VALIDATION_ERROR (path pix_key) unless a Pix key; normalised
 *   readBankAccount(value): BankAccount | null    // VALIDATION_ERROR (path bank_account.<field>)
 *   destinationsOf(row): Destination[]            // the person's current destinations, in DESTINATION_KINDS order
 *   changedKinds(before, after): DestinationKind[]
 *   revokeDestinations(ctx, personId, kinds, cause): Promise<void>   // deletes those allowlist entries, one activity entry each
 */
import type { PayeeAllowlistTable, PeopleTable } from '../../store/schema.js';
import type { OperationContext } from '../context.js';
import { recordActivity } from '../audit.js';
import { validationError } from '../errors.js';
import { isValidCnpj, isValidCpf, normalizeDocument } from '../documents.js';
import { requireWorkspace } from '../records.js';
import { isPlainObject, isUuid } from '../../runtime/values.js';

export type DestinationKind = PayeeAllowlistTable['kind'];
export const DESTINATION_KINDS: readonly DestinationKind[] = ['document_number', 'pix_key', 'bank_account'];

/** How a refusal or a report names a kind (never its value). */
export const DESTINATION_NAMES: Readonly<Record<DestinationKind, string>> = {
  document_number: 'document number', pix_key: 'Pix key', bank_account: 'bank account',
};

export interface Destination { readonly kind: DestinationKind; readonly value: string }
export interface BankAccount { readonly bank_code: string; readonly agency: string; readonly account_number: string }
export type PaymentDetails = Pick<PeopleTable, 'document_number' | 'pix_key' | 'bank_code' | 'agency' | 'account_number'>;

/** The longest Pix key (an e-mail key: 77 characters). */
export const MAX_PIX_KEY_LENGTH = 77;
const PIX_PHONE = /^\+55\d{10,11}$/;
/**
 * An e-mail key in ASCII only: a person approves the value they read, and a look-alike letter of
 * another script (a Cyrillic `а` for a Latin `a`) would let an edited key pass for the approved one.
 */
const PIX_EMAIL = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/** A Pix key normalised as the DICT stores it (document digits, lower-case e-mail and EVP), or null when it is none. */
export function normalizePixKey(text: string): string | null {
  const value = text.trim();
  if (value.length === 0 || value.length > MAX_PIX_KEY_LENGTH) return null;
  if (PIX_PHONE.test(value)) return value;
  const lower = value.toLowerCase();
  if (isUuid(lower)) return lower;
  if (value.includes('@')) return PIX_EMAIL.test(value) ? value.toLowerCase() : null;
  const digits = normalizeDocument(value);
  return isValidCpf(digits) || isValidCnpj(digits) ? digits : null;
}

export function readPixKey(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  const key = typeof value === 'string' ? normalizePixKey(value) : null;
  if (key === null) {
    throw validationError([{ path: 'pix_key', message: 'must be a Pix key: CPF or CNPJ digits, an e-mail (ASCII letters only), a +55 phone number in E.164 or a random key (EVP)' }]);
  }
  return key;
}

const BANK_FIELDS: ReadonlyArray<readonly [keyof BankAccount, RegExp, string]> = [
  ['bank_code', /^\d{3}$/, 'must be the 3-digit bank code (COMPE)'],
  ['agency', /^\d{1,5}$/, 'must be 1 to 5 digits'],
  ['account_number', /^\d{1,20}(-[0-9X])?$/, 'must be 1 to 20 digits, optionally followed by - and a check digit'],
];

export function readBankAccount(value: unknown): BankAccount | null {
  if (value === null || value === undefined) return null;
  if (!isPlainObject(value)) throw validationError([{ path: 'bank_account', message: 'must be an object or null' }]);
  const read = (field: keyof BankAccount) => (typeof value[field] === 'string' ? String(value[field]).toUpperCase() : '');
  const issues = BANK_FIELDS.filter(([field, pattern]) => !pattern.test(read(field)))
    .map(([field, , message]) => ({ path: `bank_account.${field}`, message }));
  if (issues.length > 0) throw validationError(issues);
  return { bank_code: read('bank_code'), agency: read('agency'), account_number: read('account_number') };
}

/** The columns of a bank account (all null when none). */
export function bankAccountColumns(account: BankAccount | null): Pick<PeopleTable, 'bank_code' | 'agency' | 'account_number'> {
  return { bank_code: account?.bank_code ?? null, agency: account?.agency ?? null, account_number: account?.account_number ?? null };
}

/** The bank account of stored columns, or null unless all three are set. */
export function bankAccountOf(row: Pick<PeopleTable, 'bank_code' | 'agency' | 'account_number'>): BankAccount | null {
  if (row.bank_code === null || row.agency === null || row.account_number === null) return null;
  return { bank_code: row.bank_code, agency: row.agency, account_number: row.account_number };
}

function valueOf(row: PaymentDetails, kind: DestinationKind): string | null {
  if (kind === 'document_number') return row.document_number;
  if (kind === 'pix_key') return row.pix_key;
  const account = bankAccountOf(row);
  return account ? `${account.bank_code}/${account.agency}/${account.account_number}` : null;
}

export function destinationsOf(row: PaymentDetails): Destination[] {
  return DESTINATION_KINDS.flatMap((kind) => {
    const value = valueOf(row, kind);
    return value === null ? [] : [{ kind, value }];
  });
}

export function changedKinds(before: PaymentDetails, after: PaymentDetails): DestinationKind[] {
  return DESTINATION_KINDS.filter((kind) => valueOf(before, kind) !== valueOf(after, kind));
}

/** Why entries were taken off the list without anyone removing them. */
export type RevocationCause = 'payment_details_changed' | 'person_deleted';

/**
 * Deletes the person's allowlist entries of `kinds`, in the caller's transaction, each with an
 * activity entry under `operation` (the people write that caused it).
 */
export async function revokeDestinations(
  ctx: OperationContext, operation: string, personId: string, kinds: readonly DestinationKind[], cause: RevocationCause,
): Promise<void> {
  if (kinds.length === 0) return;
  const workspaceId = requireWorkspace(ctx);
  const entries = await ctx.db.selectFrom('payee_allowlist').select(['id', 'kind', 'value'])
    .where('workspace_id', '=', workspaceId).where('person_id', '=', personId).where('kind', 'in', [...kinds]).orderBy('id').execute();
  if (entries.length === 0) return;
  await ctx.db.deleteFrom('payee_allowlist').where('workspace_id', '=', workspaceId).where('id', 'in', entries.map((e) => e.id)).execute();
  for (const entry of entries) {
    await recordActivity(ctx, {
      operation, resource: 'payee_allowlist', recordId: entry.id,
      details: { person_id: personId, reason: cause, changes: [{ field: entry.kind, old: entry.value, new: null }] },
    });
  }
}
