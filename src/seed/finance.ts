/**
 * Seeds the finance demo data of docs/domain.md#demo-data into both demo workspaces: companies,
 * vendors and customers with valid CPF/CNPJ, a three-level chart of accounts, three accounts
 * with opening balances, cost centers, taxes, ~200 payables and receivables (title generation
 * lives in finance-titles.ts), attachments and transfers. Deterministic ids and amounts; dates
 * relative to today. The identity it refers to (workspaces, ana) is identity.ts's.
 */
import { createHash } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import type { AuditColumns, Database } from '../store/schema.js';
import { ANA_PERSON_ID, FILIAL_WORKSPACE_ID, MATRIZ_WORKSPACE_ID } from './ids.js';
import { ACCOUNTS, CHART_OF_ACCOUNTS, COST_CENTERS, CUSTOMERS, TAXES, VENDORS, type CategoryNode, type CustomerSeed, type VendorSeed } from './finance-catalog.js';
import { createIdFactory, createRandom, generateCnpj, generateCpf } from './finance-documents.js';
import { addDays, generateTitles, type SeedParty, type TitleContext, type TitleRows } from './finance-titles.js';
import { addStatements, type StatementContext } from './finance-statements.js';

type Rows = { [T in keyof Database]?: Insertable<Database[T]>[] };

interface WorkspacePlan {
  readonly workspaceId: string;
  readonly namespace: number;
  readonly companyName: string;
  readonly vendorCount: number;
  readonly customerCount: number;
  readonly oneOffs: { payables: number; receivables: number };
}

const PLANS: readonly WorkspacePlan[] = [
  { workspaceId: MATRIZ_WORKSPACE_ID, namespace: 1, companyName: 'Demo Ltda — Matriz', vendorCount: VENDORS.length, customerCount: CUSTOMERS.length, oneOffs: { payables: 34, receivables: 44 } },
  { workspaceId: FILIAL_WORKSPACE_ID, namespace: 2, companyName: 'Demo Ltda — Filial Campinas', vendorCount: 9, customerCount: 7, oneOffs: { payables: 16, receivables: 22 } },
];

/** A minimal valid PDF, so the demo attachments pass the magic-byte check when downloaded and re-uploaded. */
const DEMO_PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

function createAudit(createdOn: string, updatedOn?: string): AuditColumns {
  return {
    created_at: `${createdOn}T12:00:00.000Z`, updated_at: `${updatedOn ?? createdOn}T12:00:00.000Z`,
    created_by: ANA_PERSON_ID, updated_by: ANA_PERSON_ID, created_via: 'web', updated_via: 'web', version: 1,
  };
}

/** Catalog constants have at most two decimals, so rounding the product recovers the exact cents. */
function toCents(reais: number): number {
  return Math.round(reais * 100);
}

/** Walks the chart tree; children inherit the root's type (docs/domain.md#resources). */
function buildCategories(plan: WorkspacePlan, nextId: () => string, onDate: string): { rows: Insertable<Database['categories']>[]; ids: Map<string, { id: string; name: string }> } {
  const rows: Insertable<Database['categories']>[] = [];
  const ids = new Map<string, { id: string; name: string }>();
  const visit = (node: CategoryNode, type: 'debit' | 'credit', parentId: string | null, level: number): void => {
    const id = nextId();
    ids.set(node.key, { id, name: node.name });
    rows.push({ id, workspace_id: plan.workspaceId, name: node.name, type, parent_id: parentId, level, ...createAudit(onDate) });
    for (const child of node.children ?? []) visit(child, type, id, level + 1);
  };
  for (const { type, root } of CHART_OF_ACCOUNTS) visit(root, type, null, 1);
  return { rows, ids };
}

/** The workspace's deterministic draws: ids and random numbers, each taken in a fixed order. */
interface Draws {
  readonly nextId: () => string;
  readonly random: () => number;
}

type Seeded<T> = { readonly id: string; readonly seed: T };

/** The workspace's company, chart of accounts, accounts, cost centers and taxes. */
interface Catalog {
  readonly rows: Rows;
  readonly chart: ReturnType<typeof buildCategories>;
  readonly accounts: readonly Seeded<(typeof ACCOUNTS)[number]>[];
  readonly centers: readonly Seeded<(typeof COST_CENTERS)[number]>[];
}

function buildWorkspaceRows(plan: WorkspacePlan, today: string): Rows {
  const draws: Draws = { nextId: createIdFactory(plan.namespace), random: createRandom(0x5eed + plan.namespace) };
  const { nextId } = draws;
  const start = addDays(today, -120);
  const ws = plan.workspaceId;
  const catalog = buildCatalog(plan, draws, start);
  const { rows, accounts } = catalog;
  const vendors = VENDORS.slice(0, plan.vendorCount).map((v) => addParty(rows, ws, draws, catalog, v, true, start));
  const customers = CUSTOMERS.slice(0, plan.customerCount).map((c) => addParty(rows, ws, draws, catalog, c, false, start));
  const [main, savings, cash] = accounts.map((a) => a.id) as [string, string, string];
  const attachmentIds = Array.from({ length: 8 }, () => nextId());
  const context: TitleContext = {
    workspaceId: ws, today, random: draws.random, nextId, audit: createAudit, accountIds: { main, savings, cash },
    costCenterIds: {
      payable: catalog.centers.filter((c) => c.seed.type !== 'revenue').map((c) => c.id),
      receivable: catalog.centers.filter((c) => c.seed.type !== 'cost').map((c) => c.id),
    },
    attachmentIds,
  };
  const titles = generateTitles(context, vendors, customers, plan.oneOffs);
  addOpeningBalances(titles, ws, accounts, nextId, start);
  addTransfers(rows, titles, ws, { main, savings, cash }, nextId, today);
  addAttachments(rows, titles, ws, attachmentIds, start);
  const all: Rows = { ...rows, titles: titles.titles, allocations: titles.allocations, transactions: titles.transactions, attachment_links: titles.links };
  // Last, so the ids drawn before it stay what they were.
  addStatements(all, statementContext(ws, today, nextId, catalog));
  return all;
}

/** The catalog's rows (ids drawn in this order: chart, accounts, cost centers, company, taxes); `people` starts empty. */
function buildCatalog(plan: WorkspacePlan, { nextId, random }: Draws, start: string): Catalog {
  const ws = plan.workspaceId;
  const chart = buildCategories(plan, nextId, start);
  const accounts = ACCOUNTS.map((a) => ({ id: nextId(), seed: a }));
  const centers = COST_CENTERS.map((c) => ({ id: nextId(), seed: c }));
  const rows: Rows = {
    companies: [{ id: nextId(), workspace_id: ws, cnpj: generateCnpj(random), name: plan.companyName, trade_name: 'Demo', active: 1, deleted_at: null, ...createAudit(start) }],
    categories: chart.rows,
    accounts: accounts.map(({ id, seed }) => ({ id, workspace_id: ws, name: seed.name, type: seed.type, bank_code: seed.bank_code, agency: seed.agency, account_number: seed.account_number, active: 1, ...createAudit(start) })),
    cost_centers: centers.map(({ id, seed }) => ({ id, workspace_id: ws, name: seed.name, type: seed.type, active: 1, ...createAudit(start) })),
    taxes: TAXES.map((t) => ({ id: nextId(), workspace_id: ws, name: t.name, default_rate: t.default_rate, active: 1, ...createAudit(start) })),
    people: [],
  };
  return { rows, chart, accounts, centers };
}

/** Adds a vendor (`isSupplier`) or customer to `rows.people`; returns it as titles see it. */
function addParty(rows: Rows, ws: string, { nextId, random }: Draws, catalog: Catalog, seed: VendorSeed | CustomerSeed, isSupplier: boolean, start: string): SeedParty {
  const id = nextId();
  const category = catalog.chart.ids.get(seed.category) as { id: string; name: string };
  rows.people?.push({
    id, workspace_id: ws, name: seed.name, kind: seed.kind, document_number: seed.kind === 'natural' ? generateCpf(random) : generateCnpj(random),
    is_customer: isSupplier ? 0 : 1, is_supplier: isSupplier ? 1 : 0, emails: JSON.stringify([seed.email]), deleted_at: null, ...createAudit(start),
  });
  return { id, name: seed.name, categoryId: category.id, categoryName: category.name, minCents: toCents(seed.min), maxCents: toCents(seed.max), monthlyDay: 'monthlyDay' in seed ? seed.monthlyDay : undefined };
}

function statementContext(ws: string, today: string, nextId: () => string, catalog: Catalog): StatementContext {
  const { accounts, chart, centers } = catalog;
  return {
    workspaceId: ws, today, nextId, audit: (on) => createAudit(on),
    accounts: accounts.map(({ id, seed }) => ({ id, key: seed.key, bankCode: seed.bank_code, accountNumber: seed.account_number })),
    checkingAccountId: accounts[0]?.id as string, bankFeeCategoryId: (chart.ids.get('tributos') as { id: string }).id,
    adminCostCenterId: (centers.find((c) => c.seed.key === 'adm') as { id: string }).id,
  };
}

function addOpeningBalances(titles: TitleRows, ws: string, accounts: readonly Seeded<(typeof ACCOUNTS)[number]>[], nextId: () => string, start: string): void {
  for (const { id, seed } of accounts) {
    titles.transactions.push({
      id: nextId(), workspace_id: ws, financial_account_id: id, type: 'credit', amount_cents: toCents(seed.opening), occurred_at: start,
      description: 'Saldo inicial', category_id: null, person_id: null, source: 'manual', source_id: null, ...createAudit(start),
    });
  }
}

function addTransfers(rows: Rows, titles: TitleRows, ws: string, ids: { main: string; savings: string; cash: string }, nextId: () => string, today: string): void {
  const plan = [
    { from: ids.main, to: ids.cash, cents: 80_000, days: -20, description: 'Suprimento de caixa' },
    { from: ids.main, to: ids.savings, cents: 1_500_000, days: -45, description: 'Aplicação na poupança' },
  ];
  rows.transfers = plan.map((t) => {
    const id = nextId();
    const on = addDays(today, t.days);
    const debit = nextId();
    const credit = nextId();
    for (const [txId, account, type] of [[debit, t.from, 'debit'], [credit, t.to, 'credit']] as const) {
      titles.transactions.push({
        id: txId, workspace_id: ws, financial_account_id: account, type, amount_cents: t.cents, occurred_at: on,
        description: t.description, category_id: null, person_id: null, source: 'transfer', source_id: id, ...createAudit(on),
      });
    }
    return { id, workspace_id: ws, from_account_id: t.from, to_account_id: t.to, amount_cents: t.cents, occurred_at: on, description: t.description, debit_transaction_id: debit, credit_transaction_id: credit, ...createAudit(on) };
  });
}

/** One stored blob backs every demo attachment (content-addressed); only the linked ones are created. */
function addAttachments(rows: Rows, titles: TitleRows, ws: string, attachmentIds: readonly string[], start: string): void {
  const sha256 = createHash('sha256').update(DEMO_PDF).digest('hex');
  rows.blobs = [{ workspace_id: ws, sha256, size: DEMO_PDF.length, bytes: DEMO_PDF, created_at: `${start}T12:00:00.000Z` }];
  const linked = new Set(titles.links.map((l) => l.attachment_id));
  rows.attachments = attachmentIds.filter((id) => linked.has(id)).map((id, i) => ({
    id, workspace_id: ws, sha256, file_name: `boleto-${String(i + 1).padStart(3, '0')}.pdf`, title: 'Boleto', content_type: 'application/pdf',
    size: DEMO_PDF.length, ...createAudit(start),
  }));
}

const INSERT_ORDER: readonly (keyof Database)[] = [
  'companies', 'categories', 'accounts', 'cost_centers', 'taxes', 'people', 'titles', 'allocations', 'transactions',
  'transfers', 'blobs', 'attachments', 'attachment_links', 'classification_rules', 'statement_lines',
];

async function insertRows(db: Kysely<Database>, rows: Rows): Promise<void> {
  for (const table of INSERT_ORDER) {
    const values = (rows[table] ?? []) as Insertable<Database[typeof table]>[];
    // Batches keep each statement under SQLite's and PostgreSQL's bound-parameter limits.
    for (let i = 0; i < values.length; i += 200) {
      // Table is a loop variable over a static list; Kysely cannot type a union of tables here.
      await (db as Kysely<any>).insertInto(table).values(values.slice(i, i + 200)).execute();
    }
  }
}

/** `now`: the instant of the seed; the records' dates are laid out around its UTC day. */
export async function seedFinanceDemo(db: Kysely<Database>, now: Date): Promise<void> {
  const today = now.toISOString().slice(0, 10);
  const planned = PLANS.map((plan) => buildWorkspaceRows(plan, today));
  await db.transaction().execute(async (trx) => {
    const firstAccountId = planned[0]?.accounts?.[0]?.id as string;
    const existing = await trx.selectFrom('accounts').select('id').where('workspace_id', '=', MATRIZ_WORKSPACE_ID).where('id', '=', firstAccountId).executeTakeFirst();
    if (existing) return;
    for (const rows of planned) await insertRows(trx, rows);
  });
}
