/**
 * The app's tracing seam: spans of an HTTP request and of each MCP message, and the trace and
 * span ids their log lines carry. Two implementations: `passThroughTracing` (the default, no
 * OpenTelemetry loaded: no span of its own, a received context's ids pass through to the log
 * lines, as OpenTelemetry's API does without an SDK) and src/http/otel-tracing.ts (the SDK,
 * imported by src/bootstrap.ts only when an exporter is configured). A span is given the log's
 * fields only: never a token, never an argument value (docs/operations.md#trace-context).
 */
import type { TraceParent } from './trace-context.js';

/** The ids of a span, as the log lines carry them (`trace_id`, `span_id`). */
export interface TraceIds {
  readonly traceId: string;
  readonly spanId: string;
}

export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

export interface TraceSpan {
  /** Undefined when nothing is traced: no span of ours and no context received. */
  readonly ids: TraceIds | undefined;
  setAttributes(attributes: SpanAttributes): void;
  /** The span's name once the low-cardinality target is known (the route, the tool). */
  rename(name: string): void;
  /** Status error, with `error.type` (a code, never a message). */
  fail(errorType: string): void;
  end(): void;
}

export interface SpanRequest {
  readonly name: string;
  /** `server` for the HTTP request and each MCP message (OpenTelemetry's semantic conventions). */
  readonly kind: 'server' | 'internal';
  /** A context received from the caller: the span's remote parent (wins over `parent`). */
  readonly remoteParent?: TraceParent | undefined;
  /** A span of this process the new one is a child of. */
  readonly parent?: TraceSpan | undefined;
  /** A span of this process the new one is linked to (not its parent): the HTTP span of an MCP message with its own context. */
  readonly link?: TraceSpan | undefined;
  readonly attributes?: SpanAttributes | undefined;
}

export interface Tracing {
  /** Whether spans leave the process (an exporter is configured). */
  readonly exporting: boolean;
  startSpan(request: SpanRequest): TraceSpan;
  /** Exports what is still buffered, then stops (Services.close). */
  shutdown(): Promise<void>;
}

class PassThroughSpan implements TraceSpan {
  constructor(readonly ids: TraceIds | undefined) {}
  setAttributes(): void {}
  rename(): void {}
  fail(): void {}
  end(): void {}
}

const UNTRACED = new PassThroughSpan(undefined);

/** No spans: the received context's ids (or the parent's) pass through to the log lines; nothing is generated, nothing leaves. */
export const passThroughTracing: Tracing = {
  exporting: false,
  startSpan({ remoteParent, parent }) {
    if (remoteParent !== undefined) return new PassThroughSpan({ traceId: remoteParent.traceId, spanId: remoteParent.spanId });
    return parent?.ids === undefined ? UNTRACED : parent;
  },
  shutdown: async () => {},
};

/** A log line's `trace_id` and `span_id`, or nothing when the span has no ids. */
export function traceLogFields(span: TraceSpan | undefined): { trace_id?: string; span_id?: string } {
  const ids = span?.ids;
  return ids === undefined ? {} : { trace_id: ids.traceId, span_id: ids.spanId };
}
