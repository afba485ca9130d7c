/**
 * Demo bank statements (docs/domain.md#demo-data): for each account, an OFX file of its last 30
 * days — one line per transaction on it (what the bank saw), a monthly bank fee, and for the
 * checking account a customer's PIX and a boleto payment that settle two overdue titles still
 * open in the books — stored as an attachment `extrato-<account>.ofx` and already imported as
 * statement lines (so the reconciliation tools have work to show), plus two classification
 * rules. Built from the seeded rows, so every id and amount is deterministic.
 */
import { createHash } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { AuditColumns, Database, TitlesTable, TransactionsTable } from '../store/schema.js';
import { parseOfxStatement, STATEMENT_FILE_BOUNDS } from '../api/index.js';
import { classify, type RuleRow } from '../api/index.js';
import { addDays } from './finance-titles.js';

type Rows = { [T in keyof Database]?: Insertable<Database[T]>[] };

interface StatementAccount {
  readonly id: string;
  readonly key: string;
  readonly bankCode: string | null;
  readonly accountNumber: string | null;
}

export interface StatementContext {
  readonly workspaceId: string;
  readonly today: string;
  readonly nextId: () => string;
  readonly audit: (createdOn: string) => AuditColumns;
  readonly accounts: readonly StatementAccount[];
  readonly checkingAccountId: string;
  readonly bankFeeCategoryId: string;
  readonly adminCostCenterId: string;
}

interface DemoLine {
  readonly fitid: string;
  readonly on: string;
  readonly signedCents: number;
  readonly name: string;
  readonly memo: string;
}

const DAYS = 30;
const FEE_CENTS = 4_590;

const ofxDate = (date: string) => `${date.replaceAll('-', '')}120000[-3:BRT]`;
const ofxAmount = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** An OFX 1.02 (SGML) bank statement, as Brazilian banks export it. */
function renderOfx(account: StatementAccount, from: string, to: string, lines: readonly DemoLine[]): string {
  const transactions = lines.map((l) => [
    '<STMTTRN>', `<TRNTYPE>${l.signedCents < 0 ? 'DEBIT' : 'CREDIT'}`, `<DTPOSTED>${ofxDate(l.on)}`, `<TRNAMT>${ofxAmount(l.signedCents)}`,
    `<FITID>${l.fitid}`, `<NAME>${escape(l.name)}`, `<MEMO>${escape(l.memo)}`, '</STMTTRN>',
  ].join('\n')).join('\n');
  return [
    'OFXHEADER:100', 'DATA:OFXSGML', 'VERSION:102', 'SECURITY:NONE', 'ENCODING:USASCII', 'CHARSET:1252', 'COMPRESSION:NONE', 'OLDFILEUID:NONE', 'NEWFILEUID:NONE', '',
    '<OFX>', '<SIGNONMSGSRSV1>', '<SONRS>', '<STATUS>', '<CODE>0', '<SEVERITY>INFO', '</STATUS>', `<DTSERVER>${ofxDate(to)}`, '<LANGUAGE>POR', '</SONRS>', '</SIGNONMSGSRSV1>',
    '<BANKMSGSRSV1>', '<STMTTRNRS>', '<TRNUID>1', '<STATUS>', '<CODE>0', '<SEVERITY>INFO', '</STATUS>', '<STMTRS>', '<CURDEF>BRL', '<BANKACCTFROM>',
    `<BANKID>${account.bankCode ?? '000'}`, `<ACCTID>${account.accountNumber ?? account.key}`, '<ACCTTYPE>CHECKING', '</BANKACCTFROM>',
    '<BANKTRANLIST>', `<DTSTART>${ofxDate(from)}`, `<DTEND>${ofxDate(to)}`, transactions, '</BANKTRANLIST>',
    '</STMTRS>', '</STMTTRNRS>', '</BANKMSGSRSV1>', '</OFX>', '',
  ].join('\n');
}

function demoLines(ctx: StatementContext, account: StatementAccount, transactions: readonly Insertable<TransactionsTable>[], titles: readonly Insertable<TitlesTable>[], from: string): DemoLine[] {
  const lines: DemoLine[] = transactions
    .filter((t) => t.financial_account_id === account.id && t.occurred_at >= from && t.occurred_at <= ctx.today)
    .sort((a, b) => (a.occurred_at < b.occurred_at ? -1 : a.occurred_at > b.occurred_at ? 1 : a.id < b.id ? -1 : 1))
    .map((t, i) => ({
      fitid: `${account.key}-${t.occurred_at.replaceAll('-', '')}-${String(i + 1).padStart(4, '0')}`, on: t.occurred_at,
      signedCents: (t.type === 'credit' ? 1 : -1) * Number(t.amount_cents), name: (t.description ?? 'Lançamento').slice(0, 32), memo: t.description ?? 'Lançamento',
    }));
  lines.push({ fitid: `${account.key}-fee-${ctx.today.slice(0, 7)}`, on: addDays(ctx.today, -3), signedCents: -FEE_CENTS, name: 'TARIFA', memo: 'Tarifa bancária - pacote de serviços' });
  if (account.id === ctx.checkingAccountId) {
    // Two overdue titles the bank has already seen paid: reconciling settles them.
    const overdue = (kind: 'payable' | 'receivable') => titles.find((t) => t.kind === kind && t.status === 'pending' && t.due_date < ctx.today);
    const receivable = overdue('receivable');
    const payable = overdue('payable');
    // Paid two days after it fell due (yesterday at the latest): within the suggestion window.
    const paidOn = (due: string) => { const on = addDays(due, 2); return on < ctx.today ? on : addDays(ctx.today, -1); };
    if (receivable) lines.push({ fitid: `${account.key}-pix-${receivable.id.slice(-8)}`, on: paidOn(receivable.due_date), signedCents: Number(receivable.amount_cents), name: 'PIX RECEBIDO', memo: `PIX recebido - ${receivable.description}` });
    if (payable) lines.push({ fitid: `${account.key}-bol-${payable.id.slice(-8)}`, on: paidOn(payable.due_date), signedCents: -Number(payable.amount_cents), name: 'PAGTO BOLETO', memo: `Pagamento de boleto - ${payable.description}` });
  }
  return lines;
}

/** Appends the demo rules, statement files (attachments) and imported lines of one workspace. */
export function addStatements(rows: Rows, ctx: StatementContext): void {
  const from = addDays(ctx.today, -DAYS);
  const rules: RuleRow[] = [
    {
      id: ctx.nextId(), workspace_id: ctx.workspaceId, name: 'Tarifas bancárias', position: 1, active: 1, description_contains: 'tarifa',
      counterparty_contains: null, min_amount_cents: null, max_amount_cents: 50_000, financial_account_id: null,
      set_category_id: ctx.bankFeeCategoryId, set_cost_center_id: ctx.adminCostCenterId, set_person_id: null, ...ctx.audit(from),
    },
    {
      id: ctx.nextId(), workspace_id: ctx.workspaceId, name: 'Suprimento de caixa', position: 2, active: 1, description_contains: 'suprimento',
      counterparty_contains: null, min_amount_cents: null, max_amount_cents: null, financial_account_id: null,
      set_category_id: null, set_cost_center_id: ctx.adminCostCenterId, set_person_id: null, ...ctx.audit(from),
    },
  ];
  rows.classification_rules = rules;
  rows.attachments ??= [];
  rows.blobs ??= [];
  rows.statement_lines = [];
  for (const account of ctx.accounts) {
    const ofx = Buffer.from(renderOfx(account, from, ctx.today, demoLines(ctx, account, rows.transactions ?? [], rows.titles ?? [], from)), 'utf8');
    const sha256 = createHash('sha256').update(ofx).digest('hex');
    rows.blobs.push({ workspace_id: ctx.workspaceId, sha256, size: ofx.length, bytes: ofx, created_at: `${ctx.today}T12:00:00.000Z` });
    rows.attachments.push({
      id: ctx.nextId(), workspace_id: ctx.workspaceId, sha256, file_name: `extrato-${account.key}.ofx`, title: 'Extrato bancário (OFX)',
      content_type: 'application/x-ofx', size: ofx.length, ...ctx.audit(ctx.today),
    });
    for (const line of parseOfxStatement(ofx, STATEMENT_FILE_BOUNDS.maxLines)) {
      const match = classify(rules, { description: line.description, counterparty: line.counterparty, amountCents: line.amountCents, accountId: account.id });
      rows.statement_lines.push({
        id: ctx.nextId(), workspace_id: ctx.workspaceId, financial_account_id: account.id, fitid: line.fitid, posted_on: line.postedOn,
        type: line.type, amount_cents: line.amountCents, description: line.description, counterparty: line.counterparty,
        category_id: match?.categoryId ?? null, cost_center_id: match?.costCenterId ?? null, person_id: match?.personId ?? null,
        rule_id: match?.ruleId ?? null, reconciliation_id: null, ...ctx.audit(ctx.today),
      });
    }
  }
}
