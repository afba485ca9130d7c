/**
 * The method table's vocabulary: what a method handler receives and declares. Era shaping
 * (`resultType`, `ttlMs`, `_meta`) is applied by `src/mcp/respond.ts`, never by handlers.
 */
import type { Logger } from 'pino';
import type { Caller } from '../../api/index.js';
import type { TraceSpan } from '../../http/tracing.js';
import type { PreparedResult } from '../json-rpc.js';
import type { ToolView } from '../view.js';
import type { Era } from '../versions.js';

export interface MethodContext {
  readonly era: Era;
  readonly params: Readonly<Record<string, unknown>>;
  readonly caller: Caller;
  readonly connectionWorkspaceId: string | undefined;
  readonly log: Logger;
  readonly requestId: string | undefined;
  /** The request's view (toolsets, read-only, schema form): `tools/list` and `tools/call` honour it. */
  readonly view: ToolView;
  /** This message's span (src/http/tracing.ts): given the log line's fields only, its ids in the `tools/call` line. */
  readonly span: TraceSpan;
}

export interface MethodDefinition {
  /** Which eras know the method; elsewhere it is -32601 (docs/protocol.md#modern-era-2026-07-28, docs/protocol.md#2025-era). */
  readonly eras: 'modern' | 'legacy' | 'both';
  /** The result depends on the caller's scope and permissions: `ttlMs: 0`, `cacheScope: "private"`. */
  readonly callerScoped: boolean;
  /** A plain result is era-shaped and serialized by respond.ts; a PreparedResult is already both. */
  handle(ctx: MethodContext): Promise<Record<string, unknown> | PreparedResult>;
}

export type MethodTable = Readonly<Record<string, MethodDefinition>>;
