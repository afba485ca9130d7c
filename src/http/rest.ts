/** createRestRouter: the /v1 REST surface (stub, being filled in). */
import Router from '@koa/router';
import type { RouteDefinition } from '../runtime/types.js';
import type { OperationService } from '../api/service.js';
import type { AuthModule } from '../auth/index.js';
import type { Limits } from './limits.js';

export interface RestRouterDeps {
  readonly operations: OperationService;
  readonly routes: readonly RouteDefinition[];
  readonly auth: AuthModule;
  readonly limits: Limits;
}

export function createRestRouter(_deps: RestRouterDeps): Router {
  return new Router();
}
