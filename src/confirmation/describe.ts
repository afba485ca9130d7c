/**
 * Which describer answers each destructive operation, read from the generated classification
 * (`OperationRef.confirmation`, from the spec's `x-kobana-confirm`): a template rendered over
 * the target record (read by the handler of the operation's own GET), or one of the named
 * describers below for sentences that need joins. Built once at load: a spec naming an unknown
 * describer fails start-up. An operation without one cannot be confirmed, so it never runs
 * through MCP (`describerFor` returns undefined and the call is refused).
 */
import { handlers } from '../../generated/handlers.gen.js';
import { routes } from '../../generated/registry.gen.js';
import type { OperationHandler } from '../api/index.js';
import { parseConfirmTemplate } from '../runtime/confirm-template.js';
import type { ConfirmationSpec, OperationRef } from '../runtime/types.js';
import { describeAttachmentUnlink } from './describe-attachments.js';
import { describeTransactionDelete } from './describe-records.js';
import { buildTitleDescriber, type TitleAction } from './describe-titles.js';
import { describeTransfer } from './describe-transfers.js';
import { describeReconciliation } from './describe-reconciliations.js';
import type { DescribeTarget } from './target.js';
import { renderConfirmTemplate } from './template.js';
import { describerServes, isDescriberName, type DescriberName } from '../runtime/describers.js';
import { createDeadline } from '../runtime/deadline.js';
import { findOmittedKinds } from '../api/index.js';

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
  /** A transaction's type, amount, party, account and date. */
  transaction: () => describeTransactionDelete,
  /** The attachment and the record it is unlinked from. */
  'attachment-link': () => describeAttachmentUnlink,
  /** A transfer has no target record: the amount and both accounts come from the arguments. */
  transfer: () => describeTransfer,
  /** A reconciliation has no target record yet: its lines and records come from the arguments. */
  reconciliation: () => describeReconciliation,
};

/** Reads the target with the handler of its GET operation (the API's own read: NOT_FOUND alike) and renders the template. */
function buildTemplateDescriber(operationId: string, template: string, read: OperationHandler | undefined, target: OperationRef | undefined): DescribeTarget {
  const segments = parseConfirmTemplate(template);
  if (typeof segments === 'string' || read === undefined || target === undefined) throw new Error(`the confirmation of ${operationId} cannot be built`);
  return async ({ db, workspaceId, input, caller, now }) => {
    // One read by id: the default deadline stands for the request's, which the confirmation step does not see.
    const deadline = createDeadline({ now: () => now().getTime() }, TARGET_READ_DEADLINE_MS);
    // As the target's GET would answer the caller: records of kinds they may not read left out (docs/security.md#resources-touched).
    const omitted = findOmittedKinds(caller, target);
    const output = await read({ caller, workspaceId, db, now, deadline, bounds: null, omitted }, { path: input.path, query: {} });
    const version = (output.body as { version?: unknown } | undefined)?.version;
    return { version: typeof version === 'number' ? version : null, message: renderConfirmTemplate(segments, output.body) };
  };
}

function buildDescriber(operation: OperationRef, spec: ConfirmationSpec): DescribeTarget {
  if ('template' in spec) {
    const target = routes.find((route) => route.operation.operationId === spec.target)?.operation;
    return buildTemplateDescriber(operation.operationId, spec.template, handlers[spec.target as keyof typeof handlers], target);
  }
  const named = isDescriberName(spec.describer) ? NAMED_DESCRIBERS[spec.describer] : undefined;
  if (named === undefined) throw new Error(`x-kobana-confirm of ${operation.operationId} names an unknown describer: ${spec.describer}`);
  return named(operation);
}

const DESCRIBERS: ReadonlyMap<string, DescribeTarget> = new Map(routes.flatMap(({ operation }) =>
  operation.confirmation === null ? [] : [[operation.operationId, buildDescriber(operation, operation.confirmation)] as const]));

export function describerFor(operationId: string): DescribeTarget | undefined {
  return DESCRIBERS.get(operationId);
}
