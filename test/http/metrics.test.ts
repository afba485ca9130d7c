import { expect } from 'chai';
import { register as globalRegistry } from 'prom-client';
import { createMetrics } from '../../src/http/metrics.js';

describe('createMetrics()', () => {
  it('builds independent registries, so many apps can live in one process', async () => {
    const one = createMetrics();
    const two = createMetrics();
    one.httpRequests.inc({ route: '/healthz', method: 'GET', status: '200' });
    expect(await one.registry.metrics()).to.include('http_requests_total{route="/healthz",method="GET",status="200"} 1');
    expect(await two.registry.metrics()).not.to.include('route="/healthz"');
    expect(globalRegistry.getSingleMetric('http_requests_total')).to.equal(undefined);
  });

  it('labels tool calls by tool and status and observes their duration in seconds', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.toolCalls.inc({ tool: 'finance_payables_settle', status: 'confirmation_required' });
    metrics.toolCallDuration.observe({ tool: 'finance_payables_settle', status: 'ok' }, 0.042);
    metrics.rateLimitRejections.inc({ kind: 'budget_write', channel: 'mcp' });
    metrics.tokenVerificationFailures.inc({ reason: 'expired' });
    metrics.jwksFetches.inc({ result: 'ok' });
    metrics.confirmations.inc({ outcome: 'accepted' });
    metrics.redisErrors.inc();
    const text = await metrics.registry.metrics();
    for (const series of [
      'mcp_tool_calls_total{tool="finance_payables_settle",status="confirmation_required"} 1',
      'mcp_tool_call_duration_seconds_bucket{le="0.05",tool="finance_payables_settle",status="ok"} 1',
      'rate_limit_rejections_total{kind="budget_write",channel="mcp"} 1',
      'token_verification_failures_total{reason="expired"} 1',
      'account_jwks_fetches_total{result="ok"} 1',
      'mcp_confirmations_total{outcome="accepted"} 1',
      'redis_errors_total 1',
    ]) expect(text).to.include(series);
    expect(text).not.to.include('process_cpu_user_seconds_total');
  });
});
