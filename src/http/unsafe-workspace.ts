/**
 * The workspace hint (`X-Workspace-Id` header or `?workspace_id=`) is not an operation
 * argument, so compileRouteValidator never sees it: text no database accepts (NUL, unpaired
 * surrogates, src/api/unsafe-text.ts) is refused here, before authentication reads it, as the
 * surface's bad request (an HttpError 400: REST `BAD_REQUEST`, /mcp a JSON-RPC -32600).
 */
import type Koa from 'koa';
import type { AppContext } from './app-state.js';
import { isUnsafeText } from '../api/index.js';
import { HttpError } from './errors.js';

function readHints(ctx: AppContext): string[] {
  const query = ctx.query['workspace_id'];
  return [ctx.get('x-workspace-id'), ...(Array.isArray(query) ? query : query === undefined ? [] : [query])];
}

export async function refuseUnsafeWorkspaceHint(ctx: AppContext, next: Koa.Next): Promise<void> {
  if (readHints(ctx).some(isUnsafeText)) {
    throw new HttpError(400, 'The workspace must not contain NUL characters or invalid Unicode.', {}, 'unsafe_workspace_hint');
  }
  await next();
}
