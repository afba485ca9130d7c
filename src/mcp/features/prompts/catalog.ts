/**
 * The prompts this server offers: name, title, description, arguments, the tools a caller must
 * reach to be offered the prompt, and the script builder. Data plus pure builders; listing,
 * argument checks and reach filtering live in `provider.ts`.
 */
import type { PromptArgumentSpec } from './arguments.js';
import {
  buildCategorizeTransactions,
  buildMonthCloseChecklist,
  buildPlanSupplierPayments,
  buildReviewOverduePayables,
  buildWeeklyCashPosition,
  type PromptMessage,
  type ScriptContext,
} from './scripts.js';

export interface PromptDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly arguments: readonly PromptArgumentSpec[];
  /** Every one must exist and be reachable, or the prompt is neither listed nor served. */
  readonly requiresTools: readonly string[];
  build(ctx: ScriptContext): PromptMessage[];
}

const WORKSPACE: PromptArgumentSpec = {
  name: 'workspace',
  description: 'The workspace (set of books): its id from finance_workspaces_list, or its name.',
  required: true,
  kind: 'workspace',
};

function optionalAccount(purpose: string): PromptArgumentSpec {
  return { name: 'account', description: `Name or id of one financial account ${purpose}; omit for all accounts.`, required: false, kind: 'account' };
}

export const PROMPTS: readonly PromptDefinition[] = [
  {
    name: 'review_overdue_payables',
    title: 'Review overdue payables',
    description: 'Lists the overdue payables of a workspace grouped by supplier, with totals, the oldest and the largest.',
    arguments: [
      WORKSPACE,
      { name: 'days', description: 'Only payables overdue by at least this many days (1–365); omit for every overdue payable.', required: false, kind: 'days' },
    ],
    requiresTools: ['finance_payables_list'],
    build: buildReviewOverduePayables,
  },
  {
    name: 'weekly_cash_position',
    title: 'Weekly cash position',
    description: 'Projects the balance of the accounts over the next seven days from current balances and pending payables and receivables.',
    arguments: [WORKSPACE, optionalAccount('to project')],
    // hand-kept-ok: the tools this prompt's script calls, which the caller must reach
    requiresTools: ['finance_accounts_list', 'finance_accounts_get', 'finance_payables_list', 'finance_receivables_list'],
    build: buildWeeklyCashPosition,
  },
  {
    name: 'month_close_checklist',
    title: 'Month-close checklist',
    description: 'Walks the month-close checklist: pending payables and receivables, uncategorized transactions, missing receipts and closing balances.',
    arguments: [WORKSPACE, { name: 'month', description: 'The month to close, YYYY-MM.', required: true, kind: 'month' }],
    // hand-kept-ok: the tools this prompt's script calls, which the caller must reach
    requiresTools: ['finance_payables_list', 'finance_receivables_list', 'finance_transactions_list', 'finance_accounts_list', 'finance_accounts_get'],
    build: buildMonthCloseChecklist,
  },
  {
    name: 'categorize_transactions',
    title: 'Categorize transactions',
    description: 'Proposes categories from the chart of accounts for uncategorized transactions, and applies them once approved.',
    arguments: [
      WORKSPACE,
      optionalAccount('whose statement to categorize'),
      { name: 'period', description: 'YYYY-MM or YYYY-MM-DD..YYYY-MM-DD; omit for the last 30 days.', required: false, kind: 'period' },
    ],
    requiresTools: ['finance_transactions_list', 'finance_categories_list'],
    build: buildCategorizeTransactions,
  },
  {
    name: 'plan_supplier_payments',
    title: 'Plan supplier payments',
    description: 'Builds the payment schedule of a week from pending and overdue payables and checks that the account balances cover it.',
    arguments: [WORKSPACE, { name: 'week', description: 'ISO week YYYY-Www; omit for next week.', required: false, kind: 'week' }],
    // hand-kept-ok: the tools this prompt's script calls, which the caller must reach
    requiresTools: ['finance_payables_list', 'finance_accounts_list', 'finance_accounts_get'],
    build: buildPlanSupplierPayments,
  },
];
