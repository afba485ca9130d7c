/**
 * The process's Prometheus collectors, on a private registry (tests build many apps per process).
 * Owns the metric names and labels; the code that observes events (auth, MCP, limits) increments them.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type RateLimitKind = 'protocol' | 'auth_failure' | 'registration' | 'budget_read' | 'budget_write';

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  readonly toolCalls: Counter<'tool' | 'status'>;
  readonly toolCallDuration: Histogram<'tool' | 'status'>;
  readonly confirmations: Counter<'outcome'>;
  readonly rateLimitRejections: Counter<'kind' | 'channel'>;
  readonly tokenVerificationFailures: Counter<'reason'>;
  readonly jwksFetches: Counter<'result'>;
  readonly redisErrors: Counter<string>;
  readonly redisFallbacks: Counter<'reason'>;
}

/** The latency buckets of `mcp_tool_call_duration_seconds`, in seconds. */
const TOOL_CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const counter = <Label extends string>(name: string, help: string, labelNames: readonly Label[] = []): Counter<Label> =>
    new Counter({ name, help, labelNames, registers });
  return {
    registry,
    httpRequests: counter('http_requests_total', 'HTTP requests by matched route, method and status.', ['route', 'method', 'status']),
    toolCalls: counter('mcp_tool_calls_total', 'MCP tools/call by tool and status (ok or the error code).', ['tool', 'status']),
    toolCallDuration: new Histogram({
      name: 'mcp_tool_call_duration_seconds',
      help: 'MCP tools/call latency in seconds by tool and status.',
      labelNames: ['tool', 'status'] as const,
      buckets: TOOL_CALL_BUCKETS,
      registers,
    }),
    confirmations: counter('mcp_confirmations_total', 'Confirmation outcomes (requested, accepted, declined, cancelled, replayed, unavailable).', ['outcome']),
    rateLimitRejections: counter('rate_limit_rejections_total', 'Requests rejected by a limit, by kind and channel.', ['kind', 'channel']),
    tokenVerificationFailures: counter('token_verification_failures_total', 'Bearer tokens rejected, by reason.', ['reason']),
    jwksFetches: counter('account_jwks_fetches_total', 'Fetches of the Account JWKS, by result.', ['result']),
    redisErrors: counter('redis_errors_total', 'Redis commands that failed (limits fail open while this grows).'),
    redisFallbacks: counter(
      'redis_fallbacks_total',
      'Limit decisions taken by per-process counters: reason="error" after a failed Redis command, "circuit_open" without trying Redis.',
      ['reason'],
    ),
  };
}
