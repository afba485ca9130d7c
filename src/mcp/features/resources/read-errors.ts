/**
 * How an `ApiError` of a resource read becomes a JSON-RPC outcome. Not found and another
 * workspace's record look the same (docs/security.md#check-order-and-error-catalogue: never tell which) and are left to the mcp
 * layer's era-specific not-found error; everything else the caller can act on is -32602 with
 * the API's envelope in `data`, so the agent sees the same code a tool would have returned.
 */
import { ApiError } from '../../../api/index.js';
import { INVALID_PARAMS, JsonRpcError } from '../../json-rpc.js';

/** Implementation-defined JSON-RPC server error (range -32000..-32099) for a spent API budget. */
const RATE_LIMITED_ERROR = -32000;

/**
 * Codes that mean "no such resource for you": a missing record, a record of a workspace the
 * caller does not reach, and a malformed id (a string that can name no record).
 */
const NOT_FOUND_CODES: ReadonlySet<string> = new Set(['NOT_FOUND', 'workspace_access_denied', 'VALIDATION_ERROR', 'BAD_REQUEST']);

/**
 * Returns null when the read should answer "resource not found", else the JsonRpcError to throw.
 * Scope and permission failures are reported (-32602 with `data.error.code`) rather than hidden:
 * they are checked before any record is looked up, so they reveal nothing about existence, and
 * they tell the agent it needs another token or an admin rather than another id.
 */
export function mapReadError(error: unknown, uri: string): JsonRpcError | null {
  if (!(error instanceof ApiError)) throw error;
  if (NOT_FOUND_CODES.has(error.code)) return null;
  const data = { uri, ...error.toEnvelope() };
  if (error.code === 'RATE_LIMITED') return new JsonRpcError(RATE_LIMITED_ERROR, error.message, 200, data);
  return new JsonRpcError(INVALID_PARAMS, error.message, 200, data);
}
