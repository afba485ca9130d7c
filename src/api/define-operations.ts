/**
 * How an operation module declares its handlers: every `*.ts` directly under
 * src/api/operations/ exports
 *
 *   export const handlers = defineOperations({ 'payables.summary': async (ctx, input) => ({ body }) });
 *
 * The generator finds the modules by listing that folder, checks the operationIds against
 * openapi/v1.yaml (an operation without a handler, or a handler without an operation, fails
 * `npm run generate -- --check`) and merges them into generated/handlers.gen.ts.
 */
import type { OperationHandler } from './context.js';

export type OperationHandlers = Readonly<Record<string, OperationHandler>>;

/** Types the handlers (ctx and input are inferred) and freezes the map. */
export function defineOperations(handlers: Record<string, OperationHandler>): OperationHandlers {
  return Object.freeze({ ...handlers });
}
