/**
 * Maps a dispatched call to its `tools/call` result (docs/protocol.md#tools): the endpoint's JSON as
 * one text block, files as metadata only, and every ApiError as `isError: true` with the API
 * envelope. The one place MCP renders operation outcomes.
 */
import type { ApiError, FileOutput, OperationOutput } from '../dispatch/index.js';

export interface ToolResult {
  readonly content: readonly { readonly type: 'text'; readonly text: string }[];
  readonly isError?: true;
}

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

export function renderOutput(output: OperationOutput): ToolResult {
  const payload = output.file ? describeFile(output.file) : output.body;
  // 204 operations (delete, unlink) have no body; an empty object keeps the text valid JSON.
  const text = payload === undefined ? '{}' : JSON.stringify(payload);
  return { content: [{ type: 'text', text }] };
}

export function renderApiError(error: ApiError): ToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error.toEnvelope()) }] };
}
