/**
 * One structured log line and the metrics of each `tools/call` (docs/security.md#what-is-recorded): tool,
 * workspace, person, token type, status, duration, request id, era. Never tokens, never
 * argument values.
 */
import { symbols, type Logger } from 'pino';
import type { Metrics } from '../../http/metrics.js';
import type { Caller } from '../../api/index.js';
import type { Era } from '../versions.js';

export interface ToolCallRecord {
  readonly tool: string;
  readonly workspaceId: string | null;
  readonly caller: Caller;
  /** `ok`, the ApiError code, `input_required`, `invalid_params` or `internal`. */
  readonly status: string;
  readonly startedAt: number;
  readonly requestId: string | undefined;
  readonly era: Era;
}

/** `metrics` is optional so the transport works while observability is absent (tests, tools). */
export function recordToolCall(log: Logger, metrics: Partial<Metrics> | undefined, record: ToolCallRecord): void {
  const seconds = (performance.now() - record.startedAt) / 1000;
  if (log.isLevelEnabled('info')) logToolCall(log, record, seconds);
  // Unknown tool names stay out of the label set (unbounded cardinality).
  if (record.status === 'invalid_params') return;
  metrics?.toolCalls?.inc({ tool: record.tool, status: record.status });
  metrics?.toolCallDuration?.observe({ tool: record.tool, status: record.status }, seconds);
}

/** pino's serialized bindings of a logger (`log.bindings()` parses them back from JSON on every call). */
const CHINDINGS = symbols.chindingsSym as unknown as keyof Logger;

function logToolCall(log: Logger, record: ToolCallRecord, seconds: number): void {
  // The request's child logger already carries request_id (http/observability); do not repeat the key.
  const chindings = log[CHINDINGS];
  const boundRequestId = typeof chindings === 'string' ? chindings.includes('"request_id":') : log.bindings()['request_id'] !== undefined;
  log.info({
    event: 'tools/call',
    tool: record.tool,
    workspace: record.workspaceId,
    person: record.caller.personId,
    token_type: record.caller.tokenType,
    status: record.status,
    duration_ms: Math.round(seconds * 1e6) / 1e3,
    ...(boundRequestId ? {} : { request_id: record.requestId ?? null }),
    era: record.era.version,
  }, 'tools/call');
}
