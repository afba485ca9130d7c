/** transactions.*: account movements; the rules (polarity, settlement/transfer ownership) live in src/api/rules/transactions.ts. */
import type { OperationHandler } from '../context.js';
import { transactionHandlers } from '../rules/transactions.js';

export const handlers: Record<string, OperationHandler> = transactionHandlers;
