/**
 * The vocabulary of the money controls (docs/security.md#money-controls): what one call moves
 * out, measured before it runs, in exact integer cents. Data only.
 */
import type { OperationContext, OperationInput } from '../context.js';

/** One outflow of a call. */
export interface MoneyItem {
  readonly kind: 'payable' | 'receivable' | 'transfer';
  /** The title settled; null for a transfer (it has no record before it runs). */
  readonly recordId: string | null;
  /** The amount actually paid: interest and discount included. */
  readonly cents: number;
  /** Whose payment destinations the payee allowlist checks; null for an internal move (a transfer between own accounts). */
  readonly payeePersonId: string | null;
  /** The account the money leaves. */
  readonly accountId: string | null;
  /** The record's version when measured: an approved request re-checks it. */
  readonly version: number | null;
  /** For sentences and reports, e.g. `payable "Aluguel"`. */
  readonly label: string;
}

export interface MeasuredMove {
  readonly operationId: string;
  readonly items: readonly MoneyItem[];
  readonly totalCents: number;
}

/**
 * A named measure (`x-kobana-moves-money: {outflow: <name>}`): reads the call's records and
 * answers its outflows, throwing the operation's own errors for a call that cannot run. With
 * `lock` (inside the write's transaction) it locks the records it reads FOR UPDATE first.
 */
export type MoneyMeasure = (ctx: OperationContext, input: OperationInput, options: { readonly lock: boolean }) => Promise<readonly MoneyItem[]>;
