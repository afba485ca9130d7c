/**
 * The named confirmation describers (`x-kobana-confirm: {describer: <name>}`) and which operations
 * each can describe. Data only, so the generator can refuse an unknown or misapplied name at build
 * time; src/api/confirmation/describe.ts implements exactly these names (its table is typed by them).
 *
 *   DESCRIBER_NAMES                              // 'title' | 'title-batch' | 'transaction' | 'attachment-link' | 'transfer' | 'reconciliation' | 'reconciliation-undo'
 *   describerServes(name, operationId): boolean  // false for a name or an operation it cannot describe
 */

export const DESCRIBER_NAMES = ['title', 'title-batch', 'transaction', 'attachment-link', 'transfer', 'reconciliation', 'reconciliation-undo'] as const;
export type DescriberName = (typeof DESCRIBER_NAMES)[number];

/** The title describer's actions: the record, counterparty, amount and account of a payable or receivable. */
export const TITLE_DESCRIBER_ACTIONS = ['settle', 'reopen', 'cancel', 'delete'] as const;

/** The title-batch describer's actions: the count, total and largest items of a batch of payables or receivables. */
export const TITLE_BATCH_DESCRIBER_ACTIONS = ['settle_batch', 'cancel_batch'] as const;

export function isDescriberName(name: string): name is DescriberName {
  return (DESCRIBER_NAMES as readonly string[]).includes(name);
}

/** Whether `name` is a describer and can describe `operationId` (the title describers only serve titles, title-batch only their batches, reconciliation-undo only the undo). */
export function describerServes(name: string, operationId: string): boolean {
  if (!isDescriberName(name)) return false;
  if (name === 'reconciliation-undo') return operationId === 'reconciliations.delete';
  if (name !== 'title' && name !== 'title-batch') return true;
  const dot = operationId.indexOf('.');
  const resource = operationId.slice(0, dot);
  const action = operationId.slice(dot + 1);
  const actions: readonly string[] = name === 'title' ? TITLE_DESCRIBER_ACTIONS : TITLE_BATCH_DESCRIBER_ACTIONS;
  return (resource === 'payables' || resource === 'receivables') && actions.includes(action);
}
