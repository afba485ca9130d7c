/**
 * activity.list: the write log of the workspace (docs/security.md#what-is-recorded) — who, channel, operation,
 * record. Written by audit.ts's recordActivity on every write; read-only here.
 */
import type { Selectable } from 'kysely';
import type { ActivityTable } from '../../store/schema.js';
import { listColumns, listRecords, readListSpec, type ListDefinition } from '../list.js';
import { defineOperations } from '../define-operations.js';

function toActivityJson(row: Selectable<ActivityTable>): Record<string, unknown> {
  return {
    id: row.id, person_id: row.person_id, channel: row.channel, operation: row.operation,
    resource: row.resource, record_id: row.record_id, created_at: row.created_at,
  };
}

const LIST: ListDefinition<'activity'> = {
  table: 'activity',
  resourceLabel: 'Activity entry',
  columns: listColumns({
    id: 'uuid', person_id: 'uuid', channel: 'string', resource: 'string', operation: 'string', record_id: 'uuid',
    created_at: 'timestamp',
  }),
  toJson: (rows) => rows.map(toActivityJson),
};

export const handlers = defineOperations({
  'activity.list': async (ctx, input) => ({
    body: await listRecords(ctx, input.list, readListSpec(ctx), LIST),
  }),
});
