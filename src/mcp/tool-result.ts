/**
 * Maps a dispatched call to its `tools/call` result (docs/protocol.md#tools): the endpoint's JSON as
 * one text block, files as metadata only, an Idempotency-Key replay marked in `_meta`, and every
 * ApiError as `isError: true` with the API envelope. The one place MCP renders operation outcomes.
 */
import type { ApiError, FileOutput, OperationOutput } from '../dispatch/index.js';

export interface ToolResult {
  readonly content: readonly { readonly type: 'text'; readonly text: string }[];
  readonly isError?: true;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** `_meta` key of a result answered from the stored response of its Idempotency-Key (REST: `Idempotency-Replayed`). */
export const REPLAYED_META = 'app.kobana.finance/idempotency-replayed';

/** Files are never inlined (docs/domain.md#attachments): the download goes through the API with an API token. */
function describeFile(file: FileOutput): Record<string, unknown> {
  return {
    content_type: file.contentType,
    size: file.size,
    file_name: file.fileName,
    sha256: file.sha256,
    download_path: file.downloadPath,
    note: 'Download with an API token (the MCP token is not valid at /v1).',
  };
}

export function renderOutput(output: OperationOutput, replayed: boolean): ToolResult {
  const payload = output.file ? describeFile(output.file) : output.body;
  // Operations that answer nothing (delete, unlink) get an empty object, so the text stays valid JSON.
  const text = payload === undefined ? '{}' : JSON.stringify(payload);
  return { content: [{ type: 'text', text }], ...(replayed ? { _meta: { [REPLAYED_META]: true } } : {}) };
}

export function renderApiError(error: ApiError): ToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error.toEnvelope()) }] };
}
