/**
 * Transport rejections that happen before a JSON-RPC message or an API operation is reached
 * (401, 403, 405, 413, 429, 503). Rendered in exactly one place: the error middleware of the
 * surface that raised it (`/mcp` renders a JSON-RPC-shaped body where docs/protocol.md says so).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Response headers, e.g. `WWW-Authenticate`, `Retry-After`. */
    readonly headers: Readonly<Record<string, string>> = {},
    /** A machine-readable reason for logs and metrics (never sent to the client). */
    readonly reason: string = 'http_error',
    /** An explicit response body; when absent the surface renders its default. */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}
