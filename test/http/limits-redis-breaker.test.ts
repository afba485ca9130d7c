/**
 * The Redis circuit breaker of src/http/limits.ts against a real, frozen Redis: a private
 * `redis-server` is started on a free port and stopped with SIGSTOP (the TCP connection stays up,
 * every command hangs until the 500 ms command timeout) and resumed with SIGCONT. Counts, not
 * durations: `redis_fallbacks_total{reason="error"}` is the number of calls that waited for Redis
 * and failed, `{reason="circuit_open"}` those that did not try it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { createMetrics, type Metrics } from '../../src/http/metrics.js';
import { createLimits, type Limits } from '../../src/http/limits.js';
import { freePort } from '../helpers/ports.js';

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i += 1) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return child;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

async function fallbacks(metrics: Metrics, reason: 'error' | 'circuit_open'): Promise<number> {
  const metric = await metrics.redisFallbacks.get();
  return metric.values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

/** One request's worth of limit checks: the protocol limit, then the budget. */
async function oneRequest(limits: Limits, person: string, org: string): Promise<number> {
  await limits.consumeProtocol(person);
  return (await limits.budget.consume(person, org, 'write')).remaining;
}

describe('Limits on a frozen Redis (circuit breaker)', function () {
  this.timeout(30_000);
  let redis: ChildProcess;
  let config: Config;
  const keyPrefix = `kf-test-${randomUUID()}:`;

  before(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    config = { ...loadConfig({ DATA_DIR: ':memory:' }), redisUrl: `redis://127.0.0.1:${port}`, apiWriteBudget: 50, protocolRateLimitPerMinute: 1_000 };
  });
  after(() => {
    redis.kill('SIGCONT');
    redis.kill('SIGKILL');
  });

  it('waits for one timeout, then skips Redis while it is frozen, and uses the shared counters again once it is back', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const logger = pino({ level: 'silent' });
    // Retried every 100 ms in the background: several trial PINGs hang while the calls below run.
    const one = await createLimits(config, logger, metrics, { keyPrefix, redisRetryIntervalMs: 100 });
    const two = await createLimits(config, logger, createMetrics({ defaultMetrics: false }), { keyPrefix });
    const person = randomUUID();
    const org = randomUUID();
    try {
      expect(await oneRequest(one, person, org)).to.equal(49);
      expect(await fallbacks(metrics, 'error')).to.equal(0);

      redis.kill('SIGSTOP');
      const remainingWhileFrozen: number[] = [];
      for (let i = 0; i < 20; i += 1) remainingWhileFrozen.push(await oneRequest(one, person, org));
      // Every call was served (fail open, from this process's memory counters) ...
      expect(remainingWhileFrozen[0]).to.equal(49);
      expect(remainingWhileFrozen[19]).to.equal(30);
      // ... and only the first one waited for Redis: the other 39 limit checks skipped it.
      expect(await fallbacks(metrics, 'error')).to.equal(1);
      expect(await fallbacks(metrics, 'circuit_open')).to.equal(39);
      expect(await one.checkRedis?.()).to.equal('down');

      redis.kill('SIGCONT');
      let state = await one.checkRedis?.();
      for (let i = 0; i < 100 && state !== 'up'; i += 1) {
        await sleep(50);
        state = await one.checkRedis?.();
      }
      expect(state).to.equal('up');
      const skippedBefore = await fallbacks(metrics, 'circuit_open');
      // Shared again: the other replica's counters include this call (49 → 48 across instances).
      expect(await oneRequest(one, person, org)).to.equal(48);
      expect(await oneRequest(two, person, org)).to.equal(47);
      expect(await fallbacks(metrics, 'error')).to.equal(1);
      expect(await fallbacks(metrics, 'circuit_open')).to.equal(skippedBefore);
    } finally {
      redis.kill('SIGCONT');
      await one.close();
      await two.close();
    }
  });

  it('keeps a rate-limit refusal from Redis a refusal, not a fault that opens the circuit', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const limits = await createLimits({ ...config, protocolRateLimitPerMinute: 1 }, pino({ level: 'silent' }), metrics, { keyPrefix: `kf-test-${randomUUID()}:` });
    try {
      await limits.consumeProtocol('sub');
      for (let i = 0; i < 3; i += 1) {
        const refused = await limits.consumeProtocol('sub').then(() => null, (err: { status?: number }) => err.status);
        expect(refused).to.equal(429);
      }
      expect(await fallbacks(metrics, 'error')).to.equal(0);
      expect(await fallbacks(metrics, 'circuit_open')).to.equal(0);
      expect(await limits.checkRedis?.()).to.equal('up');
    } finally {
      await limits.close();
    }
  });
});
