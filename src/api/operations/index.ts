/**
 * Merges the handlers of every resource module into one table keyed by operationId. Modules
 * of other helpers (money, attachments) are picked up when present; execute.ts refuses an
 * operation without a handler.
 */
import type { OperationHandler } from '../context.js';
import { handlers as workspaces } from './workspaces.js';
import { handlers as companies } from './companies.js';
import { handlers as accounts } from './accounts.js';
import { handlers as categories } from './categories.js';
import { handlers as costCenters } from './cost-centers.js';
import { handlers as people } from './people.js';
import { handlers as taxes } from './taxes.js';
import { handlers as activity } from './activity.js';
import { handlers as securitySettings } from './security-settings.js';
import { handlers as payables } from './payables.js';
import { handlers as receivables } from './receivables.js';
import { handlers as transactions } from './transactions.js';
import { handlers as transfers } from './transfers.js';
import { handlers as attachments } from './attachments.js';

export const handlers: Readonly<Record<string, OperationHandler>> = {
  ...workspaces,
  ...companies,
  ...accounts,
  ...categories,
  ...costCenters,
  ...people,
  ...taxes,
  ...activity,
  ...securitySettings,
  ...payables,
  ...receivables,
  ...transactions,
  ...transfers,
  ...attachments,
};
