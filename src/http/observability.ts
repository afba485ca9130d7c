/**
 * Per-request observability: the request id (accepted from `X-Request-Id` or generated, returned
 * as `Request-Id`), a child logger on `ctx.state.log`, one access log line and the request
 * counter. It logs no headers, query strings or bodies; the per-`tools/call` line is the MCP
 * layer's, and rendering errors is left to each surface's error middleware.
 */
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import type { Logger, LoggerOptions } from 'pino';
import type { Metrics } from './metrics.js';

/**
 * pino `redact.paths` for every logger of the process: credentials and argument/body values are
 * removed wherever a log call might carry them (SECURITY.md §7: never tokens, never argument values).
 */
export const redactPaths: readonly string[] = [
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization', 'req.headers.authorization',
  'cookie', '*.cookie', '*.headers.cookie',
  'token', '*.token', 'access_token', '*.access_token',
  'args', '*.args', 'arguments', '*.arguments', '*.*.arguments',
  'body', '*.body',
];

/** pino options with the shared redaction; `main.ts` and tests build their loggers from it. */
export function buildLoggerOptions(level: string): LoggerOptions {
  return { level, redact: { paths: [...redactPaths], censor: '[REDACTED]' } };
}

// A client-supplied id is echoed and logged, so only a short, inert token is accepted.
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

export function resolveRequestId(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID_PATTERN.test(header) ? header : randomUUID();
}

interface RoutedContext {
  /** Set by @koa/router to the matched route template, e.g. `/v1/payables/:id`. */
  readonly _matchedRoute?: string | RegExp;
}

function readStatus(ctx: Koa.Context, error: unknown): number {
  if (error === undefined) return ctx.status;
  const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

/** Koa's default error handler drops every header set so far; keep the request id on the error. */
function carryRequestId(error: unknown, requestId: string): void {
  if (typeof error !== 'object' || error === null) return;
  const holder = error as { headers?: Record<string, string> };
  try {
    holder.headers = { ...(holder.headers ?? {}), 'Request-Id': requestId };
  } catch {
    // A frozen or getter-only `headers`: the id is still in the access log line.
  }
}

export function requestObservability({ logger, metrics }: { logger: Logger; metrics: Metrics }): Koa.Middleware {
  return async function observeRequest(ctx, next) {
    const started = performance.now();
    const requestId = resolveRequestId(ctx.get('X-Request-Id') || undefined);
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set('Request-Id', requestId);
    let error: unknown;
    try {
      await next();
    } catch (err) {
      error = err ?? new Error('unknown');
      carryRequestId(err, requestId);
      throw err;
    } finally {
      const matched = (ctx as unknown as RoutedContext)._matchedRoute;
      const route = typeof matched === 'string' ? matched : undefined;
      const status = readStatus(ctx, error);
      const durationMs = performance.now() - started;
      // Unmatched paths share one label so scanners cannot grow the series without bound.
      metrics.httpRequests.inc({ route: route ?? 'unmatched', method: ctx.method, status: String(status) });
      ctx.state.log.info(
        { method: ctx.method, route: route ?? ctx.path, status, duration_ms: Math.round(durationMs * 100) / 100 },
        'request',
      );
    }
  };
}
