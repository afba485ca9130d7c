/**
 * What the listener answers while the process waits for its database at start-up (see
 * `src/startup.ts`): `GET /healthz` 200 (the process is alive — do not restart it), `GET /readyz`
 * 503 (keep it out of rotation), and every other request 503 + `Retry-After` in the shape of its
 * surface — the REST envelope `SERVICE_UNAVAILABLE`, or at `/mcp` the JSON-RPC body of a
 * database outage. Nothing here touches a service: none exists yet.
 */
import Koa from 'koa';
import { serviceUnavailable } from './api/index.js';
import { databaseUnavailableRejection, setPreEraHeaders } from './mcp/respond.js';
import { DATABASE_RETRY_AFTER_SECONDS } from './store/db-unavailable.js';
import type { AppState } from './http/app-state.js';

export function createStartingApp(): Koa<AppState> {
  const app = new Koa<AppState>();
  app.use(async function answerWhileStarting(ctx) {
    ctx.set('Cache-Control', 'no-store');
    if (ctx.path === '/healthz' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.body = { status: 'ok' };
      return;
    }
    ctx.set('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
    ctx.status = 503;
    if (ctx.path === '/readyz') {
      ctx.body = { status: 'unavailable', checks: { database: 'unavailable' } };
    } else if (ctx.path === '/mcp') {
      setPreEraHeaders(ctx);
      ctx.body = databaseUnavailableRejection(null, 'database').body;
    } else {
      ctx.body = serviceUnavailable(DATABASE_RETRY_AFTER_SECONDS, 'database').toEnvelope();
    }
  });
  return app;
}
