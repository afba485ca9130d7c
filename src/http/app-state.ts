/**
 * What the middleware of one request leaves in `ctx.state`, typed once for the whole app
 * (`Koa<AppState>`, `Router<AppState>`): observability sets the request id and the child logger
 * first; authentication (`bearer` in src/auth) sets the identity, the caller and the connection's
 * workspace before a surface runs. A field is optional where a middleware earlier in the chain may
 * not have run (the health routes, a request refused before authentication).
 */
import type Koa from 'koa';
import type { Logger } from 'pino';
import type { AuthState, Caller, Identity } from '../identity/caller.js';
import type { TraceSpan } from './tracing.js';

export interface AppState {
  /** `Request-Id` of this request (observability). */
  requestId?: string;
  /** The request's child logger (observability); never given a token or an argument value. */
  log?: Logger;
  /** The request's span (observability; src/http/tracing.ts): the parent of each MCP message's span, its ids in the access line. */
  span?: TraceSpan;
  /** Set once when the client went away before the answer was written (observability). */
  clientAborted?: boolean;
  /** The verified token's identity (authentication). */
  identity?: Identity;
  /** Who is calling, on which channel (authentication). */
  caller?: Caller;
  /** `X-Workspace-Id` header or `?workspace_id=` (authentication); resolveWorkspace checks it. */
  connectionWorkspaceId?: string;
}

/** A request's context in this app, `ctx.state` typed (`Koa.ParameterizedContext<AppState>`). */
export type AppContext = Koa.ParameterizedContext<AppState>;

/** A middleware of this app (`Koa.Middleware<AppState>`). */
export type AppMiddleware = Koa.Middleware<AppState>;

/**
 * The fields `bearer` sets, for a surface mounted behind it. Their absence is a wiring mistake,
 * never the client's: an internal error naming the surface (answered 500 INTERNAL), not a cast.
 */
export function requireAuthenticated(state: AppState, surface: string): asserts state is AppState & AuthState {
  if (state.identity === undefined || state.caller === undefined) throw new Error(`${surface}: the bearer middleware did not run before it`);
}
