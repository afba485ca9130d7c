/**
 * Maps a dispatched call to its `tools/call` result (docs/protocol.md#tools): the endpoint's JSON
 * as one text block and — from 2025-06-18 — as `structuredContent` matching the tool's
 * `outputSchema`; files as metadata and a download link the person opens (from 2025-06-18 with
 * a `resource_link` to the attachment, last in `content`); the workspace a workspace-scoped call
 * ran in named in `_meta` and in the second text block; an Idempotency-Key replay and a page cut
 * to fit marked in `_meta` and said in a further text block; every ApiError as `isError: true`
 * with the API envelope as its only text and no `structuredContent`; a money move that became an
 * approval request says so in the second text block (nothing ran, who must approve, the request
 * and its expiry). The one place MCP renders operation outcomes.
 */
import type { ApiError, FileOutput, IssuedLink, OperationOutput } from '../../api/index.js';
import { RawJson } from '../json-rpc.js';
import { WRAPPED_RESULT_PROPERTY } from '../../runtime/output-schema.js';
import type { ToolDefinition } from '../../runtime/types.js';

/** A text block, or (a download, from 2025-06-18) a `resource_link` to the attachment's resource. */
export type ContentBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'resource_link'; readonly uri: string; readonly name: string; readonly mimeType: string; readonly size: number };

export interface ToolResult {
  readonly content: readonly ContentBlock[];
  /** The text block's JSON spliced in again (RawJson): the body is serialized once. */
  readonly structuredContent?: Readonly<Record<string, unknown>> | RawJson;
  readonly isError?: true;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** `_meta` key of a result answered from the stored response of its Idempotency-Key (REST: `Idempotency-Replayed`). */
const REPLAYED_META = 'app.kobana.finance/idempotency-replayed';
/** `_meta` key naming the workspace a workspace-scoped call ran in: `{id, name}` (REST: `X-Workspace-Id`). */
export const WORKSPACE_META = 'app.kobana.finance/workspace';
/** `_meta` key of a list page cut to fit the result size cap: `{returned, requested}` rows. */
export const PAGE_CUT_META = 'app.kobana.finance/page-cut';

const REPLAYED_NOTE = 'Replayed: this is the stored result of an earlier call with the same idempotency_key and arguments; nothing ran again.';

/** How a list page was cut to fit (the list engine cuts it; `readPageCut` in call.ts notices). */
export interface PageCut {
  readonly returned: number;
  readonly requested: number;
}

/** The workspace a call ran in, as its result names it. */
export interface NamedWorkspace {
  readonly id: string;
  readonly name: string;
}

export interface RenderOptions {
  readonly replayed: boolean;
  /** Set for a workspace-scoped call: named right after the endpoint's JSON (content[1]). */
  readonly workspace?: NamedWorkspace | undefined;
  /** The era knows `structuredContent` (2025-06-18 and later). */
  readonly structured: boolean;
  readonly pageCut?: PageCut | undefined;
  /** A file's download link for the person (docs/security.md#download-links); absent where none is made. */
  readonly downloadLink?: IssuedLink | undefined;
  /** The era knows `resource_link` content (2025-06-18 and later). */
  readonly resourceLinks?: boolean;
}

const FILE_NOTE = 'Give download_url to the person: it opens the file in a browser, with no token, until download_url_expires_at (a few minutes; '
  + 'call this tool again for a new one). A program downloads with GET on download_path at /v1 with an API token (the MCP token is not valid there).';

/** Files are never inlined (docs/domain.md#attachments): a link the person opens, and the API path for programs. */
function describeFile(file: FileOutput, link: IssuedLink | undefined): Record<string, unknown> {
  return {
    id: file.attachmentId,
    content_type: file.contentType,
    size: file.size,
    file_name: file.fileName,
    sha256: file.sha256,
    ...(link ? { download_url: link.url, download_url_expires_at: new Date(link.expiresAt * 1000).toISOString() } : {}),
    download_path: file.downloadPath,
    note: link ? FILE_NOTE : 'Download with an API token (the MCP token is not valid at /v1).',
  };
}

/** What the operation answered, as the tool's payload (file metadata for a file; undefined for nothing). */
function toolPayload(output: OperationOutput, link: IssuedLink | undefined): unknown {
  return output.file ? describeFile(output.file, link) : output.body;
}

/** The attachment as a resource (`kobana://finance/attachments/{id}`, its GET tool's template). */
function linkToResource(file: FileOutput): ContentBlock {
  return { type: 'resource_link', uri: `kobana://finance/attachments/${encodeURIComponent(file.attachmentId)}`, name: file.fileName, mimeType: file.contentType, size: file.size };
}

/**
 * What a money move that became an approval request says, plainly, after its JSON: nothing ran,
 * who must approve, the request and its expiry (docs/security.md#money-controls).
 */
function describePending(body: unknown): string {
  const request = (typeof body === 'object' && body !== null ? body : {}) as { id?: unknown; expires_at?: unknown; approval_url?: unknown };
  const where = typeof request.approval_url === 'string' ? `over the REST API or on its approval page (approval_url: ${request.approval_url})` : 'over the REST API';
  return `Nothing ran yet: this money move is above the workspace's approval threshold, so it waits for a second person. `
    + `Another person (not the one who asked) with the approvals.approve permission and the move's own permission must approve approval request ${String(request.id)} `
    + `before ${String(request.expires_at)}, ${where}; no tool can approve it. `
    + `Tell the person, and give them the approval_url if there is one; finance_approvals_get shows its status.`;
}

export function renderOutput(tool: ToolDefinition, output: OperationOutput, options: RenderOptions): ToolResult {
  const payload = toolPayload(output, options.downloadLink);
  // Operations that answer nothing (delete, unlink) get an empty object, so the text stays valid JSON.
  const json = payload === undefined ? '{}' : JSON.stringify(payload);
  const content: ContentBlock[] = [{ type: 'text' as const, text: json }];
  if (output.outcome === 'pending_approval') content.push({ type: 'text', text: describePending(output.body) });
  const meta: Record<string, unknown> = {};
  if (options.workspace) {
    const { id, name } = options.workspace;
    content.push({ type: 'text', text: `Workspace: ${JSON.stringify(name)} (${id}).` });
    meta[WORKSPACE_META] = { id, name };
  }
  if (options.pageCut) {
    const { returned, requested } = options.pageCut;
    content.push({ type: 'text', text: `Page cut to ${returned} of ${requested} rows to keep the result small; call again with cursor = meta.next_cursor for the next rows, or ask for fewer fields.` });
    meta[PAGE_CUT_META] = { returned, requested };
  }
  if (options.replayed) {
    content.push({ type: 'text', text: REPLAYED_NOTE });
    meta[REPLAYED_META] = true;
  }
  // Last, after every text block: the text blocks' order is the result's contract (docs/protocol.md#tools).
  if (output.file && options.resourceLinks === true) content.push(linkToResource(output.file));
  const structuredContent = options.structured && tool.output && payload !== undefined
    ? new RawJson(tool.output.wrapped ? `{${JSON.stringify(WRAPPED_RESULT_PROPERTY)}:${json}}` : json)
    : undefined;
  return {
    content,
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
  };
}

/**
 * An error is its envelope as text and nothing else: no `structuredContent`, which a client
 * checks against the tool's `outputSchema` (the success shape) even on `isError` (SDK v1 1.32
 * does), so any structured error would be refused there (docs/protocol.md#tools).
 */
export function renderApiError(error: ApiError): ToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error.toEnvelope()) }] };
}
