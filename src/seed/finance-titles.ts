/**
 * Generates the demo payables and receivables of one workspace, with their settlement
 * transactions, apportionments and attachment links: dates relative to today so "what do I
 * owe this week?" always has an answer, amounts and statuses from a seeded PRNG. Reference
 * rows (people, accounts, chart) come in from finance.ts; inserting is finance.ts's job too.
 */
import type { Insertable } from 'kysely';
import type { AllocationsTable, AttachmentLinksTable, AuditColumns, TitlesTable, TransactionsTable } from '../store/schema.js';
import { computeShares } from '../api/index.js';
import { pickInteger, pickOne } from './finance-documents.js';

export interface SeedParty {
  readonly id: string;
  readonly name: string;
  readonly categoryId: string;
  readonly categoryName: string;
  readonly minCents: number;
  readonly maxCents: number;
  readonly monthlyDay?: number | undefined;
}

export interface TitleContext {
  readonly workspaceId: string;
  readonly today: string;
  readonly random: () => number;
  readonly nextId: () => string;
  readonly audit: (createdOn: string, updatedOn?: string) => AuditColumns;
  readonly accountIds: { readonly main: string; readonly savings: string; readonly cash: string };
  /** Centers usable by payables (cost|both) and by receivables (revenue|both). */
  readonly costCenterIds: { readonly payable: readonly string[]; readonly receivable: readonly string[] };
  readonly attachmentIds: readonly string[];
}

export interface TitleRows {
  titles: Insertable<TitlesTable>[];
  allocations: Insertable<AllocationsTable>[];
  transactions: Insertable<TransactionsTable>[];
  links: Insertable<AttachmentLinksTable>[];
}

const MONTHS = ['janeiro', 'fevereiro', 'março', 'abril', 'maio', 'junho', 'julho', 'agosto', 'setembro', 'outubro', 'novembro', 'dezembro'];
const SPLITS: readonly (readonly string[])[] = [['60', '40'], ['50', '30', '20'], ['33.33', '33.33', '33.34'], ['70', '30']];

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function pickCents(ctx: TitleContext, party: SeedParty): number {
  return pickInteger(ctx.random, party.minCents, party.maxCents);
}

/** Due dates of a monthly bill for the months from three before to two after today's. */
function listMonthlyDueDates(today: string, day: number): { due: string; label: string }[] {
  const [year, month] = today.split('-').map(Number) as [number, number];
  const dates: { due: string; label: string }[] = [];
  for (let offset = -3; offset <= 2; offset += 1) {
    const first = new Date(Date.UTC(year, month - 1 + offset, 1));
    const due = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), day)).toISOString().slice(0, 10);
    dates.push({ due, label: `${MONTHS[first.getUTCMonth()]}/${first.getUTCFullYear()}` });
  }
  return dates;
}

/** Past dues: mostly settled, some overdue; future dues: mostly pending. */
function chooseStatus(ctx: TitleContext, due: string): 'pending' | 'settled' | 'cancelled' {
  const r = ctx.random();
  if (due < ctx.today) return r < 0.72 ? 'settled' : r < 0.95 ? 'pending' : 'cancelled';
  return r < 0.06 ? 'settled' : r < 0.1 ? 'cancelled' : 'pending';
}

function chooseAccount(ctx: TitleContext, cents: number): string | null {
  const r = ctx.random();
  if (r < 0.08) return null;
  if (cents < 50_000 && r < 0.3) return ctx.accountIds.cash;
  return r < 0.8 ? ctx.accountIds.main : ctx.accountIds.savings;
}

function addAllocations(ctx: TitleContext, rows: TitleRows, kind: 'payable' | 'receivable', id: string, cents: number): void {
  const centers = ctx.costCenterIds[kind];
  const split = pickOne(ctx.random, SPLITS).slice(0, centers.length);
  if (split.length < 2) return;
  const requested = split.map((p, i) => ({ costCenterId: centers[i] as string, basisPoints: Math.round(Number(p) * 100), cents: null }));
  // The residue rule is the operations' rule; percentages that do not reach 100 are topped up on the last row.
  const total = requested.reduce((sum, r) => sum + (r.basisPoints ?? 0), 0);
  const last = requested[requested.length - 1] as (typeof requested)[number];
  requested[requested.length - 1] = { ...last, basisPoints: (last.basisPoints ?? 0) + 10_000 - total };
  computeShares(cents, requested).forEach((share, position) => {
    rows.allocations.push({
      id: ctx.nextId(), workspace_id: ctx.workspaceId, parent_type: kind, parent_id: id,
      cost_center_id: share.costCenterId, percentage: share.percentage, amount_cents: share.cents, position,
    });
  });
}

interface TitleSpec {
  readonly kind: 'payable' | 'receivable';
  readonly party: SeedParty;
  readonly due: string;
  readonly description: string;
  readonly cents: number;
  readonly documentNumber: string | null;
}

function addTitle(ctx: TitleContext, rows: TitleRows, spec: TitleSpec): void {
  const id = ctx.nextId();
  const status = chooseStatus(ctx, spec.due);
  // Created before both the due date and any early payment (at most five days back).
  const createdOn = [addDays(spec.due, -20), addDays(ctx.today, -7)].sort()[0] as string;
  const base: Insertable<TitlesTable> = {
    id, workspace_id: ctx.workspaceId, kind: spec.kind, description: spec.description, amount_cents: spec.cents,
    due_date: spec.due, competence_date: spec.due.slice(0, 8) + '01', status: 'pending', person_id: spec.party.id,
    category_id: spec.party.categoryId, financial_account_id: chooseAccount(ctx, spec.cents),
    document_number: spec.documentNumber, notes: null, payment_date: null, paid_amount_cents: null,
    interest_cents: null, discount_cents: null, transaction_id: null, ...ctx.audit(createdOn),
  };
  if (status === 'cancelled') Object.assign(base, { status: 'cancelled', ...ctx.audit(createdOn, createdOn) });
  if (status === 'settled') settleTitle(ctx, rows, base);
  rows.titles.push(base);
  if (ctx.random() < 0.25) addAllocations(ctx, rows, spec.kind, id, spec.cents);
  if (spec.kind === 'payable' && rows.links.length < ctx.attachmentIds.length && ctx.random() < 0.2) {
    rows.links.push({
      id: ctx.nextId(), workspace_id: ctx.workspaceId, attachment_id: ctx.attachmentIds[rows.links.length] as string,
      parent_type: 'payable', parent_id: id, created_at: `${createdOn}T12:00:00.000Z`, created_by: base.created_by,
    });
  }
}

/** Settles like payables.settle would: interest when late, a small discount on early receipts, one linked transaction. */
function settleTitle(ctx: TitleContext, rows: TitleRows, title: Insertable<TitlesTable>): void {
  const due = title.due_date;
  let paid = due < ctx.today ? addDays(due, pickInteger(ctx.random, -3, 4)) : addDays(ctx.today, -pickInteger(ctx.random, 0, 5));
  if (paid > ctx.today) paid = ctx.today;
  const lateDays = Math.max(0, Math.round((Date.parse(paid) - Date.parse(due)) / 86_400_000));
  const cents = Number(title.amount_cents);
  const interest = lateDays > 0 ? Math.floor((cents * lateDays * 33) / 10_000) : 0;
  const discount = title.kind === 'receivable' && paid < due && ctx.random() < 0.5 ? Math.floor((cents * 2) / 100) : 0;
  const accountId = title.financial_account_id ?? ctx.accountIds.main;
  const transactionId = ctx.nextId();
  rows.transactions.push({
    id: transactionId, workspace_id: ctx.workspaceId, financial_account_id: accountId,
    type: title.kind === 'payable' ? 'debit' : 'credit', amount_cents: cents + interest - discount, occurred_at: paid,
    description: title.description, category_id: title.category_id ?? null, person_id: title.person_id,
    source: 'settlement', source_id: title.id, ...ctx.audit(paid),
  });
  Object.assign(title, {
    status: title.kind === 'payable' ? 'paid' : 'received', financial_account_id: accountId, payment_date: paid,
    paid_amount_cents: cents + interest - discount, interest_cents: interest, discount_cents: discount,
    transaction_id: transactionId, ...ctx.audit(String(title.created_at).slice(0, 10), paid), version: 2,
  });
}

function formatDocumentNumber(ctx: TitleContext, kind: 'payable' | 'receivable'): string | null {
  const r = ctx.random();
  if (r < 0.2) return null;
  return kind === 'payable' ? `NF-e ${pickInteger(ctx.random, 1000, 99_999)}` : `Pedido ${pickInteger(ctx.random, 100, 9_999)}`;
}

/** Monthly bills, then one-off bills spread over past and future months, then a few due this week. */
export function generateTitles(ctx: TitleContext, vendors: readonly SeedParty[], customers: readonly SeedParty[], oneOffs: { payables: number; receivables: number }): TitleRows {
  const rows: TitleRows = { titles: [], allocations: [], transactions: [], links: [] };
  for (const [kind, parties] of [['payable', vendors], ['receivable', customers]] as const) {
    for (const party of parties.filter((p) => p.monthlyDay !== undefined)) {
      for (const { due, label } of listMonthlyDueDates(ctx.today, party.monthlyDay as number)) {
        addTitle(ctx, rows, { kind, party, due, description: `${party.categoryName} ${label}`, cents: pickCents(ctx, party), documentNumber: formatDocumentNumber(ctx, kind) });
      }
    }
    const oneOffParties = parties.filter((p) => p.monthlyDay === undefined);
    const count = kind === 'payable' ? oneOffs.payables : oneOffs.receivables;
    for (let i = 0; i < count; i += 1) {
      const party = pickOne(ctx.random, oneOffParties);
      // The last few land in the coming week so "what do I owe this week?" is never empty.
      const offset = i >= count - 4 ? pickInteger(ctx.random, 0, 6) : pickInteger(ctx.random, -100, 75);
      const documentNumber = formatDocumentNumber(ctx, kind);
      const description = `${party.categoryName} — ${party.name}`;
      addTitle(ctx, rows, { kind, party, due: addDays(ctx.today, offset), description, cents: pickCents(ctx, party), documentNumber });
    }
  }
  return rows;
}
