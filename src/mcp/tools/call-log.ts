/**
 * One structured log line and the metrics of each `tools/call` (docs/security.md#what-is-recorded): tool,
 * workspace, person, token type, status, duration, request id, era, and the message span's
 * `trace_id`/`span_id`; the span is given the same record's fields (docs/operations.md#trace-context).
 * Never tokens, never argument values.
 */
import { symbols, type Logger } from 'pino';
import type { Metrics } from '../../http/metrics.js';
import { traceLogFields, type TraceSpan } from '../../http/tracing.js';
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
  /** The message's span (src/mcp/handle-message.ts): named by the tool, given this record's fields. */
  readonly span?: TraceSpan | undefined;
}

/** Statuses that are not a failure of the call: answered, or the person is being asked. */
const SUCCEEDED = new Set(['ok', 'input_required']);

/** The span's name and attributes: the log line's fields (tool, status, workspace, token type), nothing of the arguments. */
function tagSpan(span: TraceSpan, record: ToolCallRecord): void {
  if (record.status !== 'invalid_params') span.rename(`tools/call ${record.tool}`);
  span.setAttributes({
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': record.tool,
    'kobana.finance.call.status': record.status,
    'kobana.finance.token_type': record.caller.tokenType,
    ...(record.workspaceId === null ? {} : { 'kobana.finance.workspace.id': record.workspaceId }),
  });
  // An error result of the tool (OpenTelemetry's MCP conventions: `tool_error`); a JSON-RPC error is the message's.
  if (!SUCCEEDED.has(record.status)) span.fail('tool_error');
}

/** `metrics` is optional so the transport works while observability is absent (tests, tools). */
export function recordToolCall(log: Logger, metrics: Partial<Metrics> | undefined, record: ToolCallRecord): void {
  const seconds = (performance.now() - record.startedAt) / 1000;
  if (record.span !== undefined) tagSpan(record.span, record);
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
    ...traceLogFields(record.span),
  }, 'tools/call');
}
