/**
 * cost_centers.*: where amounts are apportioned (`cost|revenue|both`). Delete while an
 * allocation refers to it → CONFLICT. Apportionment rules live with payables/receivables.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { CostCentersTable } from '../../store/schema.js';
import type { OperationHandler } from '../context.js';
import { ApiError } from '../errors.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import { listRecords, readListSpec, type ListDefinition } from '../list.js';
import { auditJson, boolColumn, findInWorkspace, lockRow, readBody, requireWorkspace, toBool, translateConstraintError } from '../records.js';
import { defineOperations } from '../define-operations.js';

const LABEL = 'Cost center';

function toCostCenterJson(row: Selectable<CostCentersTable>): Record<string, unknown> {
  return { id: row.id, name: row.name, type: row.type, active: toBool(row.active), ...auditJson(row) };
}

const LIST: ListDefinition<'cost_centers'> = {
  table: 'cost_centers',
  resourceLabel: LABEL,
  columns: {
    id: { column: 'id', kind: 'uuid' },
    name: { column: 'name', kind: 'string' },
    type: { column: 'type', kind: 'string' },
    active: { column: 'active', kind: 'boolean' },
    created_at: { column: 'created_at', kind: 'timestamp' },
    updated_at: { column: 'updated_at', kind: 'timestamp' },
  },
  toJson: (rows) => rows.map(toCostCenterJson),
};

const listCostCenters: OperationHandler = async (ctx, input) => ({
  body: await listRecords(ctx, input.list, readListSpec(ctx), LIST),
});

const getCostCenter: OperationHandler = async (ctx, input) => ({
  body: toCostCenterJson(await findInWorkspace(ctx, 'cost_centers', input.path['id'] ?? '', LABEL)),
});

const createCostCenter: OperationHandler = async (ctx, input) => {
  const body = readBody(input.body);
  const row: Selectable<CostCentersTable> = {
    id: randomUUID(),
    workspace_id: requireWorkspace(ctx),
    name: String(body['name']),
    type: String(body['type'] ?? 'both') as CostCentersTable['type'],
    active: body['active'] === undefined ? 1 : boolColumn(body['active']),
    ...insertAudit(ctx),
  };
  await ctx.db.insertInto('cost_centers').values(row).execute();
  await recordActivity(ctx, { operation: 'cost_centers.create', resource: 'cost_centers', recordId: row.id });
  return { outcome: 'created', body: toCostCenterJson(row) };
};

const updateCostCenter: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'cost_centers', input.path['id'] ?? '', LABEL);
  const body = readBody(input.body);
  const changes: Partial<CostCentersTable> = {};
  if (body['name'] !== undefined) changes.name = String(body['name']);
  if (body['type'] !== undefined) changes.type = String(body['type']) as CostCentersTable['type'];
  if (body['active'] !== undefined) changes.active = boolColumn(body['active']);
  await ctx.db.updateTable('cost_centers').set({ ...changes, ...updateAudit(ctx) })
    .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
  await recordActivity(ctx, { operation: 'cost_centers.update', resource: 'cost_centers', recordId: current.id });
  return { body: toCostCenterJson(await findInWorkspace(ctx, 'cost_centers', current.id, LABEL)) };
};

const IN_USE = 'The cost center is in use by apportionments.';

const deleteCostCenter: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'cost_centers', input.path['id'] ?? '', LABEL);
  // Apportionments being written hold the cost center FOR SHARE until they commit (allocations.ts).
  await lockRow(ctx, 'cost_centers', current.id, 'update');
  const used = await ctx.db.selectFrom('allocations').select('id')
    .where('workspace_id', '=', current.workspace_id).where('cost_center_id', '=', current.id).executeTakeFirst();
  if (used) throw new ApiError('CONFLICT', IN_USE);
  try {
    await ctx.db.deleteFrom('cost_centers').where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
  } catch (err) {
    translateConstraintError(err, IN_USE);
  }
  await recordActivity(ctx, { operation: 'cost_centers.delete', resource: 'cost_centers', recordId: current.id });
  return { outcome: 'deleted' };
};

export const handlers = defineOperations({
  'cost_centers.list': listCostCenters,
  'cost_centers.get': getCostCenter,
  'cost_centers.create': createCostCenter,
  'cost_centers.update': updateCostCenter,
  'cost_centers.delete': deleteCostCenter,
});
