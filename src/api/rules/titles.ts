/**
 * Payables and receivables, written once and parameterised by kind (docs/domain.md#payables-and-receivables,
 * receivables mirror them): list, get, create, update, delete, plus the confirmation
 * summary. Settle/reopen/cancel live in settlement.ts; JSON and list vocabulary in
 * title-records.ts. Every write runs inside the operation's transaction (ctx.db).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import type { Database, PaymentCodeKind, TitlesTable } from '../../store/schema.js';
import type { OperationContext, OperationHandler } from '../context.js';
import { ApiError } from '../errors.js';
import { insertAudit, recordActivity, updateAudit } from '../audit.js';
import { listRecords, readListSpec } from '../list.js';
import { parseMoneyInput } from '../money.js';
import { readBody, requireWorkspace } from '../records.js';
import { isUuid } from '../../runtime/values.js';
import { deleteAllocations, planAllocationUpdate, prepareAllocations, replaceAllocations } from './allocations.js';
import { deleteAttachmentLinks } from './attachment-links.js';
import { requireAccountReference, requireCategoryReference, requirePersonReference, readOptionalReference } from './references.js';
import { buildSettlementHandlers, deleteSettlementTransaction, findTitleForUpdate } from './settlement.js';
import { buildBatchHandlers } from './settlement-batch.js';
import { classifyNewTitle } from './statements/classify.js';
import {
  buildTitleListDefinition, readTitleJson, type PaymentCodeJson, type TitleKind, type TitleVocabulary,
} from './title-records.js';

export { PAYABLES, RECEIVABLES, type TitleVocabulary } from './title-records.js';

function readNullableText(value: unknown): string | null | undefined {
  return value === undefined ? undefined : value === null ? null : String(value);
}

function buildList(vocabulary: TitleVocabulary): OperationHandler {
  return async (ctx, input) => ({
    body: await listRecords(ctx, input.list, readListSpec(ctx), await buildTitleListDefinition(ctx, vocabulary)),
  });
}

function buildGet(vocabulary: TitleVocabulary): OperationHandler {
  return async (ctx, input) => ({ body: await readTitleJson(ctx, vocabulary, input.path['id']) });
}

/** What a title recorded from a payment code stores of it (migration 0011); absent on a title typed by hand. */
export interface TitlePaymentCode {
  readonly kind: PaymentCodeKind;
  readonly code: string;
  /** The identity of one payment (unique per workspace over titles not cancelled), or null. */
  readonly key: string | null;
  /** The payable's `payment_code` as the decoder read it (kind apart). */
  readonly details: Omit<PaymentCodeJson, 'kind'>;
}

/**
 * The create of a title: the body's references, the classification rules, the apportionment,
 * the audit columns and the activity entry, in the operation's transaction; returns the new id.
 * `payables.create` and `payables.create_from_code` (with the code it was read from) both write through it.
 */
export async function createTitle(
  ctx: OperationContext, vocabulary: TitleVocabulary, body: Record<string, unknown>,
  options: { readonly operation?: string; readonly paymentCode?: TitlePaymentCode } = {},
): Promise<string> {
  const amount = parseMoneyInput(body['amount'], 'amount');
  const personId = await requirePersonReference(ctx, body['person_id']);
  const categoryId = await readOptionalReference(body['category_id'], (id) => requireCategoryReference(ctx, id, vocabulary.categoryType));
  const accountId = await readOptionalReference(body['financial_account_id'], (id) => requireAccountReference(ctx, id));
  // Classification rules fill in what the body left out (docs/domain.md#classification-rules).
  const ruled = await classifyNewTitle(ctx, vocabulary, { description: String(body['description']), personId, amountCents: amount, accountId: accountId ?? null });
  const shares = body['cost_center_allocations'] !== undefined
    ? await prepareAllocations(ctx, body['cost_center_allocations'], amount, vocabulary.centerPolarity)
    : ruled?.costCenterId ? await prepareAllocations(ctx, [{ cost_center_id: ruled.costCenterId, percentage: '100' }], amount, vocabulary.centerPolarity) : [];
  const dueDate = String(body['due_date']);
  const id = randomUUID();
  const code = options.paymentCode;
  await ctx.db.insertInto('titles').values({
    id, workspace_id: requireWorkspace(ctx), kind: vocabulary.kind, description: String(body['description']),
    amount_cents: amount, due_date: dueDate, competence_date: body['competence_date'] === undefined ? dueDate : String(body['competence_date']),
    status: 'pending', person_id: personId, category_id: categoryId === undefined ? ruled?.categoryId ?? null : categoryId, financial_account_id: accountId ?? null,
    document_number: readNullableText(body['document_number']) ?? null, notes: readNullableText(body['notes']) ?? null,
    payment_date: null, paid_amount_cents: null, interest_cents: null, discount_cents: null, transaction_id: null,
    ...(code ? { payment_code_kind: code.kind, payment_code: code.code, payment_code_key: code.key, payment_code_details: JSON.stringify(code.details) } : {}),
    ...insertAudit(ctx),
  }).execute();
  await replaceAllocations(ctx, vocabulary.kind, id, shares);
  await recordActivity(ctx, { operation: options.operation ?? `${vocabulary.resource}.create`, resource: vocabulary.resource, recordId: id });
  return id;
}

function buildCreate(vocabulary: TitleVocabulary): OperationHandler {
  return async (ctx, input) => {
    const id = await createTitle(ctx, vocabulary, readBody(input.body));
    return { outcome: 'created', body: await readTitleJson(ctx, vocabulary, id) };
  };
}

/** Column changes of a PATCH body; references are checked, absent keys stay untouched. */
async function readTitleChanges(ctx: OperationContext, vocabulary: TitleVocabulary, body: Record<string, unknown>): Promise<Updateable<TitlesTable>> {
  const changes: Updateable<TitlesTable> = {};
  if (body['description'] !== undefined) changes.description = String(body['description']);
  if (body['amount'] !== undefined) changes.amount_cents = parseMoneyInput(body['amount'], 'amount');
  if (body['due_date'] !== undefined) changes.due_date = String(body['due_date']);
  if (body['competence_date'] !== undefined) changes.competence_date = String(body['competence_date']);
  if (body['person_id'] !== undefined) changes.person_id = await requirePersonReference(ctx, body['person_id']);
  const categoryId = await readOptionalReference(body['category_id'], (id) => requireCategoryReference(ctx, id, vocabulary.categoryType));
  if (categoryId !== undefined) changes.category_id = categoryId;
  const accountId = await readOptionalReference(body['financial_account_id'], (id) => requireAccountReference(ctx, id));
  if (accountId !== undefined) changes.financial_account_id = accountId;
  const documentNumber = readNullableText(body['document_number']);
  if (documentNumber !== undefined) changes.document_number = documentNumber;
  const notes = readNullableText(body['notes']);
  if (notes !== undefined) changes.notes = notes;
  return changes;
}

const NOT_EDITABLE = 'Only a pending title can be edited; reopen it first.';

function buildUpdate(vocabulary: TitleVocabulary): OperationHandler {
  return async (ctx, input) => {
    // Locked before it is read: a settlement racing this edit pays the amount the title ends with.
    const current = await findTitleForUpdate(ctx, vocabulary, input.path['id']);
    if (current.status !== 'pending') throw new ApiError('UNPROCESSABLE_ENTITY', NOT_EDITABLE);
    const body = readBody(input.body);
    const changes = await readTitleChanges(ctx, vocabulary, body);
    const total = changes.amount_cents ?? Number(current.amount_cents);
    const shares = await planAllocationUpdate(ctx, vocabulary.kind, current.id, {
      raw: body['cost_center_allocations'], totalCents: total, polarity: vocabulary.centerPolarity,
      amountOrPolarityChanged: total !== Number(current.amount_cents),
    });
    // Conditional on `pending` so an edit racing a settlement cannot rewrite a paid title.
    const result = await ctx.db.updateTable('titles').set({ ...changes, ...updateAudit(ctx) })
      .where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new ApiError('UNPROCESSABLE_ENTITY', NOT_EDITABLE);
    if (shares) await replaceAllocations(ctx, vocabulary.kind, current.id, shares);
    await recordActivity(ctx, { operation: `${vocabulary.resource}.update`, resource: vocabulary.resource, recordId: current.id });
    return { body: await readTitleJson(ctx, vocabulary, current.id) };
  };
}

function buildDelete(vocabulary: TitleVocabulary): OperationHandler {
  return async (ctx, input) => {
    // Locked before it is read (PostgreSQL): a settlement committed meanwhile is seen and removed with
    // the title, and a concurrent attachment link (FOR SHARE) cannot outlive it.
    const current = await findTitleForUpdate(ctx, vocabulary, input.path['id']);
    await deleteSettlementTransaction(ctx, current.transaction_id);
    await deleteAllocations(ctx, vocabulary.kind, current.id);
    await deleteAttachmentLinks(ctx, vocabulary.kind, current.id);
    await ctx.db.deleteFrom('titles').where('workspace_id', '=', current.workspace_id).where('id', '=', current.id).execute();
    await recordActivity(ctx, { operation: `${vocabulary.resource}.delete`, resource: vocabulary.resource, recordId: current.id });
    return { outcome: 'deleted' };
  };
}

/** Every handler of one title resource, keyed by operationId (`payables.settle`, …). */
export function buildTitleHandlers(vocabulary: TitleVocabulary): Record<string, OperationHandler> {
  const settlement = buildSettlementHandlers(vocabulary);
  const r = vocabulary.resource;
  return {
    [`${r}.list`]: buildList(vocabulary),
    [`${r}.get`]: buildGet(vocabulary),
    [`${r}.create`]: buildCreate(vocabulary),
    [`${r}.update`]: buildUpdate(vocabulary),
    [`${r}.delete`]: buildDelete(vocabulary),
    [`${r}.settle`]: settlement.settle,
    [`${r}.reopen`]: settlement.reopen,
    [`${r}.cancel`]: settlement.cancel,
    ...buildBatchHandlers(vocabulary),
  };
}

export interface TitleConfirmationSummary {
  readonly version: number;
  readonly description: string;
  readonly counterparty: string | null;
  readonly amountCents: number;
  readonly dueDate: string;
  /** The title's own account (a settle may name another). */
  readonly accountId: string | null;
  readonly accountName: string | null;
  /** The stored status and settlement transaction: what the status changes allow (assertTitleAction). */
  readonly status: string;
  readonly transactionId: string | null;
}

/** What a confirmation prompt shows for a title, bound to its version; null when not in the workspace. */
export async function describeTitleForConfirmation(
  db: Kysely<Database>, workspaceId: string, kind: TitleKind, id: string,
): Promise<TitleConfirmationSummary | null> {
  if (!isUuid(id)) return null;
  const row = await db.selectFrom('titles as t')
    .leftJoin('people as p', (join) => join.onRef('p.id', '=', 't.person_id').onRef('p.workspace_id', '=', 't.workspace_id'))
    .leftJoin('accounts as a', (join) => join.onRef('a.id', '=', 't.financial_account_id').onRef('a.workspace_id', '=', 't.workspace_id'))
    .select(['t.version', 't.description', 't.amount_cents', 't.due_date', 't.financial_account_id', 't.status', 't.transaction_id', 'p.name as person_name', 'a.name as account_name'])
    .where('t.workspace_id', '=', workspaceId).where('t.id', '=', id).where('t.kind', '=', kind)
    .executeTakeFirst();
  if (!row) return null;
  return {
    version: Number(row.version), description: row.description, counterparty: row.person_name ?? null,
    amountCents: Number(row.amount_cents), dueDate: row.due_date, accountId: row.financial_account_id, accountName: row.account_name ?? null,
    status: row.status, transactionId: row.transaction_id,
  };
}

