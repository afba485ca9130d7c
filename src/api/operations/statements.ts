/**
 * statements.import: an OFX file becomes statement lines of one account (docs/domain.md#bank-statements).
 * The whole import is one database transaction (execute.ts opens it for every write): a file that
 * does not parse, or any failure midway, writes nothing. Lines are unique per (account, FITID) in
 * the database, so a second import of the same file — or two at once — adds nothing. New lines
 * are classified by the workspace's rules as they are inserted. The file is bounded by the
 * contract (x-kobana-bounds: `max_tags`, pre-scanned before parsing; `max_lines`) and parsed in a
 * worker thread (src/api/rules/statements/ofx-thread.ts); the inserts check the deadline between
 * batches (docs/domain.md#bounded-work).
 */
import { randomUUID } from 'node:crypto';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { StatementLinesTable } from '../../store/schema.js';
import { insertAudit, recordActivity } from '../audit.js';
import { defineOperations } from '../define-operations.js';
import { ApiError, validationError } from '../errors.js';
import { findInWorkspace, requireWorkspace } from '../records.js';
import { checkUploadInput } from '../rules/attachments/upload-input.js';
import { classifyPrepared, loadRules, prepareRules } from '../rules/statements/classify.js';
import { OfxBoundExceeded, OfxParseFailure, prescanOfx, STATEMENT_FILE_BOUNDS, type OfxLine } from '../rules/statements/ofx.js';
import { parseOfxOffThread } from '../rules/statements/ofx-thread.js';
import type { OperationContext, OperationInput } from '../context.js';
import { listColumns, listRecords, readListSpec, type AnySelect, type ListDefinition } from '../list.js';
import { formatCents } from '../money.js';
import { suggestMatches } from '../rules/statements/suggestions.js';
import type { FilterOperator } from '../../runtime/types.js';

const BATCH = 200;

function readOfxFile(input: OperationInput): Uint8Array {
  const body = (typeof input.body === 'object' && input.body !== null ? input.body : {}) as Record<string, unknown>;
  // The attachment checks (size, base64, file name, type) are the statement's too; the type defaults to OFX.
  const file = checkUploadInput({ ...input, body: { ...body, content_type: body['content_type'] ?? 'application/x-ofx' } });
  if (file.kind !== 'ofx') throw new ApiError('UNPROCESSABLE_ENTITY', 'Only OFX statements can be imported.');
  return file.bytes;
}

const BOUND_MESSAGES: Readonly<Record<OfxBoundExceeded['bound'], (limit: number) => string>> = {
  max_tags: (limit) => `The file has more than ${limit} OFX tags; split it by period. Nothing was imported.`,
  max_lines: (limit) => `The file has more than ${limit} transactions; split it by period. Nothing was imported.`,
};

/** Pre-scanned on the event loop (linear, native), parsed in a worker thread; the contract's bounds (x-kobana-bounds). */
async function parse(ctx: OperationContext, bytes: Uint8Array): Promise<OfxLine[]> {
  try {
    prescanOfx(bytes, STATEMENT_FILE_BOUNDS.maxTags);
    return await parseOfxOffThread(bytes, STATEMENT_FILE_BOUNDS.maxLines, ctx.deadline);
  } catch (err) {
    if (err instanceof OfxBoundExceeded) throw new ApiError('UNPROCESSABLE_ENTITY', BOUND_MESSAGES[err.bound](err.limit), { bound: err.bound, limit: err.limit });
    if (err instanceof OfxParseFailure) throw new ApiError('UNPROCESSABLE_ENTITY', 'The file is not a readable OFX statement; nothing was imported.');
    throw err;
  }
}

async function toLineJson(ctx: OperationContext, rows: readonly Selectable<StatementLinesTable>[]): Promise<object[]> {
  const suggestions = await suggestMatches(ctx, rows);
  return rows.map((row) => ({
    id: row.id, financial_account_id: row.financial_account_id, fitid: row.fitid, posted_on: row.posted_on, type: row.type,
    amount: formatCents(row.amount_cents), description: row.description, counterparty: row.counterparty, category_id: row.category_id,
    cost_center_id: row.cost_center_id, person_id: row.person_id, rule_id: row.rule_id,
    status: row.reconciliation_id === null ? 'unreconciled' : 'reconciled', reconciliation_id: row.reconciliation_id,
    suggestions: suggestions.get(row.id) ?? [], created_at: row.created_at, version: Number(row.version),
  }));
}

function lineList(ctx: OperationContext, accountId: string): ListDefinition<'statement_lines'> {
  return {
    table: 'statement_lines',
    resourceLabel: 'Statement line',
    columns: listColumns({ id: 'uuid', posted_on: 'date', amount: { column: 'amount_cents', kind: 'money' }, type: 'string' }),
    baseWhere: (qb: AnySelect) => qb.where('financial_account_id', '=', accountId),
    customFilters: {
      status: (qb: AnySelect, _operator: FilterOperator, value: unknown) => {
        if (value === 'reconciled') return qb.where(sql.ref('reconciliation_id'), 'is not', null);
        if (value === 'unreconciled') return qb.where(sql.ref('reconciliation_id'), 'is', null);
        throw validationError([{ path: 'filters.status', message: 'must be reconciled or unreconciled' }]);
      },
    },
    toJson: (rows) => toLineJson(ctx, rows),
  };
}

export const handlers = defineOperations({
  'statements.list': async (ctx, input) => {
    const account = await findInWorkspace(ctx, 'accounts', input.path['id'] ?? '', 'Account');
    return { body: await listRecords(ctx, input.list, readListSpec(ctx), lineList(ctx, account.id)) };
  },
  'statements.import': async (ctx, input) => {
    const workspaceId = requireWorkspace(ctx);
    const account = await findInWorkspace(ctx, 'accounts', input.path['id'] ?? '', 'Account');
    const lines = await parse(ctx, readOfxFile(input));
    // One FITID once, even when the file repeats it.
    const unique = [...new Map(lines.map((line) => [line.fitid, line])).values()];
    const rules = prepareRules(await loadRules(ctx));
    const audit = insertAudit(ctx);
    let imported = 0;
    let classified = 0;
    for (let i = 0; i < unique.length; i += BATCH) {
      // Between two batches (each a statement that yields): past the deadline, nothing is committed.
      ctx.deadline.check();
      const rows: Insertable<StatementLinesTable>[] = unique.slice(i, i + BATCH).map((line) => {
        const match = classifyPrepared(rules, { description: line.description, counterparty: line.counterparty, amountCents: line.amountCents, accountId: account.id });
        return {
          id: randomUUID(), workspace_id: workspaceId, financial_account_id: account.id, fitid: line.fitid, posted_on: line.postedOn,
          type: line.type, amount_cents: line.amountCents, description: line.description, counterparty: line.counterparty,
          category_id: match?.categoryId ?? null, cost_center_id: match?.costCenterId ?? null, person_id: match?.personId ?? null,
          rule_id: match?.ruleId ?? null, reconciliation_id: null, ...audit,
        };
      });
      const inserted = await ctx.db.insertInto('statement_lines').values(rows)
        .onConflict((oc) => oc.columns(['workspace_id', 'financial_account_id', 'fitid']).doNothing())
        .returning(['id', 'rule_id']).execute();
      imported += inserted.length;
      classified += inserted.filter((row) => row.rule_id !== null).length;
    }
    await recordActivity(ctx, { operation: 'statements.import', resource: 'statements', recordId: account.id });
    return {
      outcome: 'created',
      body: { financial_account_id: account.id, lines: lines.length, imported, duplicates: lines.length - imported, classified },
    };
  },
});
