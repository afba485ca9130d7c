/** Operation handlers for transactions (stub while the rules are written). */
import type { OperationHandler } from '../context.js';

export const handlers: Record<string, OperationHandler> = {};
