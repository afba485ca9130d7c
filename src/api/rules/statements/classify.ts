/**
 * Classification rules (docs/domain.md#classification-rules): the active rules of a workspace in
 * `position` order, the first whose every criterion matches wins and sets its category, cost
 * center and/or person. Criteria are plain case-insensitive substrings (never a regular
 * expression built from input), an amount range and an account. Pure matching here; reading and
 * writing rows is the callers' job (statement import, rule preview, title creation).
 */
import type { Selectable } from 'kysely';
import type { ClassificationRulesTable } from '../../../store/schema.js';
import type { OperationContext } from '../../context.js';
import { requireWorkspace } from '../../records.js';
import { operation as createRule } from '../../../../generated/operations/classification_rules_create.gen.js';

const declaredCap = createRule.bounds?.maxPerWorkspace;
if (declaredCap === undefined || declaredCap === null) throw new Error('classification_rules.create declares no x-kobana-bounds.max_per_workspace');
/** Rules a workspace may hold: the contract's bound on classification_rules.create. */
const MAX_RULES_PER_WORKSPACE: number = declaredCap;

export type RuleRow = Selectable<ClassificationRulesTable>;

/** What a rule looks at. */
export interface Classifiable {
  readonly description: string;
  readonly counterparty: string | null;
  readonly amountCents: number;
  readonly accountId: string | null;
}

export interface Classification {
  readonly ruleId: string;
  readonly categoryId: string | null;
  readonly costCenterId: string | null;
  readonly personId: string | null;
}

/** Case- and accent-insensitive text for `contains`. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase('pt-BR');
}

/**
 * A rule with its texts folded once: matching a line against N rules folds the line's two texts
 * once, not N times (a preview walks up to its `max_scanned` lines over every rule).
 */
export interface PreparedRule {
  readonly row: RuleRow;
  readonly description: string | null;
  readonly counterparty: string | null;
}

/** Rules in position order, folded; `activeId` counts that rule as active (a preview). */
export function prepareRules(rules: readonly RuleRow[], activeId?: string): PreparedRule[] {
  return rules.filter((r) => Number(r.active) === 1 || r.id === activeId).map((row) => ({
    row,
    description: row.description_contains === null ? null : fold(row.description_contains),
    counterparty: row.counterparty_contains === null ? null : fold(row.counterparty_contains),
  }));
}

function matches(rule: PreparedRule, item: Classifiable, description: string, counterparty: string): boolean {
  const row = rule.row;
  if (rule.description !== null && !description.includes(rule.description)) return false;
  if (rule.counterparty !== null && !counterparty.includes(rule.counterparty)) return false;
  if (row.min_amount_cents !== null && item.amountCents < Number(row.min_amount_cents)) return false;
  if (row.max_amount_cents !== null && item.amountCents > Number(row.max_amount_cents)) return false;
  if (row.financial_account_id !== null && item.accountId !== row.financial_account_id) return false;
  return true;
}

/** The classification of the first matching prepared rule, or null. */
export function classifyPrepared(rules: readonly PreparedRule[], item: Classifiable): Classification | null {
  if (rules.length === 0) return null;
  const description = fold(item.description);
  const counterparty = fold(item.counterparty ?? '');
  const rule = rules.find((r) => matches(r, item, description, counterparty))?.row;
  return rule ? { ruleId: rule.id, categoryId: rule.set_category_id, costCenterId: rule.set_cost_center_id, personId: rule.set_person_id } : null;
}

/** The classification of the first matching active rule, or null. `rules` must be in position order. */
export function classify(rules: readonly RuleRow[], item: Classifiable): Classification | null {
  return classifyPrepared(prepareRules(rules), item);
}

/**
 * The workspace's rules in evaluation order (position, then id): at most the contract's cap of
 * rules per workspace (classification_rules.create, x-kobana-bounds.max_per_workspace), which
 * every create checks, so the read is bounded by construction.
 */
export async function loadRules(ctx: OperationContext): Promise<RuleRow[]> {
  return ctx.db.selectFrom('classification_rules').selectAll().where('workspace_id', '=', requireWorkspace(ctx))
    .orderBy('position').orderBy('id').limit(MAX_RULES_PER_WORKSPACE).execute();
}

/** What a rule gives a new payable or receivable: only what its body left out and what fits its kind. */
export interface TitleClassification {
  readonly categoryId: string | null;
  readonly costCenterId: string | null;
}

/**
 * The first matching rule's category and cost center for a new title (counterparty = its person's
 * name). A category of the other type, or a cost center of the other polarity, is not applied:
 * a rule written for statement lines must not make a title invalid.
 */
export async function classifyNewTitle(
  ctx: OperationContext, kind: { categoryType: 'debit' | 'credit'; centerPolarity: 'cost' | 'revenue' },
  item: { description: string; personId: string; amountCents: number; accountId: string | null },
): Promise<TitleClassification | null> {
  const workspaceId = requireWorkspace(ctx);
  const rules = await loadRules(ctx);
  if (rules.length === 0) return null;
  const person = await ctx.db.selectFrom('people').select('name').where('workspace_id', '=', workspaceId).where('id', '=', item.personId).executeTakeFirst();
  const match = classify(rules, { description: item.description, counterparty: person?.name ?? null, amountCents: item.amountCents, accountId: item.accountId });
  if (!match) return null;
  const category = match.categoryId === null ? undefined
    : await ctx.db.selectFrom('categories').select('type').where('workspace_id', '=', workspaceId).where('id', '=', match.categoryId).executeTakeFirst();
  const center = match.costCenterId === null ? undefined
    : await ctx.db.selectFrom('cost_centers').select('type').where('workspace_id', '=', workspaceId).where('id', '=', match.costCenterId).executeTakeFirst();
  return {
    categoryId: category?.type === kind.categoryType ? match.categoryId : null,
    costCenterId: center && (center.type === kind.centerPolarity || center.type === 'both') ? match.costCenterId : null,
  };
}
