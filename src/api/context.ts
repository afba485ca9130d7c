/**
 * What every operation function receives: the caller (already authenticated), the resolved
 * workspace, a database handle bound to the operation's transaction, the call's deadline and the
 * operation's declared bounds. Transport-agnostic:
 * nothing here knows HTTP, Koa or MCP.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { FilterOperator, OperationBounds, OperationRef } from '../runtime/types.js';
import type { Deadline } from '../runtime/deadline.js';

import type { Caller, Channel, TokenType } from '../identity/caller.js';

export type { Caller, Channel, TokenType } from '../identity/caller.js';

export interface ListQuery {
  /** Rows on the page; absent: the list's default (`ListSpec.pageSize`, from its contract). */
  readonly limit?: number;
  readonly cursor?: string;
  /** e.g. `-due_date`; validated against the list's sort fields. */
  readonly sort?: string;
  readonly fields?: readonly string[];
  readonly filters: Readonly<Record<string, Partial<Record<FilterOperator, unknown>>>>;
  /**
   * At most this many bytes of rows (their JSON): the page ends at the last whole row within it
   * (at least one row) and `next_cursor` continues after that row. Set by MCP, whose results
   * must fit a model's context (docs/protocol.md#tools); REST pages are never cut.
   */
  readonly maxBytes?: number;
}

/** The transport-neutral input of one operation call (REST and MCP both build this). */
export interface OperationInput {
  readonly path: Readonly<Record<string, string>>;
  /** Plain (non-list) query parameters. */
  readonly query: Readonly<Record<string, unknown>>;
  readonly list?: ListQuery;
  readonly body?: unknown;
  readonly idempotencyKey?: string;
  /**
   * Raw file bytes a transport already read (REST `multipart/form-data`, src/http/multipart.ts).
   * When set, `body` is `{file_name, content_type, title?}` without `content_base64`, so a 10 MB
   * file is never re-encoded; attachments.upload takes the bytes from here.
   */
  readonly upload?: { readonly bytes: Uint8Array };
}

/** A file the transport renders: REST streams `bytes`, MCP returns only the metadata. */
export interface FileOutput {
  /** The attachment the file is (a download link is made for it, docs/security.md#download-links). */
  readonly attachmentId: string;
  readonly contentType: string;
  readonly size: number;
  readonly fileName: string;
  readonly sha256: string;
  readonly downloadPath: string;
  readonly bytes: () => Promise<Uint8Array>;
}

/**
 * What an operation did, where a transport renders it differently: `created` (a new record or
 * link), `deleted` (nothing to answer), `pending_approval` (a money move above the approval
 * threshold did not run: the body is its approval request; REST answers 202, MCP says so). Absent for a read or a change that answers the record.
 * Never an HTTP status: REST answers the route's generated success status, MCP a tool result.
 */
export type OutcomeKind = 'created' | 'deleted' | 'pending_approval';

/** What an operation returns: data (`body`), a file, or nothing, and where it matters its outcome. */
export interface OperationOutput {
  readonly outcome?: OutcomeKind;
  readonly body?: unknown;
  readonly file?: FileOutput;
}

/** One item of an approval request as it was measured and shown. */
export interface ApprovedItem {
  readonly recordId: string | null;
  readonly kind: string;
  readonly cents: number;
  readonly version: number | null;
  readonly payeePersonId: string | null;
  readonly accountId: string | null;
}

/** A money move a second person approved (docs/security.md#money-controls), run by `ctx.runApprovedMove`. */
export interface ApprovedMoveRequest {
  readonly operationId: string;
  /** The original call's input, as stored with the request. */
  readonly input: OperationInput;
  /** Who asked: the move runs, is recorded and is limited as theirs, on their channel. */
  readonly requester: { readonly personId: string; readonly channel: Exclude<Channel, 'link'>; readonly tokenType: TokenType };
  readonly approvalRequestId: string;
  /**
   * What the approver was shown: every item the move measured when it was asked (record, amount,
   * version, payee, account) and their total. The move measured again must be exactly this — a
   * record changed, added or gone since refuses it (CONFLICT), so an approval never runs more (or
   * other) money out than the request it approved.
   */
  readonly approvedItems: readonly ApprovedItem[];
  readonly approvedTotalCents: number;
}

export interface OperationContext {
  readonly caller: Caller;
  /** The resolved, verified workspace; null only for operations with `workspaceScoped: false`. */
  readonly workspaceId: string | null;
  /** Bound to the operation's transaction when it writes. */
  readonly db: Kysely<Database>;
  readonly now: () => Date;
  /**
   * The kinds of the operation's `shows` the caller may not read (docs/security.md#resources-touched):
   * their records are left out of the result (src/api/omitted.ts). Absent: nothing is left out.
   */
  readonly omitted?: ReadonlySet<string>;
  /**
   * The call's deadline (REQUEST_DEADLINE_MS): an operation that walks rows checks it between
   * chunks (src/api/chunks.ts); past it the call is answered as an outage.
   */
  readonly deadline: Deadline;
  /** The operation's declared `x-kobana-bounds` (null when none): the rows it may walk, the records a workspace may hold. */
  readonly bounds: OperationBounds | null;
  /**
   * In a write's transaction (src/api/execute.ts): runs an approved money move exactly as its
   * operation would — the requester's identity and channel, the limits and the allowlist held
   * again (never the threshold), the measured records' versions compared — and records it.
   * Absent on reads.
   */
  readonly runApprovedMove?: (request: ApprovedMoveRequest) => Promise<OperationOutput>;
  /**
   * Another operation's contract, by operationId (src/api/execute.ts): an approval request names
   * the move it will run, whose permission and scopes its approver needs. Absent outside `execute`.
   */
  readonly findOperation?: (operationId: string) => OperationRef | undefined;
  /**
   * The confirmation sentence of a destructive operation's call, for this caller
   * (src/api/confirmation/describe.ts): an approval request keeps the one its requester confirmed.
   * Absent when the service has no describers; resolves to null for an operation without one.
   */
  readonly describe?: (operationId: string, input: OperationInput) => Promise<string | null>;
  /** Every operation that moves money out (an `outflow`), from the route table: whom the allowance concerns. Absent outside `execute`. */
  readonly outflows?: readonly OperationRef[];
  /**
   * The Account's page where another person decides an approval request (src/oauth/approval-request-page.ts),
   * by its workspace and id. Absent with an external Account: approving is REST only.
   */
  readonly approvalPageUrl?: (workspaceId: string, approvalRequestId: string) => string;
  /** Details every activity entry of this call carries (an approved move's: its request, who asked and who approved). */
  readonly activityDetails?: Readonly<Record<string, unknown>>;
}

export type OperationHandler = (ctx: OperationContext, input: OperationInput) => Promise<OperationOutput>;
