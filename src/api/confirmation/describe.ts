/**
 * Which describer answers each destructive operation, read from the generated classification
 * (`OperationRef.confirmation`, from the spec's `x-kobana-confirm`): a template rendered over
 * the target record (read by the handler of the operation's own GET), or one of the named
 * describers below for sentences that need joins. Built once, at start-up, from the registry and
 * the handler index the wiring passes in (src/bootstrap.ts, the only importer of
 * generated/handlers.gen.ts): a spec naming an unknown describer fails start-up. An operation
 * without one cannot be confirmed, so it never runs through MCP (`describerFor` returns
 * undefined and the call is refused).
 */
import type { OperationHandler } from '../context.js';
import { parseConfirmTemplate, templateCalculations } from '../../runtime/confirm-template.js';
import { readBody } from '../records.js';
import { computeCalculations } from './calculations.js';
import type { ConfirmationSpec, OperationRef, RouteDefinition } from '../../runtime/types.js';
import { describeAttachmentUnlink } from './describe-attachments.js';
import { describeTransactionDelete } from './describe-records.js';
import { buildTitleBatchDescriber, buildTitleDescriber, type TitleAction, type TitleBatchAction } from './describe-titles.js';
import { describeTransfer } from './describe-transfers.js';
import { describeReconciliation, describeReconciliationUndo } from './describe-reconciliations.js';
import type { DescribeTarget } from './target.js';
import { renderConfirmTemplate } from './template.js';
import { describerServes, isDescriberName, type DescriberName } from '../../runtime/describers.js';
import { createDeadline } from '../../runtime/deadline.js';
import { findOmittedKinds } from '../authorize.js';

/** The target read's deadline: REQUEST_DEADLINE_MS's default. */
const TARGET_READ_DEADLINE_MS = 10_000;

/** `x-kobana-confirm: {describer: <name>}`: sentences a template over one record cannot say. */
const NAMED_DESCRIBERS: Readonly<Record<DescriberName, (operation: OperationRef) => DescribeTarget>> = {
  /** payables/receivables settle, reopen, cancel, delete: record, counterparty, amount, account. */
  title: (operation) => {
    if (!describerServes('title', operation.operationId)) throw new Error(`the title describer cannot describe ${operation.operationId}`);
    const [resource, action] = operation.operationId.split('.') as [string, TitleAction];
    return buildTitleDescriber(resource === 'payables' ? 'payable' : 'receivable', action);
  },
  /** payables/receivables settle_batch, cancel_batch: the count, the total and the largest titles, planned as the batch runs. */
  'title-batch': (operation) => {
    if (!describerServes('title-batch', operation.operationId)) throw new Error(`the title-batch describer cannot describe ${operation.operationId}`);
    const [resource, action] = operation.operationId.split('.') as [string, TitleBatchAction];
    return buildTitleBatchDescriber(resource === 'payables' ? 'payable' : 'receivable', action);
  },
  /** A transaction's type, amount, party, account and date. */
  transaction: () => describeTransactionDelete,
  /** The attachment and the record it is unlinked from. */
  'attachment-link': () => describeAttachmentUnlink,
  /** A transfer has no target record: the amount and both accounts come from the arguments. */
  transfer: () => describeTransfer,
  /** A reconciliation has no target record yet: its lines and records come from the arguments. */
  reconciliation: () => describeReconciliation,
  /** Undoing a reconciliation: its lines (date, amount, memo) and each title it reopens, from the undo's own plan. */
  'reconciliation-undo': () => describeReconciliationUndo,
};

/**
 * Reads the target with the handler of its GET operation (the API's own read: NOT_FOUND alike)
 * and renders the template over it, the call's arguments (`{arg.x}`) and the computations it
 * names (`{calc.…}`, src/api/confirmation/calculations.ts).
 */
function buildTemplateDescriber(operationId: string, template: string, read: OperationHandler | undefined, target: OperationRef | undefined): DescribeTarget {
  const segments = parseConfirmTemplate(template);
  if (typeof segments === 'string' || read === undefined || target === undefined) throw new Error(`the confirmation of ${operationId} cannot be built`);
  const calculations = templateCalculations(segments);
  return async ({ db, workspaceId, input, caller, now }) => {
    // One read by id: the default deadline stands for the request's, which the confirmation step does not see.
    const deadline = createDeadline({ now: () => now().getTime() }, TARGET_READ_DEADLINE_MS);
    // As the target's GET would answer the caller: records of kinds they may not read left out (docs/security.md#resources-touched).
    const omitted = findOmittedKinds(caller, target);
    const output = await read({ caller, workspaceId, db, now, deadline, bounds: null, omitted }, { path: input.path, query: {} });
    const version = (output.body as { version?: unknown } | undefined)?.version;
    const call = { arguments: { ...input.path, ...input.query, ...readBody(input.body) }, calculations: computeCalculations(calculations, output.body, input) };
    return { version: typeof version === 'number' ? version : null, message: renderConfirmTemplate(segments, output.body, call) };
  };
}

/** What the describers are built from: the routes (their operations and `x-kobana-confirm`) and the handlers of the target reads. */
export interface DescriberSources {
  readonly routes: readonly RouteDefinition[];
  readonly handlers: Readonly<Record<string, OperationHandler>>;
}

/** The sentence of each destructive operation, looked up by operationId. */
export interface ConfirmationDescribers {
  /** The describer of `operationId`; undefined when the operation has none (it cannot be confirmed). */
  describerFor(operationId: string): DescribeTarget | undefined;
}

function buildDescriber(sources: DescriberSources, operation: OperationRef, spec: ConfirmationSpec): DescribeTarget {
  if ('template' in spec) {
    const target = sources.routes.find((route) => route.operation.operationId === spec.target)?.operation;
    const read = Object.hasOwn(sources.handlers, spec.target) ? sources.handlers[spec.target] : undefined;
    return buildTemplateDescriber(operation.operationId, spec.template, read, target);
  }
  const named = isDescriberName(spec.describer) ? NAMED_DESCRIBERS[spec.describer] : undefined;
  if (named === undefined) throw new Error(`x-kobana-confirm of ${operation.operationId} names an unknown describer: ${spec.describer}`);
  return named(operation);
}

/** Builds every destructive operation's describer once; throws when a spec cannot be served. */
export function createConfirmationDescribers(sources: DescriberSources): ConfirmationDescribers {
  const describers: ReadonlyMap<string, DescribeTarget> = new Map(sources.routes.flatMap(({ operation }) =>
    operation.confirmation === null ? [] : [[operation.operationId, buildDescriber(sources, operation, operation.confirmation)] as const]));
  return { describerFor: (operationId) => describers.get(operationId) };
}
