/**
 * The generator's single error type: every failure names the spec file and a JSON pointer so the
 * author can jump to the offending place. Printing (and the exit code) is left to cli.ts.
 */

export type CodegenErrorCode =
  | 'INVALID_DOCUMENT'
  | 'REMOTE_REF'
  | 'NAME_CLASH'
  | 'INVALID_NAME'
  | 'ARGUMENT_CLASH'
  | 'MISSING_EXTENSION'
  | 'INVALID_EXTENSION'
  | 'MISSING_HANDLER'
  | 'UNKNOWN_HANDLER'
  | 'INVALID_HANDLER'
  | 'TYPE_CHECK';

export class CodegenError extends Error {
  override readonly name = 'CodegenError';
  constructor(
    readonly code: CodegenErrorCode,
    readonly file: string,
    /** JSON pointer inside `file`, starting with `#` (e.g. `#/paths/~1v1~1payables/get`). */
    readonly pointer: string,
    readonly detail: string,
  ) {
    super(`${file}${pointer}: ${detail}`);
  }
}

/** Escapes one JSON pointer token (RFC 6901 §3). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Builds `#/a/b` from raw tokens. */
export function buildPointer(...tokens: readonly string[]): string {
  return '#' + tokens.map((t) => '/' + escapePointerToken(t)).join('');
}
