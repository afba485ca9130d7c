/**
 * Per-request observability: the request id (accepted from `X-Request-Id` or generated, returned
 * as `Request-Id`), a child logger on `ctx.state.log`, the request's span (its parent the
 * `traceparent` header, when valid: src/http/trace-context.ts) on `ctx.state.span`, one access
 * log line with the span's `trace_id` and `span_id`, and the request counter. It logs no headers,
 * query strings, bodies or paths of unmatched routes (a token pasted into a path must not reach
 * the log); the per-`tools/call` line is the MCP layer's, and
 * rendering errors is left to each surface's error middleware, which first lets
 * `settleClientAbort` take a client that went away (routine, not an error).
 */
import { randomUUID } from 'node:crypto';
import type { Logger, LoggerOptions } from 'pino';
import type { Metrics } from './metrics.js';
import type { AppContext, AppMiddleware } from './app-state.js';
import { parseTraceParent } from './trace-context.js';
import { passThroughTracing, traceLogFields, type TraceSpan, type Tracing } from './tracing.js';

/**
 * pino `redact.paths` for every logger of the process: credentials and argument/body values are
 * removed wherever a log call might carry them (docs/security.md#what-is-recorded: never tokens, never argument values).
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

/** Status recorded (access line, `http_requests_total`) for a request whose client went away: nginx's "client closed request". */
const CLIENT_CLOSED_REQUEST = 499;

/** Error codes of a connection or request stream that ended before the request did (`HPE_*`: the request was cut short). */
const ABORT_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);
const ABORT_MESSAGES = new Set(['aborted', 'request aborted']);

/** The part of a pino logger the error handlers write to. */
export interface FailureLog {
  debug(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

function readCode(err: object): string | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether `err` only says that this request's client went away (aborted the request, reset or
 * closed the connection before the body was read or the answer written). Both must hold: the
 * error looks like an abort, and this request's connection is really gone before the answer was
 * sent — a reset of the database's or Redis's connection while the client waits is a real failure.
 */
function isClientAbort(ctx: AppContext, err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const code = readCode(err);
  const message = (err as { message?: unknown }).message;
  const looksAborted = (code !== undefined && (ABORT_CODES.has(code) || code.startsWith('HPE_')))
    || (typeof message === 'string' && ABORT_MESSAGES.has(message));
  // The socket is closed, or the request stream ended before its body did (a fully read request is destroyed too).
  const gone = ctx.req.socket?.destroyed !== false || (ctx.req.destroyed && !ctx.req.complete);
  return looksAborted && gone && !ctx.res.writableFinished;
}

/**
 * For the error middlewares, first thing: a client abort is routine, not a failure — one debug
 * line without a stack (never "unhandled error"), status 499 for the access line and the
 * counter, nothing to send. Returns false (and does nothing) for any other error.
 */
export function settleClientAbort(ctx: AppContext, log: FailureLog, err: unknown): boolean {
  if (!isClientAbort(ctx, err)) return false;
  noteClientAbort(ctx, log, err);
  ctx.status = CLIENT_CLOSED_REQUEST;
  return true;
}

/** One debug line per aborted request, however many layers see the abort. */
function noteClientAbort(ctx: AppContext, log: FailureLog, err: unknown): void {
  if (ctx.state.clientAborted === true) return;
  ctx.state.clientAborted = true;
  log.debug({ event: 'client_aborted', code: readCode(err as object) ?? 'aborted' }, 'client went away before the answer');
}

/**
 * The app's `error` listener, in place of Koa's default (which prints the stack to stderr):
 * what escapes every surface, or fails while the answer is written (a socket cut mid-response),
 * goes to the request's logger — a client abort at debug without a stack, anything else as an
 * error with its cause.
 */
export function createAppErrorListener(logger: Logger): (err: unknown, ctx?: AppContext) => void {
  return function logAppError(err, ctx) {
    const log: FailureLog = ctx?.state.log ?? logger;
    if (ctx !== undefined && isClientAbort(ctx, err)) {
      noteClientAbort(ctx, log, err);
      return;
    }
    log.error({ err }, 'unhandled error');
  };
}

interface RoutedContext {
  /** Set by @koa/router to the matched route template, e.g. `/v1/payables/:id`. */
  readonly _matchedRoute?: string | RegExp;
}

function readStatus(ctx: AppContext, error: unknown): number {
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

/** The request's span: a child of the `traceparent` header's context when it is valid, else a new trace (exporting) or none. */
function startRequestSpan(ctx: AppContext, tracing: Tracing): TraceSpan {
  const header = ctx.get('traceparent');
  const remoteParent = header === '' ? undefined : parseTraceParent(header, ctx.get('tracestate') || undefined);
  return tracing.startSpan({ name: ctx.method, kind: 'server', remoteParent, attributes: { 'http.request.method': ctx.method } });
}

/** The span's name and attributes once the answer is known: the route template (never a raw path), the status; 5xx fails it. */
function endRequestSpan(span: TraceSpan, method: string, route: string | undefined, status: number): void {
  if (route !== undefined) {
    span.rename(`${method} ${route}`);
    span.setAttributes({ 'http.route': route });
  }
  span.setAttributes({ 'http.response.status_code': status });
  if (status >= 500) span.fail(String(status));
  span.end();
}

export interface ObservabilityDeps {
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Default: pass-through (no spans; a received context's ids still reach the log line). */
  readonly tracing?: Tracing | undefined;
}

export function requestObservability({ logger, metrics, tracing = passThroughTracing }: ObservabilityDeps): AppMiddleware {
  return async function observeRequest(ctx, next) {
    const started = performance.now();
    const requestId = resolveRequestId(ctx.get('X-Request-Id') || undefined);
    const log = logger.child({ request_id: requestId });
    const span = startRequestSpan(ctx, tracing);
    ctx.state.requestId = requestId;
    ctx.state.log = log;
    ctx.state.span = span;
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
      // Unmatched paths share one label (and are never logged raw): scanners cannot grow the
      // series without bound, and a token pasted into a path does not reach the log.
      const label = route ?? 'unmatched';
      metrics.httpRequests.inc({ route: label, method: ctx.method, status: String(status) });
      endRequestSpan(span, ctx.method, route, status);
      log.info({ method: ctx.method, route: label, status, duration_ms: Math.round(durationMs * 100) / 100, ...traceLogFields(span) }, 'request');
    }
  };
}
