/**
 * cost_centers.*: where amounts are apportioned (`cost|revenue|both`). Delete while an
 * allocation refers to it → CONFLICT. Apportionment rules live with payables/receivables.
 */
import type { Selectable } from 'kysely';
import type { CostCentersTable } from '../../store/schema.js';
import { listColumns } from '../list.js';
import { auditJson, boolColumn, toBool } from '../records.js';
import { defineResource, findReference } from '../define-resource.js';

function toCostCenterJson(row: Selectable<CostCentersTable>): Record<string, unknown> {
  return { id: row.id, name: row.name, type: row.type, active: toBool(row.active), ...auditJson(row) };
}

export const handlers = defineResource({
  resource: 'cost_centers',
  label: 'Cost center',
  columns: listColumns({ id: 'uuid', name: 'string', type: 'string', active: 'boolean', created_at: 'timestamp', updated_at: 'timestamp' }),
  toJson: toCostCenterJson,
  create: (_ctx, body) => ({
    name: String(body['name']),
    type: String(body['type'] ?? 'both') as CostCentersTable['type'],
    active: body['active'] === undefined ? 1 : boolColumn(body['active']),
  }),
  update: (_ctx, body) => {
    const changes: Partial<CostCentersTable> = {};
    if (body['name'] !== undefined) changes.name = String(body['name']);
    if (body['type'] !== undefined) changes.type = String(body['type']) as CostCentersTable['type'];
    if (body['active'] !== undefined) changes.active = boolColumn(body['active']);
    return changes;
  },
  delete: {
    inUse: 'The cost center is in use by apportionments.',
    // Apportionments being written hold the cost center FOR SHARE until they commit (allocations.ts).
    findUse: (ctx, current) => findReference(ctx, current, [{ table: 'allocations', columns: ['cost_center_id'] }]),
  },
});
