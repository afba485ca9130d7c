/**
 * W3C Trace Context (https://www.w3.org/TR/trace-context/), as received: the `traceparent` (and
 * `tracestate`) of an HTTP request's headers, or of an MCP message's `params._meta` (reserved
 * there by the 2026-07-28 revision, SEP-414). A value the rules do not accept is ignored, as the
 * recommendation asks: the request then starts a trace of its own. No OpenTelemetry import: the
 * parser runs on every request whether spans are exported or not (docs/operations.md#trace-context).
 */

/** A received parent: the trace it belongs to and the caller's span in it. */
export interface TraceParent {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** The caller's span: 16 lowercase hex digits, not all zero. */
  readonly spanId: string;
  /** The `sampled` flag (bit 0 of `trace-flags`): the caller records this trace. */
  readonly sampled: boolean;
  /** The `tracestate` sent with it, when within the recommendation's 512 characters; never logged. */
  readonly traceState?: string | undefined;
}

/** `version "-" trace-id "-" parent-id "-" trace-flags`, the fields of version 00 (55 characters). */
const FIELDS = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})/;
const VERSION_00_LENGTH = 55;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);
/** The longest `tracestate` propagated (the recommendation's limit: 32 members of at most 512 characters in all). */
const MAX_TRACE_STATE_LENGTH = 512;

/**
 * The parent a `traceparent` value names, or undefined when it is not one: version `ff`, upper
 * case, an all-zero id, version 00 with anything after the flags. A later version is read by
 * its version-00 prefix when what follows is `-` and more (the recommendation's rule for versions
 * it does not know).
 */
export function parseTraceParent(value: unknown, traceState?: unknown): TraceParent | undefined {
  if (typeof value !== 'string' || value.length < VERSION_00_LENGTH) return undefined;
  const fields = FIELDS.exec(value);
  if (fields === null) return undefined;
  const [, version, traceId, spanId, flags] = fields as unknown as [string, string, string, string, string];
  if (version === 'ff' || traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return undefined;
  if (version === '00' ? value.length !== VERSION_00_LENGTH : value.length > VERSION_00_LENGTH && value[VERSION_00_LENGTH] !== '-') return undefined;
  const state = typeof traceState === 'string' && traceState.length > 0 && traceState.length <= MAX_TRACE_STATE_LENGTH ? traceState : undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1, ...(state === undefined ? {} : { traceState: state }) };
}

/** The trace context an MCP message carries in `params._meta` (`traceparent`, `tracestate`); undefined without a valid one. */
export function readMetaTraceParent(params: Readonly<Record<string, unknown>>): TraceParent | undefined {
  const meta = params['_meta'];
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
  const carrier = meta as Readonly<Record<string, unknown>>;
  return parseTraceParent(carrier['traceparent'], carrier['tracestate']);
}
