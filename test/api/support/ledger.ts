/**
 * Ledger invariants of one workspace, read straight from the database, for tests that race
 * money operations (and the soak script). Call it when no write is in flight.
 *
 *   checkLedger(db, workspaceId): Promise<LedgerReport>
 *     - a paid/received title has exactly one settlement transaction (the one its
 *       `transaction_id` names: its account, its paid amount, the title's direction); any other
 *       title has none;
 *     - no settlement transaction points at a missing title, no transfer transaction at a
 *       missing transfer (nor a transfer at a missing transaction);
 *     - every account's balance (credits − debits of its transactions, as accounts.get computes
 *       it; accounts have no opening balance) equals the sum of its live transactions: manual
 *       ones, those of live transfers and those of settled titles;
 *     - no attachment link or cost-center allocation points at a missing record.
 *   countActivity(db, workspaceId, recordIds): Promise<Map<recordId, number>>   // audit entries per record
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../../src/store/schema.js';

export interface LedgerReport {
  /** Human-readable, one line per broken invariant; empty when the ledger is whole. */
  readonly violations: string[];
  /** Balance in cents per account id, computed from the transactions table. */
  readonly balances: Map<string, number>;
}

const SETTLED = new Set(['paid', 'received']);

const signed = (t: { type: 'debit' | 'credit'; amount_cents: number }): number =>
  (t.type === 'credit' ? 1 : -1) * Number(t.amount_cents);

export async function checkLedger(db: Kysely<Database>, workspaceId: string): Promise<LedgerReport> {
  const [accounts, titles, transactions, transfers, links, allocations, attachments] = await Promise.all([
    db.selectFrom('accounts').select('id').where('workspace_id', '=', workspaceId).execute(),
    db.selectFrom('titles').selectAll().where('workspace_id', '=', workspaceId).execute(),
    db.selectFrom('transactions').selectAll().where('workspace_id', '=', workspaceId).execute(),
    db.selectFrom('transfers').selectAll().where('workspace_id', '=', workspaceId).execute(),
    db.selectFrom('attachment_links').selectAll().where('workspace_id', '=', workspaceId).execute(),
    db.selectFrom('allocations').selectAll().where('workspace_id', '=', workspaceId).execute(),
    db.selectFrom('attachments').select('id').where('workspace_id', '=', workspaceId).execute(),
  ]);
  const violations: string[] = [];
  const titleById = new Map(titles.map((t) => [t.id, t]));
  const transactionById = new Map(transactions.map((t) => [t.id, t]));
  const transferById = new Map(transfers.map((t) => [t.id, t]));

  const settlementsOf = new Map<string, string[]>();
  for (const tx of transactions.filter((t) => t.source === 'settlement')) {
    const owner = tx.source_id === null ? undefined : titleById.get(tx.source_id);
    if (!owner) violations.push(`settlement transaction ${tx.id} points at missing title ${tx.source_id}`);
    else settlementsOf.set(owner.id, [...(settlementsOf.get(owner.id) ?? []), tx.id]);
  }
  for (const title of titles) {
    const own = settlementsOf.get(title.id) ?? [];
    if (!SETTLED.has(title.status)) {
      if (own.length > 0) violations.push(`${title.status} title ${title.id} has ${own.length} settlement transaction(s)`);
      if (title.transaction_id !== null) violations.push(`${title.status} title ${title.id} names transaction ${title.transaction_id}`);
      continue;
    }
    const tx = title.transaction_id === null ? undefined : transactionById.get(title.transaction_id);
    if (own.length !== 1 || !tx || tx.id !== own[0]) {
      violations.push(`${title.status} title ${title.id} has ${own.length} settlement transaction(s) and names ${title.transaction_id ?? 'none'}`);
      continue;
    }
    const direction = title.kind === 'payable' ? 'debit' : 'credit';
    if (tx.type !== direction || Number(tx.amount_cents) !== Number(title.paid_amount_cents) || tx.financial_account_id !== title.financial_account_id) {
      violations.push(`settlement transaction ${tx.id} does not match title ${title.id} (type, amount or account)`);
    }
  }

  for (const tx of transactions.filter((t) => t.source === 'transfer')) {
    const transfer = tx.source_id === null ? undefined : transferById.get(tx.source_id);
    if (!transfer || (transfer.debit_transaction_id !== tx.id && transfer.credit_transaction_id !== tx.id)) {
      violations.push(`transfer transaction ${tx.id} points at missing transfer ${tx.source_id}`);
    }
  }
  for (const transfer of transfers) {
    for (const id of [transfer.debit_transaction_id, transfer.credit_transaction_id]) {
      if (!transactionById.has(id)) violations.push(`transfer ${transfer.id} names missing transaction ${id}`);
    }
  }

  const live = (tx: (typeof transactions)[number]): boolean => {
    if (tx.source === 'manual') return true;
    if (tx.source === 'transfer') return tx.source_id !== null && transferById.has(tx.source_id);
    const owner = tx.source_id === null ? undefined : titleById.get(tx.source_id);
    return owner !== undefined && SETTLED.has(owner.status) && owner.transaction_id === tx.id;
  };
  const balances = new Map<string, number>(accounts.map((a) => [a.id, 0]));
  const expected = new Map<string, number>(accounts.map((a) => [a.id, 0]));
  for (const tx of transactions) {
    if (!balances.has(tx.financial_account_id)) violations.push(`transaction ${tx.id} is on missing account ${tx.financial_account_id}`);
    balances.set(tx.financial_account_id, (balances.get(tx.financial_account_id) ?? 0) + signed(tx));
    if (live(tx)) expected.set(tx.financial_account_id, (expected.get(tx.financial_account_id) ?? 0) + signed(tx));
  }
  for (const [accountId, balance] of balances) {
    const want = expected.get(accountId) ?? 0;
    if (balance !== want) violations.push(`account ${accountId} balance ${balance} cents, live transactions sum to ${want}`);
  }

  const attachmentIds = new Set(attachments.map((a) => a.id));
  const parentExists = (type: string, id: string): boolean =>
    type === 'transaction' ? transactionById.has(id) : titleById.get(id)?.kind === type;
  for (const link of links) {
    if (!attachmentIds.has(link.attachment_id)) violations.push(`attachment link ${link.id} points at missing attachment ${link.attachment_id}`);
    if (!parentExists(link.parent_type, link.parent_id)) violations.push(`attachment link ${link.id} points at missing ${link.parent_type} ${link.parent_id}`);
  }
  for (const share of allocations) {
    if (!parentExists(share.parent_type, share.parent_id)) violations.push(`allocation ${share.id} points at missing ${share.parent_type} ${share.parent_id}`);
  }
  return { violations, balances };
}

/** Audit (activity) entries per record id, for "one entry per successful change" checks. */
export async function countActivity(db: Kysely<Database>, workspaceId: string, recordIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>(recordIds.map((id) => [id, 0]));
  if (recordIds.length === 0) return counts;
  const rows = await db.selectFrom('activity').select('record_id')
    .where('workspace_id', '=', workspaceId).where('record_id', 'in', [...recordIds]).execute();
  for (const row of rows) if (row.record_id !== null) counts.set(row.record_id, (counts.get(row.record_id) ?? 0) + 1);
  return counts;
}
