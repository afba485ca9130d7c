/**
 * The payee allowlist (docs/security.md#money-controls): on the channels a workspace names,
 * money moves go only to payment destinations a person approved in Seguridad.
 *
 *   assertPayeesAllowed(ctx, controls, items): Promise<void>   // SECURITY_BLOCKED naming the destination and why
 *
 * First version (lead): the signature the controls call; part B of issue 29 builds the check.
 */
import type { OperationContext } from '../context.js';
import type { MoneyControls } from './config.js';
import type { MoneyItem } from './types.js';

export async function assertPayeesAllowed(ctx: OperationContext, controls: MoneyControls, items: readonly MoneyItem[]): Promise<void> {
  void ctx; void controls; void items;
}
