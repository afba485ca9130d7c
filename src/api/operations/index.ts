/** Merges the handlers of every resource module into one table keyed by operationId. */
import type { OperationHandler } from '../context.js';

export const handlers: Readonly<Record<string, OperationHandler>> = {};
