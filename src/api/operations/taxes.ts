/**
 * taxes.*: withholding taxes with a `default_rate` (a percentage kept as decimal text, never a
 * float). Names are unique within the workspace (case-insensitive) → else CONFLICT.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { TaxesTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import { listRecords, readListSpec, type ListDefinition } from '../list.js';
import { auditJson, boolColumn, findInWorkspace, readBody, requireWorkspace, toBool } from '../records.js';
import { defineOperations } from '../define-operations.js';

const LABEL = 'Tax';
const RATE = /^(\d{1,3})(?:\.(\d{1,2}))?$/;

function toTaxJson(row: Selectable<TaxesTable>): Record<string, unknown> {
  return { id: row.id, name: row.name, default_rate: row.default_rate, active: toBool(row.active), ...auditJson(row) };
}

/** "5" / 5 / "4.65" → "5.00" / "4.65": a percentage 0–100 with up to 2 decimals, parsed as text (no floats). */
function parseRate(value: unknown): string {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : '';
  const match = RATE.exec(text);
  const invalid = validationError([{ path: 'default_rate', message: 'must be a percentage from 0 to 100 with at most 2 decimal places' }]);
  if (!match) throw invalid;
  const whole = Number(match[1]);
  const fraction = (match[2] ?? '').padEnd(2, '0');
  if (whole > 100 || (whole === 100 && /[1-9]/.test(fraction))) throw invalid;
  return `${whole}.${fraction}`;
}

const LIST: ListDefinition<'taxes'> = {
  table: 'taxes',
  resourceLabel: LABEL,
  columns: {
    id: { column: 'id', kind: 'uuid' },
    name: { column: 'name', kind: 'string' },
    active: { column: 'active', kind: 'boolean' },
    created_at: { column: 'created_at', kind: 'timestamp' },
    updated_at: { column: 'updated_at', kind: 'timestamp' },
  },
  toJson: (rows) => rows.map(toTaxJson),
};

async function assertNameFree(ctx: OperationContext, name: string, exceptId?: string): Promise<void> {
  let qb = ctx.db.selectFrom('taxes').select('id')
    .where('workspace_id', '=', requireWorkspace(ctx)).where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId) qb = qb.where('id', '!=', exceptId);
  if (await qb.executeTakeFirst()) throw new ApiError('CONFLICT', 'A tax with this name already exists in the workspace.');
}

const listTaxes: OperationHandler = async (ctx, input) => ({
  body: await listRecords(ctx, input.list, readListSpec(ctx), LIST),
});

const getTax: OperationHandler = async (ctx, input) => ({
  body: toTaxJson(await findInWorkspace(ctx, 'taxes', input.path['id'] ?? '', LABEL)),
});

const createTax: OperationHandler = async (ctx, input) => {
  const body = readBody(input.body);
  const name = String(body['name']).trim();
  const rate = parseRate(body['default_rate']);
  await assertNameFree(ctx, name);
  const row: Selectable<TaxesTable> = {
    id: randomUUID(),
    workspace_id: requireWorkspace(ctx),
    name,
    default_rate: rate,
    active: body['active'] === undefined ? 1 : boolColumn(body['active']),
    ...insertAudit(ctx),
  };
  await ctx.db.insertInto('taxes').values(row).execute();
  await recordActivity(ctx, { operation: 'taxes.create', resource: 'taxes', recordId: row.id });
  return { outcome: 'created', body: toTaxJson(row) };
};

const updateTax: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'taxes', input.path['id'] ?? '', LABEL);
  const body = readBody(input.body);
  const changes: Partial<TaxesTable> = {};
  if (body['name'] !== undefined) {
    changes.name = String(body['name']).trim();
    await assertNameFree(ctx, changes.name, current.id);
  }
  if (body['default_rate'] !== undefined) changes.default_rate = parseRate(body['default_rate']);
  if (body['active'] !== undefined) changes.active = boolColumn(body['active']);
  await ctx.db.updateTable('taxes').set({ ...changes, ...updateAudit(ctx) })
    .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
  await recordActivity(ctx, { operation: 'taxes.update', resource: 'taxes', recordId: current.id });
  return { body: toTaxJson(await findInWorkspace(ctx, 'taxes', current.id, LABEL)) };
};

const deleteTax: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'taxes', input.path['id'] ?? '', LABEL);
  await ctx.db.deleteFrom('taxes').where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
  await recordActivity(ctx, { operation: 'taxes.delete', resource: 'taxes', recordId: current.id });
  return { outcome: 'deleted' };
};

export const handlers = defineOperations({
  'taxes.list': listTaxes,
  'taxes.get': getTax,
  'taxes.create': createTax,
  'taxes.update': updateTax,
  'taxes.delete': deleteTax,
});
