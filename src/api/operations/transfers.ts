/** transfers.*: money between two accounts; the rules live in src/api/rules/transfers.ts. */
import type { OperationHandler } from '../context.js';
import { transferHandlers } from '../rules/transfers.js';

export const handlers: Record<string, OperationHandler> = transferHandlers;
