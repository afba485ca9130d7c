/**
 * Text no operation accepts: a NUL character (U+0000; PostgreSQL cannot store it and fails the
 * query) or invalid UTF-16 (an unpaired surrogate, which has no UTF-8 form). Refused at the
 * edge of each surface, the same on SQLite and PostgreSQL: operation arguments (REST path,
 * query and body; MCP tool arguments) by compileRouteValidator (src/api/validation.ts), the
 * workspace hint before authentication by src/http/unsafe-workspace.ts, the embedded Account's
 * ids, emails and approval links by src/oauth (adapter.ts, people.ts, approvals.ts).
 *
 *   isUnsafeText(text: string): boolean
 *   UNSAFE_TEXT_MESSAGE   // the issue message (never echoes the value)
 */

const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSAFE_TEXT_MESSAGE = 'must not contain NUL characters or invalid Unicode (unpaired surrogates)';

export function isUnsafeText(text: string): boolean {
  return UNSAFE.test(text);
}
