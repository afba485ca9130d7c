/** payables.*: thin binding of the shared title rules (src/api/rules/titles.ts) to the payable kind. */
import { buildTitleHandlers, PAYABLES } from '../rules/titles.js';
import { defineOperations } from '../define-operations.js';

export const handlers = defineOperations(buildTitleHandlers(PAYABLES));
