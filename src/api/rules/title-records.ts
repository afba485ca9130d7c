/**
 * The JSON shape of payables and receivables (spec schemas `Payable`/`Receivable`) and their
 * list vocabulary: one `titles` table told apart by `kind`. Money as two-place strings,
 * `overdue` against the operation's clock, apportionment and `attachments_count` loaded in one
 * query per page. Writes are titles.ts's and settlement.ts's.
 */
import { sql, type Selectable } from 'kysely';
import type { TitlesTable } from '../../store/schema.js';
import type { FilterOperator } from '../../runtime/types.js';
import type { OperationContext } from '../context.js';
import { validationError } from '../errors.js';
import type { AnySelect, ListDefinition } from '../list.js';
import { formatCents, formatMoneyOrNull } from '../money.js';
import { auditJson, findInWorkspace } from '../records.js';
import { loadAllocations } from './allocations.js';
import { countAttachments } from './attachment-links.js';

export type TitleKind = 'payable' | 'receivable';

export interface TitleVocabulary {
  readonly kind: TitleKind;
  /** `payables` | `receivables`: operationId prefix and activity resource. */
  readonly resource: string;
  readonly label: string;
  readonly settledStatus: 'paid' | 'received';
  readonly categoryType: 'debit' | 'credit';
  readonly centerPolarity: 'cost' | 'revenue';
  readonly transactionType: 'debit' | 'credit';
}

export const PAYABLES: TitleVocabulary = {
  kind: 'payable', resource: 'payables', label: 'Payable', settledStatus: 'paid', categoryType: 'debit', centerPolarity: 'cost', transactionType: 'debit',
};
export const RECEIVABLES: TitleVocabulary = {
  kind: 'receivable', resource: 'receivables', label: 'Receivable', settledStatus: 'received', categoryType: 'credit', centerPolarity: 'revenue', transactionType: 'credit',
};

/** Today's date (UTC) on the operation's clock; "overdue" compares due dates against it. */
export function readToday(ctx: OperationContext): string {
  return ctx.now().toISOString().slice(0, 10);
}

export async function toTitleJsonBatch(ctx: OperationContext, kind: TitleKind, rows: readonly Selectable<TitlesTable>[]): Promise<Record<string, unknown>[]> {
  const ids = rows.map((r) => r.id);
  const [allocations, attachments] = await Promise.all([loadAllocations(ctx, kind, ids), countAttachments(ctx, kind, ids)]);
  const today = readToday(ctx);
  return rows.map((row) => ({
    id: row.id,
    description: row.description,
    amount: formatCents(row.amount_cents),
    due_date: row.due_date,
    competence_date: row.competence_date,
    status: row.status,
    person_id: row.person_id,
    category_id: row.category_id,
    financial_account_id: row.financial_account_id,
    document_number: row.document_number,
    notes: row.notes,
    payment_date: row.payment_date,
    paid_amount: formatMoneyOrNull(row.paid_amount_cents),
    interest_amount: formatMoneyOrNull(row.interest_cents),
    discount_amount: formatMoneyOrNull(row.discount_cents),
    transaction_id: row.transaction_id,
    cost_center_allocations: allocations.get(row.id) ?? [],
    attachments_count: attachments.get(row.id) ?? 0,
    overdue: row.status === 'pending' && row.due_date < today,
    ...auditJson(row),
    version: Number(row.version),
  }));
}

export function findTitle(ctx: OperationContext, vocabulary: TitleVocabulary, id: string | undefined): Promise<Selectable<TitlesTable>> {
  return findInWorkspace(ctx, 'titles', id ?? '', vocabulary.label, { where: { kind: vocabulary.kind } });
}

export async function readTitleJson(ctx: OperationContext, vocabulary: TitleVocabulary, id: string): Promise<Record<string, unknown>> {
  const row = await findTitle(ctx, vocabulary, id);
  const [json] = await toTitleJsonBatch(ctx, vocabulary.kind, [row]);
  return json as Record<string, unknown>;
}

function readBooleanFilter(value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw validationError([{ path: 'filters.overdue', message: 'must be true or false' }]);
}

/** The list definition depends on the clock (the `overdue` filter), so it is built per call. */
export function buildTitleListDefinition(ctx: OperationContext, vocabulary: TitleVocabulary): ListDefinition<'titles'> {
  const today = readToday(ctx);
  return {
    table: 'titles',
    resourceLabel: vocabulary.label,
    columns: {
      id: { column: 'id', kind: 'uuid' },
      status: { column: 'status', kind: 'string' },
      due_date: { column: 'due_date', kind: 'date' },
      competence_date: { column: 'competence_date', kind: 'date' },
      payment_date: { column: 'payment_date', kind: 'date' },
      amount: { column: 'amount_cents', kind: 'money' },
      person_id: { column: 'person_id', kind: 'uuid' },
      category_id: { column: 'category_id', kind: 'uuid' },
      financial_account_id: { column: 'financial_account_id', kind: 'uuid' },
      document_number: { column: 'document_number', kind: 'string' },
      created_at: { column: 'created_at', kind: 'timestamp' },
    },
    baseWhere: (qb: AnySelect) => qb.where('kind', '=', vocabulary.kind),
    customFilters: {
      overdue: (qb: AnySelect, _operator: FilterOperator, value: unknown) => {
        const overdue = sql<boolean>`(status = 'pending' and due_date < ${today})`;
        return readBooleanFilter(value) ? qb.where(overdue) : qb.where(sql<boolean>`not ${overdue}`);
      },
    },
    toJson: (rows) => toTitleJsonBatch(ctx, vocabulary.kind, rows),
  };
}
