/**
 * createOperationService: the OperationService over the generated route table (stub, being filled in).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { RouteDefinition } from '../runtime/types.js';
import type { OperationHandler } from './context.js';
import type { ApiBudget, OperationService } from './service.js';

export interface OperationServiceDeps {
  readonly db: Kysely<Database>;
  readonly routes: readonly RouteDefinition[];
  readonly handlers: Readonly<Record<string, OperationHandler>>;
  readonly budget?: ApiBudget | undefined;
}

export function createOperationService(_deps: OperationServiceDeps): OperationService {
  return {
    async execute() { throw new Error('not implemented'); },
    canReach() { return false; },
  };
}
