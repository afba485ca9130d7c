/**
 * companies.list/get/create/update: the workspace's own legal entities (docs/domain.md#resources). CNPJ check
 * digits → VALIDATION_ERROR, a CNPJ already registered in the workspace → CONFLICT. The spec
 * has no delete; soft-deleted rows (deleted_at) stay invisible.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { CompaniesTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import { isValidCnpj, normalizeDocument } from '../documents.js';
import { listRecords, readListSpec, type ListDefinition } from '../list.js';
import { auditJson, boolColumn, findInWorkspace, readBody, requireWorkspace, toBool } from '../records.js';
import { defineOperations } from '../define-operations.js';

const LABEL = 'Company';

function toCompanyJson(row: Selectable<CompaniesTable>): Record<string, unknown> {
  return { id: row.id, cnpj: row.cnpj, name: row.name, trade_name: row.trade_name, active: toBool(row.active), ...auditJson(row) };
}

const LIST: ListDefinition<'companies'> = {
  table: 'companies',
  resourceLabel: LABEL,
  columns: {
    id: { column: 'id', kind: 'uuid' },
    name: { column: 'name', kind: 'string' },
    cnpj: { column: 'cnpj', kind: 'string' },
    trade_name: { column: 'trade_name', kind: 'string' },
    active: { column: 'active', kind: 'boolean' },
    created_at: { column: 'created_at', kind: 'timestamp' },
    updated_at: { column: 'updated_at', kind: 'timestamp' },
  },
  baseWhere: (qb) => qb.where('deleted_at', 'is', null),
  toJson: (rows) => rows.map(toCompanyJson),
};

function parseCnpj(value: unknown): string {
  const digits = normalizeDocument(String(value));
  if (!isValidCnpj(digits)) throw validationError([{ path: 'cnpj', message: 'must be a valid CNPJ (14 digits with valid check digits)' }]);
  return digits;
}

async function assertCnpjFree(ctx: OperationContext, cnpj: string, exceptId?: string): Promise<void> {
  let qb = ctx.db.selectFrom('companies').select('id')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('cnpj', '=', cnpj).where('deleted_at', 'is', null);
  if (exceptId) qb = qb.where('id', '!=', exceptId);
  if (await qb.executeTakeFirst()) throw new ApiError('CONFLICT', 'A company with this CNPJ already exists in the workspace.');
}

const listCompanies: OperationHandler = async (ctx, input) => ({
  body: await listRecords(ctx, input.list, readListSpec(ctx), LIST),
});

const getCompany: OperationHandler = async (ctx, input) => {
  const row = await findInWorkspace(ctx, 'companies', input.path['id'] ?? '', LABEL, { excludeDeleted: true });
  return { body: toCompanyJson(row) };
};

const createCompany: OperationHandler = async (ctx, input) => {
  const body = readBody(input.body);
  const cnpj = parseCnpj(body['cnpj']);
  await assertCnpjFree(ctx, cnpj);
  const row: Selectable<CompaniesTable> = {
    id: randomUUID(),
    workspace_id: requireWorkspace(ctx),
    cnpj,
    name: String(body['name']),
    trade_name: typeof body['trade_name'] === 'string' ? body['trade_name'] : null,
    active: body['active'] === undefined ? 1 : boolColumn(body['active']),
    deleted_at: null,
    ...insertAudit(ctx),
  };
  await ctx.db.insertInto('companies').values(row).execute();
  await recordActivity(ctx, { operation: 'companies.create', resource: 'companies', recordId: row.id });
  return { outcome: 'created', body: toCompanyJson(row) };
};

const updateCompany: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'companies', input.path['id'] ?? '', LABEL, { excludeDeleted: true });
  const body = readBody(input.body);
  const changes: Partial<CompaniesTable> = {};
  if (body['cnpj'] !== undefined) {
    changes.cnpj = parseCnpj(body['cnpj']);
    if (changes.cnpj !== current.cnpj) await assertCnpjFree(ctx, changes.cnpj, current.id);
  }
  if (body['name'] !== undefined) changes.name = String(body['name']);
  if (body['trade_name'] !== undefined) changes.trade_name = body['trade_name'] === null ? null : String(body['trade_name']);
  if (body['active'] !== undefined) changes.active = boolColumn(body['active']);
  await ctx.db.updateTable('companies').set({ ...changes, ...updateAudit(ctx) })
    .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
  await recordActivity(ctx, { operation: 'companies.update', resource: 'companies', recordId: current.id });
  const row = await findInWorkspace(ctx, 'companies', current.id, LABEL);
  return { body: toCompanyJson(row) };
};

export const handlers = defineOperations({
  'companies.list': listCompanies,
  'companies.get': getCompany,
  'companies.create': createCompany,
  'companies.update': updateCompany,
});
