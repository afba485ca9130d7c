/** receivables.*: thin binding of the shared title rules (src/api/rules/titles.ts) to the receivable kind. */
import type { OperationHandler } from '../context.js';
import { buildTitleHandlers, RECEIVABLES } from '../rules/titles.js';

export const handlers: Record<string, OperationHandler> = buildTitleHandlers(RECEIVABLES);
