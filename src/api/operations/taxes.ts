/**
 * taxes.*: withholding taxes with a `default_rate` (a percentage kept as decimal text, never a
 * float). Names are unique within the workspace (case-insensitive) → else CONFLICT.
 */
import { sql, type Selectable } from 'kysely';
import type { TaxesTable } from '../../store/schema.js';
import type { OperationContext } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { listColumns } from '../list.js';
import { auditJson, boolColumn, requireWorkspace, toBool } from '../records.js';
import { defineResource } from '../define-resource.js';

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

async function assertNameFree(ctx: OperationContext, name: string, exceptId?: string): Promise<void> {
  let qb = ctx.db.selectFrom('taxes').select('id')
    .where('workspace_id', '=', requireWorkspace(ctx)).where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId) qb = qb.where('id', '!=', exceptId);
  if (await qb.executeTakeFirst()) throw new ApiError('CONFLICT', 'A tax with this name already exists in the workspace.');
}

export const handlers = defineResource({
  resource: 'taxes',
  label: 'Tax',
  columns: listColumns({ id: 'uuid', name: 'string', active: 'boolean', created_at: 'timestamp', updated_at: 'timestamp' }),
  toJson: toTaxJson,
  create: async (ctx, body) => {
    const name = String(body['name']).trim();
    const rate = parseRate(body['default_rate']);
    await assertNameFree(ctx, name);
    return { name, default_rate: rate, active: body['active'] === undefined ? 1 : boolColumn(body['active']) };
  },
  update: async (ctx, body, current) => {
    const changes: Partial<TaxesTable> = {};
    if (body['name'] !== undefined) {
      changes.name = String(body['name']).trim();
      await assertNameFree(ctx, changes.name, current.id);
    }
    if (body['default_rate'] !== undefined) changes.default_rate = parseRate(body['default_rate']);
    if (body['active'] !== undefined) changes.active = boolColumn(body['active']);
    return changes;
  },
  delete: 'hard',
});
