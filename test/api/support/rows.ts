/** Direct row inserts for REST tests of master data (records other helpers' operations create). */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../src/store/schema.js';
import { DEMO } from '../../helpers/index.js';

function audit() {
  const now = new Date().toISOString();
  return { created_at: now, updated_at: now, created_by: DEMO.persons.ana, updated_by: DEMO.persons.ana, created_via: 'web' as const, updated_via: 'web' as const, version: 1 };
}

export async function insertTransaction(db: Kysely<Database>, workspaceId: string, accountId: string, type: 'debit' | 'credit', cents: number, extra: { category_id?: string } = {}): Promise<string> {
  const id = randomUUID();
  await db.insertInto('transactions').values({
    id, workspace_id: workspaceId, financial_account_id: accountId, type, amount_cents: cents, occurred_at: '2026-01-10',
    description: null, category_id: extra.category_id ?? null, person_id: null, source: 'manual', source_id: null, ...audit(),
  }).execute();
  return id;
}

export async function insertPayable(db: Kysely<Database>, workspaceId: string, personId: string, extra: { category_id?: string } = {}): Promise<string> {
  const id = randomUUID();
  await db.insertInto('titles').values({
    id, workspace_id: workspaceId, kind: 'payable', description: 'test', amount_cents: 1000, due_date: '2026-02-01', competence_date: '2026-02-01',
    status: 'pending', person_id: personId, category_id: extra.category_id ?? null, financial_account_id: null, document_number: null,
    notes: null, payment_date: null, paid_amount_cents: null, interest_cents: null, discount_cents: null, transaction_id: null, ...audit(),
  }).execute();
  return id;
}

export async function insertAllocation(db: Kysely<Database>, workspaceId: string, parentId: string, costCenterId: string): Promise<void> {
  await db.insertInto('allocations').values({
    id: randomUUID(), workspace_id: workspaceId, parent_type: 'payable', parent_id: parentId, cost_center_id: costCenterId,
    percentage: null, amount_cents: 1000, position: 0,
  }).execute();
}
