/**
 * accounts.*: the bank/cash accounts money is settled against. `get` adds the signed balance
 * (credits − debits of its transactions, exact: rules/account-balance.ts, which also bounds
 * it at write time); delete with transactions → CONFLICT. Transactions themselves belong to the money helper's modules.
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { AccountsTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { ApiError } from '../errors.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import { formatCents } from '../money.js';
import { listRecords, readListSpec, type ListDefinition } from '../list.js';
import { computeAccountBalance } from '../rules/account-balance.js';
import {
  auditJson, boolColumn, findInWorkspace, lockRow, readBody, requireWorkspace, toBool, translateConstraintError,
} from '../records.js';
import { defineOperations } from '../define-operations.js';

const LABEL = 'Account';
const TEXT_FIELDS = ['name', 'type', 'bank_code', 'agency', 'account_number'] as const;

function toAccountJson(row: Selectable<AccountsTable>): Record<string, unknown> {
  return {
    id: row.id, name: row.name, type: row.type, bank_code: row.bank_code, agency: row.agency,
    account_number: row.account_number, active: toBool(row.active), ...auditJson(row),
  };
}

const LIST: ListDefinition<'accounts'> = {
  table: 'accounts',
  resourceLabel: LABEL,
  columns: {
    id: { column: 'id', kind: 'uuid' },
    name: { column: 'name', kind: 'string' },
    type: { column: 'type', kind: 'string' },
    bank_code: { column: 'bank_code', kind: 'string' },
    active: { column: 'active', kind: 'boolean' },
    created_at: { column: 'created_at', kind: 'timestamp' },
    updated_at: { column: 'updated_at', kind: 'timestamp' },
  },
  toJson: (rows) => rows.map(toAccountJson),
};

function readText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

const listAccounts: OperationHandler = async (ctx, input) => ({
  body: await listRecords(ctx, input.list, readListSpec(ctx), LIST),
});

const getAccount: OperationHandler = async (ctx, input) => {
  const row = await findInWorkspace(ctx, 'accounts', input.path['id'] ?? '', LABEL);
  return { body: { ...toAccountJson(row), balance: formatCents(await computeAccountBalance(ctx, row.id)) } };
};

const createAccount: OperationHandler = async (ctx, input) => {
  const body = readBody(input.body);
  const row: Selectable<AccountsTable> = {
    id: randomUUID(),
    workspace_id: requireWorkspace(ctx),
    name: String(body['name']),
    type: String(body['type'] ?? 'checking') as AccountsTable['type'],
    bank_code: readText(body['bank_code']),
    agency: readText(body['agency']),
    account_number: readText(body['account_number']),
    active: body['active'] === undefined ? 1 : boolColumn(body['active']),
    ...insertAudit(ctx),
  };
  await ctx.db.insertInto('accounts').values(row).execute();
  await recordActivity(ctx, { operation: 'accounts.create', resource: 'accounts', recordId: row.id });
  return { outcome: 'created', body: { ...toAccountJson(row), balance: formatCents(0) } };
};

const updateAccount: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'accounts', input.path['id'] ?? '', LABEL);
  const body = readBody(input.body);
  const changes: Record<string, unknown> = {};
  for (const field of TEXT_FIELDS) if (body[field] !== undefined) changes[field] = readText(body[field]);
  if (body['active'] !== undefined) changes['active'] = boolColumn(body['active']);
  await ctx.db.updateTable('accounts').set({ ...(changes as Partial<AccountsTable>), ...updateAudit(ctx) })
    .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
  await recordActivity(ctx, { operation: 'accounts.update', resource: 'accounts', recordId: current.id });
  const row = await findInWorkspace(ctx, 'accounts', current.id, LABEL);
  return { body: { ...toAccountJson(row), balance: formatCents(await computeAccountBalance(ctx, row.id)) } };
};

const IN_USE = 'The account still has transactions or records that refer to it.';

const deleteAccount: OperationHandler = async (ctx, input) => {
  const current = await findInWorkspace(ctx, 'accounts', input.path['id'] ?? '', LABEL);
  const workspaceId = current.workspace_id;
  // Writes that refer to the account hold it FOR SHARE until they commit (references.ts).
  await lockRow(ctx, 'accounts', current.id, 'update');
  const used = await ctx.db.selectFrom('transactions').select('id')
    .where('workspace_id', '=', workspaceId).where('financial_account_id', '=', current.id).executeTakeFirst()
    ?? await ctx.db.selectFrom('transfers').select('id').where('workspace_id', '=', workspaceId)
      .where((eb) => eb.or([eb('from_account_id', '=', current.id), eb('to_account_id', '=', current.id)])).executeTakeFirst()
    ?? await ctx.db.selectFrom('titles').select('id')
      .where('workspace_id', '=', workspaceId).where('financial_account_id', '=', current.id).executeTakeFirst();
  if (used) throw new ApiError('CONFLICT', IN_USE);
  try {
    await ctx.db.deleteFrom('accounts').where('workspace_id', '=', workspaceId).where('id', '=', current.id).execute();
  } catch (err) {
    translateConstraintError(err, IN_USE);
  }
  await recordActivity(ctx, { operation: 'accounts.delete', resource: 'accounts', recordId: current.id });
  return { outcome: 'deleted' };
};

export const handlers = defineOperations({
  'accounts.list': listAccounts,
  'accounts.get': getAccount,
  'accounts.create': createAccount,
  'accounts.update': updateAccount,
  'accounts.delete': deleteAccount,
});
