/**
 * people.*: vendors and customers. `document_number` is a CPF (natural, 11 digits) or CNPJ
 * (juridical, 14 digits) with valid check digits → else VALIDATION_ERROR; a document already
 * used in the workspace → CONFLICT. Delete is soft (deleted_at): hidden from list and get.
 * Payment details (`pix_key`, `bank_account`: src/api/money/destinations.ts): an update that
 * changes a destination (document number, Pix key, bank account), and a delete, take the person's
 * entries of that kind off the payee allowlist in the same transaction (docs/security.md#payee-allowlist).
 */
import type { Selectable } from 'kysely';
import type { PeopleTable } from '../../store/schema.js';
import type { OperationContext } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { isValidCnpj, isValidCpf, normalizeDocument } from '../documents.js';
import { listColumns } from '../list.js';
import { auditJson, boolColumn, lockRow, requireWorkspace, toBool } from '../records.js';
import { defineResource } from '../define-resource.js';
import { defineOperations } from '../define-operations.js';
import {
  bankAccountColumns, bankAccountOf, changedKinds, DESTINATION_KINDS, readBankAccount, readPixKey, revokeDestinations,
} from '../money/destinations.js';

type PersonRow = Selectable<PeopleTable>;

function parseEmails(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

function toPersonJson(row: PersonRow): Record<string, unknown> {
  return {
    id: row.id, name: row.name, kind: row.kind, document_number: row.document_number,
    is_customer: toBool(row.is_customer), is_supplier: toBool(row.is_supplier), emails: parseEmails(row.emails),
    pix_key: row.pix_key, bank_account: bankAccountOf(row),
    ...auditJson(row),
  };
}

/** CPF for natural persons, CNPJ for juridical ones; the kind decides which is expected. */
function parseDocument(value: unknown, kind: PeopleTable['kind']): string | null {
  if (value === null || value === undefined || value === '') return null;
  const digits = normalizeDocument(String(value));
  const valid = kind === 'natural' ? isValidCpf(digits) : isValidCnpj(digits);
  if (!valid) {
    const message = kind === 'natural' ? 'must be a valid CPF (11 digits with valid check digits)' : 'must be a valid CNPJ (14 digits with valid check digits)';
    throw validationError([{ path: 'document_number', message }]);
  }
  return digits;
}

async function assertDocumentFree(ctx: OperationContext, document: string | null, exceptId?: string): Promise<void> {
  if (document === null) return;
  let qb = ctx.db.selectFrom('people').select('id')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('document_number', '=', document).where('deleted_at', 'is', null);
  if (exceptId) qb = qb.where('id', '!=', exceptId);
  if (await qb.executeTakeFirst()) throw new ApiError('CONFLICT', 'A person with this document number already exists in the workspace.');
}

function readEmails(value: unknown): string {
  return JSON.stringify(Array.isArray(value) ? value.map(String) : []);
}

function updateColumns(body: Record<string, unknown>): Partial<PeopleTable> {
  const changes: Partial<PeopleTable> = {};
  if (body['name'] !== undefined) changes.name = String(body['name']);
  if (body['is_customer'] !== undefined) changes.is_customer = boolColumn(body['is_customer']);
  if (body['is_supplier'] !== undefined) changes.is_supplier = boolColumn(body['is_supplier']);
  if (body['emails'] !== undefined) changes.emails = readEmails(body['emails']);
  if (body['pix_key'] !== undefined) changes.pix_key = readPixKey(body['pix_key']);
  if (body['bank_account'] !== undefined) Object.assign(changes, bankAccountColumns(readBankAccount(body['bank_account'])));
  return changes;
}

/** The update's changes; a changed destination leaves the payee allowlist (the row locked first, so an approval running beside it is seen). */
async function updatePerson(ctx: OperationContext, body: Record<string, unknown>, current: PersonRow): Promise<Partial<PeopleTable>> {
  const changes: Partial<PeopleTable> = {};
  const kind = (body['kind'] ?? current.kind) as PeopleTable['kind'];
  if (body['kind'] !== undefined) changes.kind = kind;
  // A kind change re-checks the stored document against the new kind's rules.
  if (body['document_number'] !== undefined || body['kind'] !== undefined) {
    const document = parseDocument(body['document_number'] !== undefined ? body['document_number'] : current.document_number, kind);
    if (document !== current.document_number) await assertDocumentFree(ctx, document, current.id);
    changes.document_number = document;
  }
  const all = { ...changes, ...updateColumns(body) };
  const changed = changedKinds(current, { ...current, ...all });
  if (changed.length > 0) {
    await lockRow(ctx, 'people', current.id, 'update');
    await revokeDestinations(ctx, 'people.update', current.id, changed, 'payment_details_changed');
  }
  return all;
}

const resource = defineResource({
  resource: 'people',
  label: 'Person',
  softDeleted: true,
  columns: listColumns({
    id: 'uuid', name: 'string', kind: 'string', document_number: 'string', is_customer: 'boolean', is_supplier: 'boolean',
    created_at: 'timestamp', updated_at: 'timestamp',
  }),
  toJson: toPersonJson,
  create: async (ctx, body) => {
    const kind = String(body['kind'] ?? 'juridical') as PeopleTable['kind'];
    const document = parseDocument(body['document_number'], kind);
    await assertDocumentFree(ctx, document);
    return {
      name: String(body['name']),
      kind,
      document_number: document,
      is_customer: boolColumn(body['is_customer']),
      is_supplier: boolColumn(body['is_supplier']),
      emails: readEmails(body['emails']),
      deleted_at: null,
      pix_key: readPixKey(body['pix_key']),
      ...bankAccountColumns(readBankAccount(body['bank_account'])),
    };
  },
  update: updatePerson,
  // Soft delete: payables and receivables keep pointing at the person (docs/domain.md#resources).
  delete: 'soft',
});

const softDelete = resource['people.delete'];

export const handlers = defineOperations({
  ...resource,
  // A deleted person is paid nothing: every destination of theirs leaves the allowlist with them.
  'people.delete': async (ctx, input) => {
    if (!softDelete) throw new Error('people.delete is not defined');
    const output = await softDelete(ctx, input);
    await revokeDestinations(ctx, 'people.delete', input.path['id'] ?? '', DESTINATION_KINDS, 'person_deleted');
    return output;
  },
});
