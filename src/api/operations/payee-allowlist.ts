/**
 * payee_allowlist.*: the payment destinations a person approved in Seguridad (REST only,
 * `x-mcp.exclude`; permission security.view/security.manage; docs/security.md#payee-allowlist).
 * An approval stores the value the person has **now** (read with their row locked), never a value
 * sent in the request: `expected`, required for every kind approved, is what the approver saw, and a
 * current value that differs refuses CONFLICT (an edit between reading and approving is never approved unseen). One entry per person and kind: approving a new value replaces the old one. Every
 * change writes an activity entry whose details say what was approved or removed.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { PayeeAllowlistTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { recordActivity } from '../audit.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { normalizeDocument } from '../documents.js';
import { listColumns, listRecords, readListSpec, type ListDefinition } from '../list.js';
import { findInWorkspace, lockRow, readBody, requireWorkspace } from '../records.js';
import { defineOperations } from '../define-operations.js';
import { DESTINATION_KINDS, DESTINATION_NAMES, destinationsOf, normalizePixKey, type DestinationKind } from '../money/destinations.js';
import { isPlainObject, isUuid } from '../../runtime/values.js';

type EntryRow = Selectable<PayeeAllowlistTable>;
const LABEL = 'Allowlist entry';

function toEntryJson(row: EntryRow): Record<string, unknown> {
  return { id: row.id, person_id: row.person_id, kind: row.kind, value: row.value, approved_by: row.approved_by, approved_at: row.approved_at };
}

const LIST: ListDefinition<'payee_allowlist'> = {
  table: 'payee_allowlist',
  resourceLabel: LABEL,
  columns: listColumns({ id: 'uuid', person_id: 'uuid', kind: 'string', approved_at: 'timestamp' }),
  toJson: (rows) => rows.map(toEntryJson),
};

async function findEntry(ctx: OperationContext, id: string | undefined): Promise<EntryRow> {
  if (!isUuid(id)) throw notFound(LABEL);
  const row = await ctx.db.selectFrom('payee_allowlist').selectAll().where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound(LABEL);
  return row;
}

/** An expected value in the form the list shows it (document digits, the normalised Pix key, `bank/agency/account`). */
function normalizeExpected(kind: DestinationKind, text: string): string {
  if (kind === 'document_number') return normalizeDocument(text);
  if (kind === 'pix_key') return normalizePixKey(text) ?? text;
  return text.trim().toUpperCase();
}

interface ApproveRequest { readonly personId: string; readonly kinds: readonly DestinationKind[]; readonly expected: Readonly<Partial<Record<DestinationKind, string>>> }

function readApproveBody(body: Record<string, unknown>): ApproveRequest {
  const kinds = DESTINATION_KINDS.filter((kind) => Array.isArray(body['kinds']) && body['kinds'].includes(kind));
  if (kinds.length === 0) throw validationError([{ path: 'kinds', message: 'must name at least one of document_number, pix_key, bank_account' }]);
  const given = isPlainObject(body['expected']) ? body['expected'] : {};
  const expected: Partial<Record<DestinationKind, string>> = {};
  for (const [key, value] of Object.entries(given)) {
    const kind = DESTINATION_KINDS.find((k) => k === key);
    if (!kind || !kinds.includes(kind)) throw validationError([{ path: `expected.${key}`, message: 'must be one of the kinds being approved' }]);
    expected[kind] = String(value);
  }
  // Nobody approves a value they did not see: each kind approved names the value read.
  const unseen = kinds.filter((kind) => expected[kind] === undefined);
  if (unseen.length > 0) throw validationError(unseen.map((kind) => ({ path: `expected.${kind}`, message: 'is required: the value you saw for this kind (as the person or the list shows it)' })));
  return { personId: String(body['person_id'] ?? ''), kinds, expected };
}

/** Stores `value` as the person's approved `kind`, replacing another value of that kind; answers the entry. */
async function approveOne(ctx: OperationContext, personId: string, kind: DestinationKind, value: string): Promise<EntryRow> {
  const workspaceId = requireWorkspace(ctx);
  const existing = await ctx.db.selectFrom('payee_allowlist').selectAll()
    .where('workspace_id', '=', workspaceId).where('person_id', '=', personId).where('kind', '=', kind).execute();
  const same = existing.find((row) => row.value === value);
  if (same) return same;
  const replaced = existing[0]?.value ?? null;
  if (existing.length > 0) {
    await ctx.db.deleteFrom('payee_allowlist').where('workspace_id', '=', workspaceId).where('id', 'in', existing.map((row) => row.id)).execute();
  }
  const row: EntryRow = { id: randomUUID(), workspace_id: workspaceId, person_id: personId, kind, value, approved_by: ctx.caller.personId, approved_at: ctx.now().toISOString() };
  await ctx.db.insertInto('payee_allowlist').values(row).execute();
  await recordActivity(ctx, {
    operation: 'payee_allowlist.approve', resource: 'payee_allowlist', recordId: row.id,
    details: { person_id: personId, changes: [{ field: kind, old: replaced, new: value }] },
  });
  return row;
}

const approve: OperationHandler = async (ctx, input) => {
  const request = readApproveBody(readBody(input.body));
  // Locked first: a people.update beside it either runs before (this reads its value) or after (and revokes what this stores).
  await lockRow(ctx, 'people', request.personId, 'update');
  const person = await findInWorkspace(ctx, 'people', request.personId, 'Person', { excludeDeleted: true });
  const current = new Map(destinationsOf(person).map((d) => [d.kind, d.value]));
  for (const kind of request.kinds) {
    const value = current.get(kind);
    if (value === undefined) {
      throw new ApiError('UNPROCESSABLE_ENTITY', `The person has no ${DESTINATION_NAMES[kind]} to approve.`, { kind });
    }
    const expected = request.expected[kind];
    if (normalizeExpected(kind, expected as string) !== value) {
      throw new ApiError('CONFLICT', `The person's ${DESTINATION_NAMES[kind]} is not the one expected: read the person again before approving.`, { kind });
    }
  }
  const entries: EntryRow[] = [];
  for (const kind of request.kinds) entries.push(await approveOne(ctx, person.id, kind, current.get(kind) as string));
  return { body: { data: entries.map(toEntryJson) } };
};

const remove: OperationHandler = async (ctx, input) => {
  const entry = await findEntry(ctx, input.path['id']);
  const deleted = await ctx.db.deleteFrom('payee_allowlist').where('workspace_id', '=', entry.workspace_id).where('id', '=', entry.id).executeTakeFirst();
  // Removed by another call since it was read: answered as that call's result, not twice.
  if (Number(deleted.numDeletedRows) === 0) throw notFound(LABEL);
  await recordActivity(ctx, {
    operation: 'payee_allowlist.delete', resource: 'payee_allowlist', recordId: entry.id,
    details: { person_id: entry.person_id, changes: [{ field: entry.kind, old: entry.value, new: null }] },
  });
  return { outcome: 'deleted' };
};

export const handlers = defineOperations({
  'payee_allowlist.list': async (ctx, input) => ({ body: await listRecords(ctx, input.list, readListSpec(ctx), LIST) }),
  'payee_allowlist.get': async (ctx, input) => ({ body: toEntryJson(await findEntry(ctx, input.path['id'])) }),
  'payee_allowlist.approve': approve,
  'payee_allowlist.delete': remove,
});
