/**
 * classification_rules.*: CRUD of the rules that classify imported statement lines and new
 * titles (docs/domain.md#classification-rules; matching is src/api/rules/statements/classify.ts),
 * and `preview` (a saved rule) / `preview_draft` (an unsaved one, the body a create takes): the
 * unreconciled lines the rule would win — no earlier active rule matches them — and the values
 * they would get, evaluated exactly as an import evaluates, changing nothing.
 * Both are bounded by the contract (x-kobana-bounds, docs/domain.md#bounded-work): a workspace
 * holds at most `max_per_workspace` rules (a create beyond it is UNPROCESSABLE_ENTITY), and a
 * preview walks at most `max_scanned` lines, newest first, in chunks that check the call's
 * deadline, answering `meta.truncated` when there were more (narrowed with `from`/`to`).
 */
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { ClassificationRulesTable, StatementLinesTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { insertAudit, recordActivity } from '../audit.js';
import { defineOperations } from '../define-operations.js';
import { defineResource } from '../define-resource.js';
import { ApiError } from '../errors.js';
import { listColumns } from '../list.js';
import { shows } from '../omitted.js';
import { formatCents, formatMoneyOrNull, parseMoneyInputAllowZero } from '../money.js';
import { auditJson, boolColumn, findInWorkspace, readBody, requireWorkspace, toBool } from '../records.js';
import { isUuid } from '../../runtime/values.js';
import { classifyPrepared, loadRules, prepareRules, type PreparedRule } from '../rules/statements/classify.js';
import { forEachChunk } from '../chunks.js';
import { readOptionalReference, requireAccountReference, requirePersonReference } from '../rules/references.js';

type RuleRow = Selectable<ClassificationRulesTable>;
const LABEL = 'Classification rule';
const PREVIEW_LINES = 100;

/** The contract's bound of an operation, or a deployment error (generated/ and the handler disagree). */
function declared(ctx: OperationContext, key: 'maxScanned' | 'maxPerWorkspace'): number {
  const bound = ctx.bounds?.[key];
  if (bound === undefined || bound === null) throw new Error(`classification rules: the contract declares no ${key}`);
  return bound;
}

const readDay = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function toJson(row: RuleRow): Record<string, unknown> {
  return {
    id: row.id, name: row.name, position: Number(row.position), active: toBool(row.active),
    description_contains: row.description_contains, counterparty_contains: row.counterparty_contains,
    min_amount: formatMoneyOrNull(row.min_amount_cents), max_amount: formatMoneyOrNull(row.max_amount_cents),
    financial_account_id: row.financial_account_id, category_id: row.set_category_id, cost_center_id: row.set_cost_center_id,
    person_id: row.set_person_id, ...auditJson(row),
  };
}

function unprocessable(message: string): ApiError {
  return new ApiError('UNPROCESSABLE_ENTITY', message);
}

async function requireRecord(ctx: OperationContext, table: 'categories' | 'cost_centers', id: unknown, label: string): Promise<string> {
  if (!isUuid(id)) throw unprocessable(`The ${label} does not exist in this workspace.`);
  const row = await ctx.db.selectFrom(table).select('id').where('workspace_id', '=', requireWorkspace(ctx)).where('id', '=', id).executeTakeFirst();
  if (!row) throw unprocessable(`The ${label} does not exist in this workspace.`);
  return id;
}

const readText = (value: unknown): string | null | undefined => (value === undefined ? undefined : value === null ? null : String(value).trim() || null);
const readCents = (value: unknown, path: string): number | null | undefined =>
  (value === undefined ? undefined : value === null ? null : parseMoneyInputAllowZero(value, path));

/** The column changes a create or update body asks for; references are checked. */
async function readChanges(ctx: OperationContext, body: Record<string, unknown>): Promise<Partial<ClassificationRulesTable>> {
  const changes: Partial<ClassificationRulesTable> = {};
  const set = <K extends keyof ClassificationRulesTable>(key: K, value: ClassificationRulesTable[K] | undefined) => { if (value !== undefined) changes[key] = value; };
  if (body['name'] !== undefined) set('name', String(body['name']).trim());
  if (body['position'] !== undefined) set('position', Number(body['position']));
  if (body['active'] !== undefined) set('active', boolColumn(body['active']));
  set('description_contains', readText(body['description_contains']));
  set('counterparty_contains', readText(body['counterparty_contains']));
  set('min_amount_cents', readCents(body['min_amount'], 'min_amount'));
  set('max_amount_cents', readCents(body['max_amount'], 'max_amount'));
  set('financial_account_id', await readOptionalReference(body['financial_account_id'], (id) => requireAccountReference(ctx, id)));
  set('set_category_id', await readOptionalReference(body['category_id'], (id) => requireRecord(ctx, 'categories', id, 'category')));
  set('set_cost_center_id', await readOptionalReference(body['cost_center_id'], (id) => requireRecord(ctx, 'cost_centers', id, 'cost center')));
  set('set_person_id', await readOptionalReference(body['person_id'], (id) => requirePersonReference(ctx, id)));
  return changes;
}

/**
 * The amount range must make sense. A rule without criteria matches everything (a catch-all, put
 * last); one without actions claims what it matches and leaves it unclassified (an exclusion).
 */
function assertComplete(rule: Pick<ClassificationRulesTable, 'min_amount_cents' | 'max_amount_cents'>): void {
  if (rule.min_amount_cents !== null && rule.max_amount_cents !== null && Number(rule.min_amount_cents) > Number(rule.max_amount_cents)) {
    throw unprocessable('min_amount must not be greater than max_amount.');
  }
}

/** The create's bound: a workspace holds at most `max_per_workspace` rules, counted in the create's transaction. */
async function assertRoomForRule(ctx: OperationContext, workspaceId: string): Promise<void> {
  const cap = declared(ctx, 'maxPerWorkspace');
  // Every rule is evaluated on every import and preview.
  const held = await ctx.db.selectFrom('classification_rules').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', workspaceId).executeTakeFirst();
  if (Number(held?.n ?? 0) >= cap) {
    throw new ApiError('UNPROCESSABLE_ENTITY', `A workspace holds at most ${cap} classification rules; delete or merge one first.`, { bound: 'max_per_workspace', limit: cap });
  }
}

/** A new rule's columns: what the body sets, the rest empty, placed last unless it says where. */
async function newRuleColumns(ctx: OperationContext, workspaceId: string, changes: Partial<ClassificationRulesTable>) {
  const last = await ctx.db.selectFrom('classification_rules').select((eb) => eb.fn.max('position').as('position'))
    .where('workspace_id', '=', workspaceId).executeTakeFirst();
  return {
    name: changes.name ?? '', position: changes.position ?? Number(last?.position ?? 0) + 1, active: changes.active ?? 1,
    description_contains: changes.description_contains ?? null, counterparty_contains: changes.counterparty_contains ?? null,
    min_amount_cents: changes.min_amount_cents ?? null, max_amount_cents: changes.max_amount_cents ?? null,
    financial_account_id: changes.financial_account_id ?? null, set_category_id: changes.set_category_id ?? null,
    set_cost_center_id: changes.set_cost_center_id ?? null, set_person_id: changes.set_person_id ?? null,
  };
}

/** Answered as stored (re-read): unlike the plain resources, its JSON is read back after the insert. */
const createRule: OperationHandler = async (ctx, input) => {
  const workspaceId = requireWorkspace(ctx);
  await assertRoomForRule(ctx, workspaceId);
  const rule = await newRuleColumns(ctx, workspaceId, await readChanges(ctx, readBody(input.body)));
  assertComplete(rule);
  const id = randomUUID();
  await ctx.db.insertInto('classification_rules').values({ id, workspace_id: workspaceId, ...rule, ...insertAudit(ctx) }).execute();
  await recordActivity(ctx, { operation: 'classification_rules.create', resource: 'classification_rules', recordId: id });
  return { outcome: 'created', body: toJson(await findInWorkspace(ctx, 'classification_rules', id, LABEL)) };
};

type LineRow = Selectable<StatementLinesTable>;

/** The newest unreconciled lines within `from`..`to`, at most the bound (+1 to know there were more). */
async function readPreviewLines(ctx: OperationContext, query: Readonly<Record<string, unknown>>, maxScanned: number): Promise<LineRow[]> {
  const from = readDay(query['from']);
  const to = readDay(query['to']);
  let qb = ctx.db.selectFrom('statement_lines').selectAll().where('workspace_id', '=', requireWorkspace(ctx)).where('reconciliation_id', 'is', null);
  if (from !== undefined) qb = qb.where('posted_on', '>=', from);
  if (to !== undefined) qb = qb.where('posted_on', '<=', to);
  return qb.orderBy('posted_on', 'desc').orderBy('id').limit(maxScanned + 1).execute();
}

/** The lines `rule` wins among `rules` (evaluated as an import evaluates), walked in chunks that check the deadline. */
async function findWonLines(ctx: OperationContext, rules: readonly PreparedRule[], rule: RuleRow, lines: readonly LineRow[]): Promise<LineRow[]> {
  const won: LineRow[] = [];
  await forEachChunk(lines, ctx.deadline, (chunk) => {
    for (const line of chunk) {
      const match = classifyPrepared(rules, {
        description: line.description, counterparty: line.counterparty, amountCents: Number(line.amount_cents), accountId: line.financial_account_id,
      });
      if (match?.ruleId === rule.id) won.push(line);
    }
  });
  return won;
}

/** A won line as the preview shows it: with the values the rule would give it. */
function toPreviewLine(rule: RuleRow, line: LineRow): Record<string, unknown> {
  return {
    id: line.id, posted_on: line.posted_on, amount: formatCents(line.amount_cents), description: line.description,
    category_id: rule.set_category_id ?? line.category_id, cost_center_id: rule.set_cost_center_id ?? line.cost_center_id,
    person_id: rule.set_person_id ?? line.person_id,
  };
}

/**
 * What `rule` would win among `rules` (in evaluation order, `rule` among them and counted as
 * active), evaluated as an import would: the preview of a saved rule and of an unsaved one.
 */
async function previewAmong(ctx: OperationContext, query: Readonly<Record<string, unknown>>, rules: readonly RuleRow[], rule: RuleRow, ruleId: string | null) {
  const maxScanned = declared(ctx, 'maxScanned');
  const read = await readPreviewLines(ctx, query, maxScanned);
  const lines = read.slice(0, maxScanned);
  const won = await findWonLines(ctx, prepareRules(rules, rule.id), rule, lines);
  const truncated = read.length > maxScanned;
  return {
    body: {
      rule_id: ruleId, count: won.length,
      // The count is a total; the lines themselves are records (docs/security.md#resources-touched).
      statement_lines: !shows(ctx, 'reconciliations') ? [] : won.slice(0, PREVIEW_LINES).map((line) => toPreviewLine(rule, line)),
      meta: {
        truncated, lines_scanned: lines.length, max_lines_scanned: maxScanned,
        // The walk stopped here: `to` before this day (or a `from`..`to` window) reaches older lines.
        // A line's date is a statement line's: only to a caller who may read them.
        ...(truncated && shows(ctx, 'reconciliations') ? { oldest_scanned: lines.at(-1)?.posted_on ?? null } : {}),
      },
    },
  };
}

const previewRule: OperationHandler = async (ctx, input) => {
  const rule = await findInWorkspace(ctx, 'classification_rules', input.path['id'] ?? '', LABEL);
  return previewAmong(ctx, input.query, await loadRules(ctx), rule, rule.id);
};

/**
 * An unsaved rule, read as a create reads its body (references checked, nothing written), placed
 * at its `position` after the saved rules of that position (default: last) and given an id no
 * row has, so it is evaluated with the saved rules as it would be once created.
 */
const previewDraft: OperationHandler = async (ctx, input) => {
  const workspaceId = requireWorkspace(ctx);
  const columns = await newRuleColumns(ctx, workspaceId, await readChanges(ctx, readBody(input.body)));
  assertComplete(columns);
  const saved = await loadRules(ctx);
  const draft: RuleRow = { id: randomUUID(), workspace_id: workspaceId, ...columns, ...insertAudit(ctx) };
  const at = saved.findIndex((row) => Number(row.position) > draft.position);
  const rules = at < 0 ? [...saved, draft] : [...saved.slice(0, at), draft, ...saved.slice(at)];
  return previewAmong(ctx, input.query, rules, draft, null);
};

export const handlers = defineOperations({
  ...defineResource({
    resource: 'classification_rules',
    label: LABEL,
    columns: listColumns({ id: 'uuid', position: 'integer', active: 'boolean', created_at: 'timestamp' }),
    toJson,
    update: async (ctx, body, current) => {
      const changes = await readChanges(ctx, body);
      assertComplete({ ...current, ...changes });
      return changes;
    },
    delete: 'hard',
  }),
  'classification_rules.create': createRule,
  'classification_rules.preview': previewRule,
  'classification_rules.preview_draft': previewDraft,
});
