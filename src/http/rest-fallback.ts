/**
 * Unknown `/v1` paths and methods answer with the API's JSON error envelope (404/405) instead
 * of Koa's plain-text defaults, so REST clients parse every error the same way. Routing itself
 * stays in `rest.ts`; this only renders what no route claimed.
 */
import type { AppMiddleware } from './app-state.js';

const FALLBACKS: Readonly<Record<number, { code: string; message: string }>> = {
  404: { code: 'NOT_FOUND', message: 'No such API route.' },
  405: { code: 'method_not_allowed', message: 'Method not allowed on this route.' },
};

export function renderRestFallbacks(): AppMiddleware {
  return async function renderRestFallbacks(ctx, next) {
    await next();
    const fallback = FALLBACKS[ctx.status];
    if (fallback === undefined || ctx.body != null || !(ctx.path === '/v1' || ctx.path.startsWith('/v1/'))) return;
    const status = ctx.status;
    ctx.body = { error: { code: fallback.code, message: fallback.message } };
    ctx.status = status;
    ctx.set('Cache-Control', 'no-store');
  };
}
