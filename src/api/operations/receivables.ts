/** receivables.*: thin binding of the shared title rules (src/api/rules/titles.ts) to the receivable kind. */
import { buildTitleHandlers, RECEIVABLES } from '../rules/titles.js';
import { defineOperations } from '../define-operations.js';

export const handlers = defineOperations(buildTitleHandlers(RECEIVABLES));
