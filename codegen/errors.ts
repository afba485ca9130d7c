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
  | 'TYPE_CHECK'
  /** A warning (see SpecWarning) under `--strict`. */
  | 'STRICT';

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

/**
 * Constructs that are common in real documents but not strictly valid OpenAPI. The generator
 * accepts them (repairing the document in memory where needed) and reports each one; `--strict`
 * (used by CI on our own contract) turns every warning into a STRICT error.
 */
export type SpecWarningRule =
  /** An operation object given as a `$ref` (only path items and components may be references). */
  | 'OPERATION_REF'
  /** `/items/:id` instead of `/items/{id}`: rewritten to the `{id}` template. */
  | 'COLON_PATH_TEMPLATE'
  /** A path item that is empty or null: dropped. */
  | 'EMPTY_PATH_ITEM'
  /** A key of a Media Type Object other than schema, example, examples, encoding or x-*: dropped. */
  | 'UNKNOWN_MEDIA_TYPE_KEY'
  /** A `content` key that is not a `type/subtype` media range: kept. */
  | 'UNKNOWN_MEDIA_TYPE'
  /** An operationId that cannot become a tool name as it is (empty after snake_case, or a clash): the name is derived. */
  | 'DERIVED_TOOL_NAME'
  /** An argument of a Kobana document's tool whose description is missing or only restates its name (argument-texts.ts). */
  | 'ARGUMENT_TEXT'
  /** An argument that admits no value (an empty enum): dropped when optional, else the tool is excluded (unsatisfiable.ts). */
  | 'EMPTY_ENUM'
  /** A tool a client schema profile cannot represent: left out of that profile's view (profile-check.ts). */
  | 'PROFILE_EXCLUDED'
  /** A tool whose schemas the runtime's ajv cannot compile (an invalid `pattern`…): the tool is excluded (generate.ts, check phase). */
  | 'UNCOMPILABLE_SCHEMA'
  /** A former tool name (`x-mcp.aliases`) past its `until` date (codegen/surface/aliases.ts). */
  | 'EXPIRED_ALIAS';

export interface SpecWarning {
  readonly rule: SpecWarningRule;
  readonly file: string;
  /** JSON pointer inside `file`, starting with `#`. */
  readonly pointer: string;
  readonly detail: string;
}

/** `file#pointer: detail [RULE]`, the one-line form the CLI prints. */
export function formatWarning(warning: SpecWarning): string {
  return `${warning.file}${warning.pointer}: ${warning.detail} [${warning.rule}]`;
}

/** Where an operation is written in the bundled document (`#/paths/~1things/post`). */
export function operationPointer(operation: { readonly path: string; readonly method: string }): string {
  return buildPointer('paths', operation.path, operation.method.toLowerCase());
}

/** Escapes one JSON pointer token (RFC 6901 §3). */
function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Reads `#/a/b` (or `/a/b`) back into raw tokens; a token that is not valid percent-encoding stays as written. */
export function parsePointer(pointer: string): string[] {
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (body === '') return [];
  return body.slice(1).split('/').map((token) => {
    let decoded = token;
    try { decoded = decodeURIComponent(token); } catch { /* literal */ }
    return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
  });
}

/** Builds `#/a/b` from raw tokens. */
export function buildPointer(...tokens: readonly string[]): string {
  return '#' + tokens.map((t) => '/' + escapePointerToken(t)).join('');
}
