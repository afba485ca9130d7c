/**
 * activity.list: the write log of the workspace (docs/security.md#what-is-recorded) — who, channel, operation,
 * record. Written by audit.ts's recordActivity on every write; read-only here.
 */
import type { Selectable } from 'kysely';
import type { ActivityTable } from '../../store/schema.js';
import type { Caller } from '../context.js';
import { mayRead } from '../authorize.js';
import { listColumns, listRecords, readListSpec, type ListDefinition } from '../list.js';
import { defineOperations } from '../define-operations.js';

/** The resources whose entries' details are Seguridad configuration (limits, allowlists, thresholds: old → new). */
const SEGURIDAD_RESOURCES: ReadonlySet<string> = new Set(['security_settings', 'payee_allowlist']);

/**
 * An entry's details, as JSON. Those of a Seguridad change are the configuration itself, which no
 * agent may read (docs/security.md#money-controls): they are shown only off MCP to a caller who may
 * read the Seguridad settings (`security.view` and `finance.security`, which no OAuth token carries).
 */
function readDetails(row: Selectable<ActivityTable>, caller: Caller): unknown {
  if (!row.details) return null;
  if (SEGURIDAD_RESOURCES.has(row.resource) && (caller.channel === 'mcp' || !mayRead(caller, 'security'))) return null;
  try {
    return JSON.parse(row.details) as unknown;
  } catch {
    return null;
  }
}

function toActivityJson(row: Selectable<ActivityTable>, caller: Caller): Record<string, unknown> {
  return {
    id: row.id, person_id: row.person_id, channel: row.channel, operation: row.operation,
    resource: row.resource, record_id: row.record_id, created_at: row.created_at, details: readDetails(row, caller),
  };
}

const listOf = (caller: Caller): ListDefinition<'activity'> => ({
  table: 'activity',
  resourceLabel: 'Activity entry',
  columns: listColumns({
    id: 'uuid', person_id: 'uuid', channel: 'string', resource: 'string', operation: 'string', record_id: 'uuid',
    created_at: 'timestamp',
  }),
  toJson: (rows) => rows.map((row) => toActivityJson(row, caller)),
});

export const handlers = defineOperations({
  'activity.list': async (ctx, input) => ({
    body: await listRecords(ctx, input.list, readListSpec(ctx), listOf(ctx.caller)),
  }),
});
