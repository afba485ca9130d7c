/**
 * createRestRouter: the /v1 REST surface — one @koa/router route per generated
 * RouteDefinition, behind `bearer('api')`. Each route turns the request into an
 * OperationInput (rest-input.ts), runs it through OperationService.execute (which does every
 * check) and renders the result or error (rest-render.ts). It holds no business rules.
 */
import Router from '@koa/router';
import type Koa from 'koa';
import type { RouteDefinition } from '../runtime/types.js';
import type { OperationService } from '../api/service.js';
import type { AuthModule, AuthState } from '../auth/index.js';
import type { Limits } from './limits.js';
import { buildOperationInput } from './rest-input.js';
import { renderOutput, renderRestErrors } from './rest-render.js';

export interface RestRouterDeps {
  readonly operations: OperationService;
  readonly routes: readonly RouteDefinition[];
  readonly auth: Pick<AuthModule, 'bearer'>;
  readonly limits: Pick<Limits, 'assertAuthAllowed' | 'recordAuthFailure' | 'consumeProtocol'>;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

function createRouteHandler(operations: OperationService, route: RouteDefinition): Koa.Middleware {
  return async function runOperation(ctx) {
    const state = ctx.state as AuthState;
    const input = await buildOperationInput(ctx, route);
    const output = await operations.execute({
      operationId: route.operation.operationId,
      caller: state.caller,
      workspace: { connectionDefault: state.connectionWorkspaceId },
      input,
    });
    await renderOutput(ctx, output);
  };
}

export function createRestRouter({ operations, routes, auth, limits }: RestRouterDeps): Router {
  const router = new Router();
  const bearer = auth.bearer('api', limits);
  // Per-token protocol limit (SECURITY.md §6), after authentication so the subject is known.
  const limitProtocol: Koa.Middleware = async (ctx, next) => {
    const { identity } = ctx.state as AuthState;
    await limits.consumeProtocol(identity.personId, 'api');
    await next();
  };
  for (const route of routes) {
    const method = route.operation.method.toLowerCase() as Method;
    router[method](route.koaPath, renderRestErrors, bearer, limitProtocol, createRouteHandler(operations, route));
  }
  return router;
}
