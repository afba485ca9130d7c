/**
 * createRestRouter: the /v1 REST surface — one @koa/router route per generated
 * RouteDefinition, behind `bearer('api')`. Each route first asks OperationService.authorize
 * (membership → scope → permission → workspace) so nothing is parsed or read for a caller who
 * may not make the call, then turns the request into an OperationInput (rest-input.ts), runs
 * it through OperationService.execute (which does every check, again) and renders the result
 * — the route's generated success status and headers — or error (rest-render.ts). A call
 * authorized in a workspace names it in `X-Workspace-Id` (docs/protocol.md#tools: MCP results name
 * it in `_meta`), on its success and on any error after the workspace was chosen. It holds no
 * business rules.
 */
import Router, { type RouterMiddleware } from '@koa/router';
import type { RouteDefinition } from '../runtime/types.js';
import type { AuthorizeRequest, OperationService } from '../api/index.js';
import { requireAuthenticated, type AppContext, type AppMiddleware, type AppState } from './app-state.js';
import type { AuthLimits, Limits } from './limits.js';
import { hasRequestBody } from './rest-body.js';
import { buildOperationInput } from './rest-input.js';
import { renderOutput, renderRestErrors, toRestResponse } from './rest-render.js';
import { refuseUnsafeWorkspaceHint } from './unsafe-workspace.js';

export interface RestRouterDeps {
  readonly operations: OperationService;
  readonly routes: readonly RouteDefinition[];
  /** Authentication (src/auth's `bearer`), passed in: src/http sits below src/auth and never imports it. */
  readonly auth: { bearer(audience: 'api', limits: AuthLimits): AppMiddleware };
  readonly limits: Pick<Limits, 'assertAuthAllowed' | 'recordAuthFailure' | 'consumeProtocol'>;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The response header naming the workspace a workspace-scoped call ran in (the request header of the same name chooses it). */
const WORKSPACE_HEADER = 'X-Workspace-Id';

/**
 * docs/security.md#check-order-and-error-catalogue puts membership → scope → permission → workspace before arguments, so they run
 * before the query is parsed or a byte of the body is read: a read-only token cannot make the
 * server buffer a 14 MB upload, and an inactive member learns nothing from a 400. The answers
 * are execute's own (same function); execute repeats them and stays the one authority.
 */
async function authorizeBeforeReading(ctx: AppContext, operations: OperationService, route: RouteDefinition, request: AuthorizeRequest): Promise<void> {
  try {
    await operations.authorize(request);
  } catch (error) {
    // Refused with the body unread: close the connection instead of draining an upload nobody uses.
    if (hasRequestBody(ctx)) ctx.set('Connection', 'close');
    throw error;
  }
}

function createRouteHandler(operations: OperationService, route: RouteDefinition): RouterMiddleware<AppState> {
  return async function runOperation(ctx) {
    requireAuthenticated(ctx.state, 'the /v1 route handler');
    const { caller, connectionWorkspaceId } = ctx.state;
    const request: AuthorizeRequest = {
      operationId: route.operation.operationId,
      caller,
      workspace: { connectionDefault: connectionWorkspaceId },
    };
    await authorizeBeforeReading(ctx, operations, route, request);
    const input = await buildOperationInput(ctx, route);
    const result = await operations.execute({
      ...request, input,
      hooks: { authorized: (workspaceId) => { if (workspaceId !== null) ctx.set(WORKSPACE_HEADER, workspaceId); } },
    });
    // Confirmation is asked of MCP callers only (docs/security.md#confirmation); an API token never gets here.
    if (result.kind !== 'done') throw new Error(`REST call answered ${result.kind}: ${route.operation.operationId}`);
    await renderOutput(ctx, toRestResponse(route.successStatus, result));
  };
}

export function createRestRouter({ operations, routes, auth, limits }: RestRouterDeps): Router<AppState> {
  const router = new Router<AppState>();
  const bearer = auth.bearer('api', limits);
  // Per-token protocol limit (docs/security.md#limits), after authentication so the subject is known.
  const limitProtocol: AppMiddleware = async (ctx, next) => {
    requireAuthenticated(ctx.state, 'the /v1 protocol limit');
    const { identity } = ctx.state;
    await limits.consumeProtocol(identity.personId, 'api');
    await next();
  };
  for (const route of routes) {
    const method = route.operation.method.toLowerCase() as Method;
    // One chain of one declared type: left to infer the context type from five middlewares of
    // different declarations, the overloads of router.get/post/… could settle on another candidate
    // as the program grew (a copy with three more operations failed to type-check).
    const chain: RouterMiddleware<AppState>[] = [renderRestErrors, refuseUnsafeWorkspaceHint, bearer, limitProtocol, createRouteHandler(operations, route)];
    router[method](route.koaPath, ...chain);
  }
  return router;
}
