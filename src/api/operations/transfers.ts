/** transfers.*: money between two accounts; the rules live in src/api/rules/transfers.ts. */
import { transferHandlers } from '../rules/transfers.js';
import { defineOperations } from '../define-operations.js';

export const handlers = defineOperations(transferHandlers);
