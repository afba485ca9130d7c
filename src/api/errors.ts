/**
 * The one error family of the Finance API. Operations throw `ApiError`; REST renders it as
 * `{"error":{code,message,details?}}` with the HTTP status it picks for the code
 * (src/http/rest-error-status.ts), MCP as a tool result with `isError: true`. Rendering happens
 * in exactly one place per transport; this file only defines the values — no HTTP.
 */

const API_ERROR_CODES = [
  'VALIDATION_ERROR',
  'BAD_REQUEST',
  'NOT_FOUND',
  'CONFLICT',
  'UNPROCESSABLE_ENTITY',
  'SECURITY_BLOCKED',
  'LIMIT_EXCEEDED',
  'RATE_LIMITED',
  'insufficient_scope',
  'insufficient_permission',
  'workspace_access_denied',
  'membership_inactive',
  'workspace_required',
  'confirmation_required',
  'USER_DECLINED',
  'confirmation_replayed',
  'confirmation_unavailable',
  'SERVICE_UNAVAILABLE',
] as const;

export type ApiErrorCode = typeof API_ERROR_CODES[number];

export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ApiErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
  }

  /** The wire envelope shared by REST and MCP (docs/security.md#check-order-and-error-catalogue). */
  toEnvelope(): { error: { code: ApiErrorCode; message: string; details?: Record<string, unknown> } } {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: { ...this.details } } : {}) } };
  }
}

export function validationError(issues: readonly ValidationIssue[], message = 'The request is not valid.'): ApiError {
  return new ApiError('VALIDATION_ERROR', message, { issues });
}

/** Why a `SERVICE_UNAVAILABLE` was answered (`details.reason`): docs/operations.md#database-outages. */
export type ServiceUnavailableReason = 'database' | 'disk_full' | 'deadline';

/** The database cannot answer right now, or the call ran past its deadline (`reason`; not a fault of the request): retry after the delay. */
export function serviceUnavailable(retryAfterSeconds: number, reason: ServiceUnavailableReason): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry shortly.', { retry_after_seconds: retryAfterSeconds, reason });
}

export function notFound(resourceLabel: string): ApiError {
  return new ApiError('NOT_FOUND', `${resourceLabel} not found.`);
}
