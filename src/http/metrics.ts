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

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by matched route, method and status.',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    }),
    toolCalls: new Counter({
      name: 'mcp_tool_calls_total',
      help: 'MCP tools/call by tool and status (ok or the error code).',
      labelNames: ['tool', 'status'] as const,
      registers,
    }),
    toolCallDuration: new Histogram({
      name: 'mcp_tool_call_duration_seconds',
      help: 'MCP tools/call latency in seconds by tool and status.',
      labelNames: ['tool', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    confirmations: new Counter({
      name: 'mcp_confirmations_total',
      help: 'Confirmation outcomes (requested, accepted, declined, cancelled, replayed, unavailable).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    rateLimitRejections: new Counter({
      name: 'rate_limit_rejections_total',
      help: 'Requests rejected by a limit, by kind and channel.',
      labelNames: ['kind', 'channel'] as const,
      registers,
    }),
    tokenVerificationFailures: new Counter({
      name: 'token_verification_failures_total',
      help: 'Bearer tokens rejected, by reason.',
      labelNames: ['reason'] as const,
      registers,
    }),
    jwksFetches: new Counter({
      name: 'account_jwks_fetches_total',
      help: 'Fetches of the Account JWKS, by result.',
      labelNames: ['result'] as const,
      registers,
    }),
    redisErrors: new Counter({
      name: 'redis_errors_total',
      help: 'Redis commands that failed (limits fail open while this grows).',
      registers,
    }),
    redisFallbacks: new Counter({
      name: 'redis_fallbacks_total',
      help: 'Limit decisions taken by per-process counters: reason="error" after a failed Redis command, "circuit_open" without trying Redis.',
      labelNames: ['reason'],
      registers,
    }),
  };
}
