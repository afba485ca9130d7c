/**
 * A tiny Koa app that mounts `auth.bearer(audience, limits)` of a real test app and echoes
 * what it set in ctx.state, so the middleware is tested over real HTTP independently of the
 * /v1 and /mcp surfaces. HttpErrors render as `{"error":{"code","message"}}` with their headers.
 */
import http from 'node:http';
import Koa from 'koa';
import { HttpError } from '../../src/http/errors.js';
import type { AuthState } from '../../src/auth/index.js';
import type { Audience } from '../../src/auth/types.js';
import type { AuthLimits, AuthModule } from '../../src/auth/index.js';

export interface Probe {
  readonly url: string;
  close(): Promise<void>;
}

const CODES: Record<number, string> = { 400: 'bad_request', 401: 'unauthorized', 403: 'forbidden', 429: 'rate_limited', 503: 'unavailable' };

export async function startProbe(auth: Pick<AuthModule, 'bearer'>, audience: Audience, limits: AuthLimits): Promise<Probe> {
  const koa = new Koa();
  koa.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      ctx.status = err.status;
      ctx.set(err.headers);
      ctx.body = { error: { code: CODES[err.status] ?? 'error', message: err.message } };
    }
  });
  koa.use(auth.bearer(audience, limits));
  koa.use((ctx) => {
    const state = ctx.state as AuthState;
    ctx.body = {
      person: state.identity.personId,
      scopes: [...state.identity.scopes],
      channel: state.caller.channel,
      membership: state.caller.membership && { ...state.caller.membership, permissions: [...state.caller.membership.permissions] },
      connection_workspace_id: state.connectionWorkspaceId ?? null,
    };
  });
  const server = http.createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
