/**
 * Renders /v1 results: an executed call becomes the route's success status plus its headers
 * (`RateLimit-*` from the budget, `Idempotency-Replayed: true` on a replay — the api layer knows
 * no HTTP), success JSON (204 without a body), files (bytes with Content-Type,
 * Content-Disposition per RFC 6266, Cache-Control: private, no-store) and — in exactly one
 * place — every error: ApiError → its envelope, HttpError → its status/headers, the database
 * unreachable or out of space, or the request past its deadline → 503 SERVICE_UNAVAILABLE + Retry-After (`details.reason`), anything else → 500 INTERNAL with the
 * cause logged, never a stack.
 */
import type { FileOutput } from '../api/index.js';
import { ApiError, serviceUnavailable } from '../api/index.js';
import type { BudgetDecision, ExecuteDone } from '../api/index.js';
import { DATABASE_RETRY_AFTER_SECONDS, databaseOutageReason, isDatabaseUnavailable, logDatabaseUnavailable } from '../store/db-unavailable.js';
import { HttpError } from './errors.js';
import { API_ERROR_STATUS } from './rest-error-status.js';
import { settleClientAbort } from './observability.js';
import type { AppContext, AppMiddleware } from './app-state.js';

/** Types a browser may show in place; everything else downloads (no active content inline). */
const INLINE_TYPES = new Set(['application/pdf', 'image/png', 'image/jpeg']);

/** A quoted-string-safe ASCII fallback: no quotes, backslashes, control or non-ASCII bytes, no paths. */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const ascii = base.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/["\\;%]/g, '_').replace(/^[.\s]+/, '').trim();
  return (ascii === '' ? 'download' : ascii).slice(0, 150);
}

/** RFC 8187 ext-value: UTF-8, percent-encoding everything outside attr-char. */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function buildContentDisposition(contentType: string, fileName: string): string {
  return formatContentDisposition(INLINE_TYPES.has(contentType.toLowerCase()) ? 'inline' : 'attachment', fileName);
}

/** `<disposition>; filename="<ASCII fallback>"; filename*=UTF-8''<the name>` (RFC 6266). */
export function formatContentDisposition(disposition: 'inline' | 'attachment', fileName: string): string {
  const base = (fileName.split(/[\\/]/).pop() ?? '').replace(/[\x00-\x1f\x7f]/g, '').slice(0, 200);
  const fallback = sanitizeFileName(base);
  const ext = base === '' ? '' : `; filename*=UTF-8''${encodeExtValue(base)}`;
  return `${disposition}; filename="${fallback}"${ext}`;
}

/** One /v1 success answer. */
export interface RestResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly file?: FileOutput;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Tells a client its request was answered from the stored response of its Idempotency-Key. */
const REPLAYED_HEADER = 'Idempotency-Replayed';

function rateLimitHeaders(budget: BudgetDecision | undefined): Record<string, string> {
  if (!budget) return {};
  return {
    'RateLimit-Limit': String(budget.limit),
    'RateLimit-Remaining': String(Math.max(0, budget.remaining)),
    'RateLimit-Reset': String(Math.max(0, Math.ceil(budget.resetSeconds))),
  };
}

/** A money move that did not run: it waits for a second person, and the body is its approval request (docs/security.md#money-controls). */
const ACCEPTED = 202;

/**
 * The answer to a call that ran: the generated success status (the spec's first 2xx, whatever
 * the operation's outcome) — `202 Accepted` when a money move became an approval request
 * instead — its body or file, the budget and, on a replay, `Idempotency-Replayed`.
 */
export function toRestResponse(successStatus: number, done: ExecuteDone): RestResponse {
  const { output } = done;
  return {
    status: output.outcome === 'pending_approval' ? ACCEPTED : successStatus,
    ...(output.body === undefined ? {} : { body: output.body }),
    ...(output.file ? { file: output.file } : {}),
    headers: { ...rateLimitHeaders(done.budget), ...(done.replayed ? { [REPLAYED_HEADER]: 'true' } : {}) },
  };
}

function applyHeaders(ctx: AppContext, headers: Readonly<Record<string, string>> | undefined): void {
  for (const [name, value] of Object.entries(headers ?? {})) ctx.set(name, value);
}

async function renderFile(ctx: AppContext, file: FileOutput): Promise<void> {
  const bytes = await file.bytes();
  ctx.status = 200;
  ctx.set('Content-Type', file.contentType);
  ctx.set('Content-Disposition', buildContentDisposition(file.contentType, file.fileName));
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  ctx.length = bytes.byteLength;
}

export async function renderOutput(ctx: AppContext, output: RestResponse): Promise<void> {
  applyHeaders(ctx, output.headers);
  if (output.file) return renderFile(ctx, output.file);
  ctx.status = output.status;
  if (output.status === 204 || output.body === undefined) {
    ctx.body = null;
    ctx.status = output.status;
    return;
  }
  ctx.body = output.body;
}

/** The spec's transport codes (`Error.code`) for rejections that happen before an operation. */
const HTTP_CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'unauthorized',
  403: 'workspace_access_denied',
  404: 'NOT_FOUND',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
  503: 'service_unavailable',
};

function renderRateLimited(ctx: AppContext, err: ApiError): void {
  const details = err.details ?? {};
  const retry = Number(details['retry_after_seconds']);
  if (Number.isFinite(retry)) {
    ctx.set('Retry-After', String(Math.max(1, Math.ceil(retry))));
    ctx.set('RateLimit-Reset', String(Math.max(0, Math.ceil(retry))));
  }
  const limit = Number(details['limit']);
  if (Number.isFinite(limit)) ctx.set('RateLimit-Limit', String(limit));
  ctx.set('RateLimit-Remaining', '0');
}

function renderError(ctx: AppContext, err: unknown): void {
  if (err instanceof ApiError) {
    if (err.code === 'RATE_LIMITED') renderRateLimited(ctx, err);
    if (err.code === 'SERVICE_UNAVAILABLE') ctx.set('Retry-After', String(err.details?.['retry_after_seconds'] ?? DATABASE_RETRY_AFTER_SECONDS));
    ctx.status = API_ERROR_STATUS[err.code];
    ctx.body = err.toEnvelope();
    return;
  }
  if (err instanceof HttpError) {
    applyHeaders(ctx, err.headers);
    ctx.status = err.status;
    ctx.body = err.body ?? { error: { code: HTTP_CODES[err.status] ?? 'http_error', message: err.message } };
    return;
  }
  const { log } = ctx.state;
  // The client went away (e.g. mid-body): nothing to answer, a debug line (its ECONNRESET is no database outage).
  if (log && settleClientAbort(ctx, log, err)) return;
  // The database is down or not answering: an outage the client may retry, not a fault of ours to hide.
  if (isDatabaseUnavailable(err)) {
    logDatabaseUnavailable(log, err);
    renderError(ctx, serviceUnavailable(DATABASE_RETRY_AFTER_SECONDS, databaseOutageReason(err)));
    return;
  }
  // Unknown failures: log the cause server-side (never the request values), answer generically.
  log?.error({ err }, 'unhandled error in /v1 operation');
  ctx.status = 500;
  ctx.body = { error: { code: 'INTERNAL', message: 'Internal error.' } };
}

/** Koa middleware: the one place /v1 errors become responses. */
export const renderRestErrors: AppMiddleware = async (ctx, next) => {
  try {
    await next();
  } catch (err) {
    renderError(ctx, err);
  }
};
