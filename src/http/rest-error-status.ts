/**
 * The HTTP status REST answers for each ApiError code (docs/security.md#check-order-and-error-catalogue).
 * The api layer names codes only; the statuses are the REST transport's (MCP answers every
 * ApiError as a tool error on HTTP 200).
 */
import type { ApiErrorCode } from '../api/index.js';

export const API_ERROR_STATUS: Readonly<Record<ApiErrorCode, number>> = {
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  UNPROCESSABLE_ENTITY: 422,
  SECURITY_BLOCKED: 403,
  // 422, never 429: clients retry a 429 by themselves, and here a retry is a money move.
  LIMIT_EXCEEDED: 422,
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
};
