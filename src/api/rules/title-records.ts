/**
 * The JSON shape of payables and receivables (spec schemas `Payable`/`Receivable`) and their
 * list vocabulary: one `titles` table told apart by `kind`. Money as two-place strings,
 * `overdue` as title-status.ts defines it (the workspace's today), apportionment and `attachments_count` loaded in one
 * query per page, and one title with both in a single query. Writes are titles.ts's and settlement.ts's.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, PaymentCodeKind, TitlesTable } from '../../store/schema.js';
import { prepareQuery } from '../../store/prepared-query.js';
import type { FilterOperator } from '../../runtime/types.js';
import type { OperationContext } from '../context.js';
import { notFound, validationError } from '../errors.js';
import { listColumns, type AnySelect, type ListDefinition } from '../list.js';
import { formatCents, formatMoneyOrNull } from '../money.js';
import { auditJson, findInWorkspace, requireWorkspace } from '../records.js';
import { isUuid } from '../../runtime/values.js';
import { loadAllocations, toAllocationJson, type AllocationJson } from './allocations.js';
import { countAttachments } from './attachment-links.js';
import { DEFAULT_TIME_ZONE, isOverdue, overdueCondition, readToday, todayIn } from './title-status.js';

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

/** The fields of a payable's `payment_code` (spec schema `PaymentCode`). */
export interface PaymentCodeJson {
  readonly kind: PaymentCodeKind;
  readonly barcode: string | null;
  readonly digitable_line: string | null;
  readonly payload: string | null;
  readonly pix_key: string | null;
  readonly txid: string | null;
  readonly location: string | null;
}

/**
 * `payment_code` of a payable: null when typed by hand; else what the code said when it was
 * recorded (`payment_code_details`, written once by payables.create_from_code from the decoders
 * of src/api/codes — read back here rather than decoded again, as src/api/rules may not depend
 * on src/api/codes), with its kind.
 */
export function toPaymentCodeJson(row: Pick<Selectable<TitlesTable>, 'payment_code_kind' | 'payment_code_details'>): PaymentCodeJson | null {
  if (row.payment_code_kind === null || row.payment_code_details === null) return null;
  const details = JSON.parse(row.payment_code_details) as Partial<Record<keyof PaymentCodeJson, string | null>>;
  return {
    kind: row.payment_code_kind, barcode: details.barcode ?? null, digitable_line: details.digitable_line ?? null, payload: details.payload ?? null,
    pix_key: details.pix_key ?? null, txid: details.txid ?? null, location: details.location ?? null,
  };
}

function toTitleJson(row: Selectable<TitlesTable>, allocations: readonly AllocationJson[], attachmentsCount: number, today: string): Record<string, unknown> {
  return {
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
    cost_center_allocations: allocations,
    attachments_count: attachmentsCount,
    overdue: isOverdue(row.status, row.due_date, today),
    // A payable keeps the code it was recorded from (payables.create_from_code); a receivable has none.
    ...(row.kind === 'payable' ? { payment_code: toPaymentCodeJson(row) } : {}),
    ...auditJson(row),
    version: Number(row.version),
  };
}

/** A page of titles as JSON; `today` is the workspace's (readToday), read once per call. */
export async function toTitleJsonBatch(ctx: OperationContext, kind: TitleKind, rows: readonly Selectable<TitlesTable>[], today: string): Promise<Record<string, unknown>[]> {
  const ids = rows.map((r) => r.id);
  const [allocations, attachments] = await Promise.all([loadAllocations(ctx, kind, ids), countAttachments(ctx, kind, ids)]);
  return rows.map((row) => toTitleJson(row, allocations.get(row.id) ?? [], attachments.get(row.id) ?? 0, today));
}

export function findTitle(ctx: OperationContext, vocabulary: TitleVocabulary, id: string | undefined): Promise<Selectable<TitlesTable>> {
  return findInWorkspace(ctx, 'titles', id ?? '', vocabulary.label, { where: { kind: vocabulary.kind } });
}

/** The query of readTitleJson, compiled once (src/store/prepared-query.ts). */
const readTitleRows = prepareQuery(['workspaceId', 'id', 'kind'], (db: Kysely<Database>, slot) => {
  // The placeholder stands for a TitleKind value (bound unchanged).
  const kind = slot.kind as TitleKind;
  return db.selectFrom('titles as t')
    .leftJoin('allocations as a', (join) => join
      .onRef('a.workspace_id', '=', 't.workspace_id').onRef('a.parent_id', '=', 't.id').on('a.parent_type', '=', kind))
    .selectAll('t')
    .select((eb) => [
      'a.cost_center_id as share_cost_center_id', 'a.percentage as share_percentage', 'a.amount_cents as share_amount_cents',
      eb.selectFrom('attachment_links as l').select(sql<number | string>`count(*)`.as('n'))
        .whereRef('l.workspace_id', '=', 't.workspace_id').where('l.parent_type', '=', kind).whereRef('l.parent_id', '=', 't.id')
        .as('attachments_count'),
      // The workspace's time zone, so `overdue` is read against its today in this same query.
      eb.selectFrom('workspaces as w').select('w.timezone').whereRef('w.id', '=', 't.workspace_id').as('workspace_timezone'),
    ])
    .where('t.workspace_id', '=', slot.workspaceId).where('t.id', '=', slot.id).where('t.kind', '=', kind)
    .orderBy('a.position');
});

/**
 * One title as JSON in one query (a get reads nothing else): the row, joined to its
 * apportionment (one row per share, in position order; none: one row of nulls), with the
 * attachment count and the workspace's time zone as correlated subqueries. NOT_FOUND when not a title of this kind in the workspace.
 */
export async function readTitleJson(ctx: OperationContext, vocabulary: TitleVocabulary, id: string | undefined): Promise<Record<string, unknown>> {
  const workspaceId = requireWorkspace(ctx);
  // A malformed id can never match; answer like any other missing record (never say why).
  if (!isUuid(id)) throw notFound(vocabulary.label);
  const rows = await readTitleRows(ctx.db, { workspaceId, id, kind: vocabulary.kind });
  const first = rows[0];
  if (first === undefined) throw notFound(vocabulary.label);
  const shares = rows.flatMap((r) => (r.share_cost_center_id === null || r.share_amount_cents === null ? [] : [toAllocationJson({
    cost_center_id: r.share_cost_center_id, percentage: r.share_percentage, amount_cents: r.share_amount_cents,
  })]));
  const { share_cost_center_id: _center, share_percentage: _percentage, share_amount_cents: _amount, attachments_count: count, workspace_timezone: tz, ...title } = first;
  return toTitleJson(title, shares, Number(count ?? 0), todayIn(ctx, tz ?? DEFAULT_TIME_ZONE));
}

function readBooleanFilter(value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw validationError([{ path: 'filters.overdue', message: 'must be true or false' }]);
}

/** The list definition depends on the workspace's today (the `overdue` filter and field), so it is built per call. */
export async function buildTitleListDefinition(ctx: OperationContext, vocabulary: TitleVocabulary): Promise<ListDefinition<'titles'>> {
  const today = await readToday(ctx);
  return {
    table: 'titles',
    resourceLabel: vocabulary.label,
    columns: listColumns({
      id: 'uuid', status: 'string', due_date: 'date', competence_date: 'date', payment_date: 'date',
      amount: { column: 'amount_cents', kind: 'money' }, person_id: 'uuid', category_id: 'uuid', financial_account_id: 'uuid',
      document_number: 'string', created_at: 'timestamp',
    }),
    baseWhere: (qb: AnySelect) => qb.where('kind', '=', vocabulary.kind),
    customFilters: {
      overdue: (qb: AnySelect, _operator: FilterOperator, value: unknown) => {
        const overdue = overdueCondition(today);
        return readBooleanFilter(value) ? qb.where(overdue) : qb.where(sql<boolean>`not ${overdue}`);
      },
    },
    toJson: (rows) => toTitleJsonBatch(ctx, vocabulary.kind, rows, today),
  };
}
