/** payables.*: thin binding of the shared title rules (src/api/rules/titles.ts) to the payable kind. */
import type { OperationHandler } from '../context.js';
import { buildTitleHandlers, PAYABLES } from '../rules/titles.js';

export const handlers: Record<string, OperationHandler> = buildTitleHandlers(PAYABLES);
