/** transactions.*: account movements; the rules (polarity, settlement/transfer ownership) live in src/api/rules/transactions.ts. */
import { transactionHandlers } from '../rules/transactions.js';
import { defineOperations } from '../define-operations.js';

export const handlers = defineOperations(transactionHandlers);
