/**
 * The one error family of the Finance API. Operations throw `ApiError`; REST renders it as
 * `{"error":{code,message,details?}}` with `status`, MCP as a tool result with `isError: true`.
 * Rendering happens in exactly one place per transport; this file only defines the values.
 */

export const API_ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  UNPROCESSABLE_ENTITY: 422,
  SECURITY_BLOCKED: 403,
  RATE_LIMITED: 429,
  insufficient_scope: 403,
  insufficient_permission: 403,
  workspace_access_denied: 403,
  membership_inactive: 403,
  workspace_required: 400,
  confirmation_required: 403,
  USER_DECLINED: 403,
  confirmation_replayed: 409,
  confirmation_unavailable: 503,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ApiErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApiError';
    this.code = code;
    this.status = API_ERROR_STATUS[code];
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

/** The database cannot answer right now (an outage, not a fault of the request): retry after the delay. */
export function serviceUnavailable(retryAfterSeconds: number): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry shortly.', { retry_after_seconds: retryAfterSeconds });
}

export function notFound(resourceLabel: string): ApiError {
  return new ApiError('NOT_FOUND', `${resourceLabel} not found.`);
}
