/**
 * people.*: vendors and customers. `document_number` is a CPF (natural, 11 digits) or CNPJ
 * (juridical, 14 digits) with valid check digits → else VALIDATION_ERROR; a document already
 * used in the workspace → CONFLICT. Delete is soft (deleted_at): hidden from list and get.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { PeopleTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import { isValidCnpj, isValidCpf, normalizeDocument } from '../documents.js';
import { listRecords, readListSpec, type ListDefinition } from '../list.js';
import { auditJson, boolColumn, findInWorkspace, readBody, requireWorkspace, toBool } from '../records.js';
import { defineOperations } from '../define-operations.js';

const LABEL = 'Person';
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
    ...auditJson(row),
  };
}

const LIST: ListDefinition<'people'> = {
  table: 'people',
  resourceLabel: LABEL,
  columns: {
    id: { column: 'id', kind: 'uuid' },
    name: { column: 'name', kind: 'string' },
    kind: { column: 'kind', kind: 'string' },
    document_number: { column: 'document_number', kind: 'string' },
    is_customer: { column: 'is_customer', kind: 'boolean' },
    is_supplier: { column: 'is_supplier', kind: 'boolean' },
    created_at: { column: 'created_at', kind: 'timestamp' },
    updated_at: { column: 'updated_at', kind: 'timestamp' },
  },
  baseWhere: (qb) => qb.where('deleted_at', 'is', null),
  toJson: (rows) => rows.map(toPersonJson),
};

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

const listPeople: OperationHandler = async (ctx, input) => ({
  body: await listRecords(ctx, input.list, readListSpec(ctx), LIST),
});

const getPerson: OperationHandler = async (ctx, input) => ({
  body: toPersonJson(await findInWorkspace(ctx, 'people', input.path['id'] ?? '', LABEL, { excludeDeleted: true })),
});

const createPerson: OperationHandler = async (ctx, input) => {
  const body = readBody(input.body);
  const kind = String(body['kind'] ?? 'juridical') as PeopleTable['kind'];
  const document = parseDocument(body['document_number'], kind);
  await assertDocumentFree(ctx, document);
  const row: PersonRow = {
    id: randomUUID(),
    workspace_id: requireWorkspace(ctx),
    name: String(body['name']),
    kind,
    document_number: document,
    is_customer: boolColumn(body['is_customer']),
    is_supplier: boolColumn(body['is_supplier']),
    emails: readEmails(body['emails']),
    deleted_at: null,
    ...insertAudit(ctx),
  };
  await ctx.db.insertInto('people').values(row).execute();
  await recordActivity(ctx, { operation: 'people.create', resource: 'people', recordId: row.id });
  return { outcome: 'created', body: toPersonJson(row) };
};

const updatePerson: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'people', input.path['id'] ?? '', LABEL, { excludeDeleted: true });
  const body = readBody(input.body);
  const changes: Partial<PeopleTable> = {};
  const kind = (body['kind'] ?? current.kind) as PeopleTable['kind'];
  if (body['kind'] !== undefined) changes.kind = kind;
  // A kind change re-checks the stored document against the new kind's rules.
  if (body['document_number'] !== undefined || body['kind'] !== undefined) {
    const document = parseDocument(body['document_number'] !== undefined ? body['document_number'] : current.document_number, kind);
    if (document !== current.document_number) await assertDocumentFree(ctx, document, current.id);
    changes.document_number = document;
  }
  if (body['name'] !== undefined) changes.name = String(body['name']);
  if (body['is_customer'] !== undefined) changes.is_customer = boolColumn(body['is_customer']);
  if (body['is_supplier'] !== undefined) changes.is_supplier = boolColumn(body['is_supplier']);
  if (body['emails'] !== undefined) changes.emails = readEmails(body['emails']);
  await ctx.db.updateTable('people').set({ ...changes, ...updateAudit(ctx) })
    .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
  await recordActivity(ctx, { operation: 'people.update', resource: 'people', recordId: current.id });
  return { body: toPersonJson(await findInWorkspace(ctx, 'people', current.id, LABEL)) };
};

const deletePerson: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'people', input.path['id'] ?? '', LABEL, { excludeDeleted: true });
  // Soft delete: payables and receivables keep pointing at the person (docs/domain.md#resources).
  await ctx.db.updateTable('people').set({ deleted_at: ctx.now().toISOString(), ...updateAudit(ctx) })
    .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
  await recordActivity(ctx, { operation: 'people.delete', resource: 'people', recordId: current.id });
  return { outcome: 'deleted' };
};

export const handlers = defineOperations({
  'people.list': listPeople,
  'people.get': getPerson,
  'people.create': createPerson,
  'people.update': updatePerson,
  'people.delete': deletePerson,
});
