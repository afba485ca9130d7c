/**
 * accounts.*: the bank/cash accounts money is settled against. `get` adds the signed balance
 * (credits − debits of its transactions, exact: rules/account-balance.ts, which also bounds
 * it at write time); delete with transactions → CONFLICT. Transactions themselves belong to the money helper's modules.
 */
import type { Selectable } from 'kysely';
import type { AccountsTable } from '../../store/schema.js';
import type { OperationContext } from '../context.js';
import { formatCents } from '../money.js';
import { listColumns } from '../list.js';
import { computeAccountBalance } from '../rules/account-balance.js';
import { auditJson, boolColumn, toBool } from '../records.js';
import { defineResource, findReference, type Reference } from '../define-resource.js';

const TEXT_FIELDS = ['name', 'type', 'bank_code', 'agency', 'account_number'] as const;

function toAccountJson(row: Selectable<AccountsTable>): Record<string, unknown> {
  return {
    id: row.id, name: row.name, type: row.type, bank_code: row.bank_code, agency: row.agency,
    account_number: row.account_number, active: toBool(row.active), ...auditJson(row),
  };
}

function readText(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

async function withBalance(ctx: OperationContext, row: Selectable<AccountsTable>): Promise<Record<string, unknown>> {
  return { ...toAccountJson(row), balance: formatCents(await computeAccountBalance(ctx, row.id)) };
}

/** What refers to an account: transactions, transfers (either side) and titles. */
const REFERENCES: readonly Reference[] = [
  { table: 'transactions', columns: ['financial_account_id'] },
  { table: 'transfers', columns: ['from_account_id', 'to_account_id'] },
  { table: 'titles', columns: ['financial_account_id'] },
];

export const handlers = defineResource({
  resource: 'accounts',
  label: 'Account',
  columns: listColumns({
    id: 'uuid', name: 'string', type: 'string', bank_code: 'string', active: 'boolean', created_at: 'timestamp', updated_at: 'timestamp',
  }),
  toJson: toAccountJson,
  readJson: withBalance,
  // A new account has no transactions yet.
  createdJson: (row) => ({ ...toAccountJson(row), balance: formatCents(0) }),
  create: (_ctx, body) => ({
    name: String(body['name']),
    type: String(body['type'] ?? 'checking') as AccountsTable['type'],
    bank_code: readText(body['bank_code']),
    agency: readText(body['agency']),
    account_number: readText(body['account_number']),
    active: body['active'] === undefined ? 1 : boolColumn(body['active']),
  }),
  update: (_ctx, body) => {
    const changes: Record<string, unknown> = {};
    for (const field of TEXT_FIELDS) if (body[field] !== undefined) changes[field] = readText(body[field]);
    if (body['active'] !== undefined) changes['active'] = boolColumn(body['active']);
    return changes as Partial<AccountsTable>;
  },
  // Writes that refer to the account hold it FOR SHARE until they commit (references.ts).
  delete: {
    inUse: 'The account still has transactions or records that refer to it.',
    findUse: (ctx, current) => findReference(ctx, current, REFERENCES),
  },
});
