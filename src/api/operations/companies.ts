/**
 * companies.list/get/create/update: the workspace's own legal entities (docs/domain.md#resources). CNPJ check
 * digits → VALIDATION_ERROR, a CNPJ already registered in the workspace → CONFLICT. The spec
 * has no delete; soft-deleted rows (deleted_at) stay invisible.
 */
import type { Selectable } from 'kysely';
import type { CompaniesTable } from '../../store/schema.js';
import type { OperationContext } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { isValidCnpj, normalizeDocument } from '../documents.js';
import { listColumns } from '../list.js';
import { auditJson, boolColumn, requireWorkspace, toBool } from '../records.js';
import { defineResource } from '../define-resource.js';


function toCompanyJson(row: Selectable<CompaniesTable>): Record<string, unknown> {
  return { id: row.id, cnpj: row.cnpj, name: row.name, trade_name: row.trade_name, active: toBool(row.active), ...auditJson(row) };
}

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

export const handlers = defineResource({
  resource: 'companies',
  label: 'Company',
  softDeleted: true,
  columns: listColumns({
    id: 'uuid', name: 'string', cnpj: 'string', trade_name: 'string', active: 'boolean', created_at: 'timestamp', updated_at: 'timestamp',
  }),
  toJson: toCompanyJson,
  create: async (ctx, body) => {
    const cnpj = parseCnpj(body['cnpj']);
    await assertCnpjFree(ctx, cnpj);
    return {
      cnpj,
      name: String(body['name']),
      trade_name: typeof body['trade_name'] === 'string' ? body['trade_name'] : null,
      active: body['active'] === undefined ? 1 : boolColumn(body['active']),
      deleted_at: null,
    };
  },
  update: async (ctx, body, current) => {
    const changes: Partial<CompaniesTable> = {};
    if (body['cnpj'] !== undefined) {
      changes.cnpj = parseCnpj(body['cnpj']);
      if (changes.cnpj !== current.cnpj) await assertCnpjFree(ctx, changes.cnpj, current.id);
    }
    if (body['name'] !== undefined) changes.name = String(body['name']);
    if (body['trade_name'] !== undefined) changes.trade_name = body['trade_name'] === null ? null : String(body['trade_name']);
    if (body['active'] !== undefined) changes.active = boolColumn(body['active']);
    return changes;
  },
});
