/**
 * Which describer answers each destructive operation (annotations.destructiveHint): deletes,
 * cancels and money moves. An operation missing here cannot be confirmed, so it never runs
 * through MCP (`describerFor` returns undefined and the call is refused).
 */
import { describeAttachmentDelete, describeAttachmentUnlink } from './describe-attachments.js';
import { buildNamedRecordDescriber, describeTransactionDelete } from './describe-records.js';
import { buildTitleDescriber } from './describe-titles.js';
import { describeTransfer } from './describe-transfers.js';
import type { DescribeTarget } from './target.js';

const DESCRIBERS: Readonly<Record<string, DescribeTarget>> = {
  'payables.settle': buildTitleDescriber('payable', 'settle'),
  'payables.reopen': buildTitleDescriber('payable', 'reopen'),
  'payables.cancel': buildTitleDescriber('payable', 'cancel'),
  'payables.delete': buildTitleDescriber('payable', 'delete'),
  'receivables.settle': buildTitleDescriber('receivable', 'settle'),
  'receivables.reopen': buildTitleDescriber('receivable', 'reopen'),
  'receivables.cancel': buildTitleDescriber('receivable', 'cancel'),
  'receivables.delete': buildTitleDescriber('receivable', 'delete'),
  'accounts.delete': buildNamedRecordDescriber('accounts', 'account', 'Account'),
  'categories.delete': buildNamedRecordDescriber('categories', 'category', 'Category'),
  'cost_centers.delete': buildNamedRecordDescriber('cost_centers', 'cost center', 'Cost center'),
  'people.delete': buildNamedRecordDescriber('people', 'person', 'Person'),
  'taxes.delete': buildNamedRecordDescriber('taxes', 'tax', 'Tax'),
  'transactions.delete': describeTransactionDelete,
  'attachments.delete': describeAttachmentDelete,
  'attachments.unlink': describeAttachmentUnlink,
  'transfers.create': describeTransfer,
};

export function describerFor(operationId: string): DescribeTarget | undefined {
  return Object.hasOwn(DESCRIBERS, operationId) ? DESCRIBERS[operationId] : undefined;
}
