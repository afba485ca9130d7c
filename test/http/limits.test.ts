import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { ApiError } from '../../src/api/errors.js';
import { HttpError } from '../../src/http/errors.js';
import { createMetrics, type Metrics } from '../../src/http/metrics.js';
import { admits, computeRetryMs, createLimits, locateWindow, type Limits } from '../../src/http/limits.js';

const REDIS_URL = 'redis://127.0.0.1:6379';

function buildConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({ DATA_DIR: ':memory:' }), ...overrides };
}

function captureLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function expectRejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

async function counterValue(metrics: Metrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const values = metric?.values ?? [];
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => String((v.labels as Record<string, unknown>)[k]) === want))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('sliding window (approximate, two sub-windows)', () => {
  it('weighs the previous window by the part of it still inside the sliding window', () => {
    const position = locateWindow(90_000, 60_000);
    expect(position.index).to.equal(1);
    expect(position.elapsedMs).to.equal(30_000);
    expect(position.prevWeight).to.equal(0.5);
  });

  const table: Array<{ given: { prev: number; cur: number; weight: number; limit: number }; want: boolean }> = [
    { given: { prev: 0, cur: 9, weight: 1, limit: 10 }, want: true },
    { given: { prev: 0, cur: 10, weight: 1, limit: 10 }, want: false },
    { given: { prev: 10, cur: 0, weight: 0.5, limit: 10 }, want: true },
    { given: { prev: 10, cur: 4, weight: 0.5, limit: 10 }, want: true },
    { given: { prev: 10, cur: 5, weight: 0.5, limit: 10 }, want: false },
    { given: { prev: 10, cur: 0, weight: 1, limit: 10 }, want: false },
  ];
  for (const { given, want } of table) {
    it(`admits(prev=${given.prev}, cur=${given.cur}, weight=${given.weight}, limit=${given.limit}) is ${want}`, () => {
      expect(admits({ prev: given.prev, cur: given.cur }, given.weight, given.limit)).to.equal(want);
    });
  }

  it('computes the wait until the next call is admitted', () => {
    // 10 calls in the previous window, 5 now, half-way: 10×0.5+5 = 10. Need 10×(1−e/W)+5+1 ≤ 10 → e ≥ 0.6 W.
    expect(computeRetryMs({ prev: 10, cur: 5 }, locateWindow(90_000, 60_000), 60_000, 10)).to.equal(6_000);
    // Current window full: wait for the next one and for cur to decay: 10×(1−e/W)+1 ≤ 10 → e ≥ 0.1 W.
    expect(computeRetryMs({ prev: 0, cur: 10 }, locateWindow(90_000, 60_000), 60_000, 10)).to.equal(30_000 + 6_000);
  });
});

describe('createLimits() in memory', () => {
  let clock = 0;
  let limits: Limits;
  let metrics: Metrics;
  const person = randomUUID();
  const orgA = randomUUID();
  const orgB = randomUUID();

  beforeEach(async () => {
    clock = 1_000_000 * 60_000; // the start of a sub-window
    metrics = createMetrics({ defaultMetrics: false });
    limits = await createLimits(buildConfig({ apiReadBudget: 10, apiWriteBudget: 2, apiBudgetWindowSeconds: 60 }), pino({ level: 'silent' }), metrics, {
      now: () => clock,
    });
  });
  afterEach(() => limits.close());

  it('returns the remaining budget and throws RATE_LIMITED with retry_after_seconds once spent', async () => {
    const first = await limits.budget.consume(person, orgA, 'write');
    expect(first).to.deep.equal({ limit: 2, remaining: 1, resetSeconds: 60 });
    await limits.budget.consume(person, orgA, 'write');
    const err = await expectRejection(limits.budget.consume(person, orgA, 'write'));
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).code).to.equal('RATE_LIMITED');
    expect((err as ApiError).details).to.deep.equal({ retry_after_seconds: 90, limit: 2 });
    expect(await counterValue(metrics, 'rate_limit_rejections_total', { kind: 'budget_write' })).to.equal(1);
  });

  it('keeps read and write budgets separate', async () => {
    await limits.budget.consume(person, orgA, 'write');
    await limits.budget.consume(person, orgA, 'write');
    const read = await limits.budget.consume(person, orgA, 'read');
    expect(read.remaining).to.equal(9);
  });

  it('does not share a budget between organizations', async () => {
    await limits.budget.consume(person, orgA, 'write');
    await limits.budget.consume(person, orgA, 'write');
    await expectRejection(limits.budget.consume(person, orgA, 'write'));
    const other = await limits.budget.consume(person, orgB, 'write');
    expect(other.remaining).to.equal(1);
  });

  it('slides: calls of the previous window count in proportion to their overlap', async () => {
    for (let i = 0; i < 10; i += 1) await limits.budget.consume(person, orgA, 'read');
    await expectRejection(limits.budget.consume(person, orgA, 'read'));
    clock += 60_000; // next sub-window starts: all 10 still weigh fully
    await expectRejection(limits.budget.consume(person, orgA, 'read'));
    clock += 30_000; // half-way: 10×0.5 = 5 used, 5 admitted
    for (let i = 0; i < 5; i += 1) await limits.budget.consume(person, orgA, 'read');
    const err = (await expectRejection(limits.budget.consume(person, orgA, 'read'))) as ApiError;
    expect(err.details?.retry_after_seconds).to.equal(6);
    clock += 6_000; // 10×0.4 + 5 = 9 → one more call fits
    expect((await limits.budget.consume(person, orgA, 'read')).remaining).to.equal(0);
    await expectRejection(limits.budget.consume(person, orgA, 'read'));
  });

  it('does not allow a double burst at a window boundary (unlike a fixed window)', async () => {
    clock += 59_000;
    for (let i = 0; i < 10; i += 1) await limits.budget.consume(person, orgA, 'read');
    clock += 2_000; // 1 s into the next window
    await expectRejection(limits.budget.consume(person, orgA, 'read'));
  });

  it('does not count rejected calls', async () => {
    for (let i = 0; i < 10; i += 1) await limits.budget.consume(person, orgA, 'read');
    for (let i = 0; i < 5; i += 1) await expectRejection(limits.budget.consume(person, orgA, 'read'));
    clock += 120_000;
    expect((await limits.budget.consume(person, orgA, 'read')).remaining).to.equal(9);
  });
});

describe('Limits: protocol and failed-authentication limits', () => {
  it('rejects the subject over the protocol limit with HttpError 429 and Retry-After', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const limits = await createLimits(buildConfig({ protocolRateLimitPerMinute: 3 }), pino({ level: 'silent' }), metrics);
    try {
      for (let i = 0; i < 3; i += 1) await limits.consumeProtocol('sub-a');
      const err = (await expectRejection(limits.consumeProtocol('sub-a'))) as HttpError;
      expect(err).to.be.instanceOf(HttpError);
      expect(err.status).to.equal(429);
      expect(Number(err.headers['Retry-After'])).to.be.within(1, 60);
      await limits.consumeProtocol('sub-b');
      expect(await counterValue(metrics, 'rate_limit_rejections_total', { kind: 'protocol' })).to.equal(1);
    } finally {
      await limits.close();
    }
  });

  it('rejects an address after too many failed authentications, and no other address', async () => {
    const limits = await createLimits(buildConfig({ authFailureLimitPerMinute: 2 }), pino({ level: 'silent' }), createMetrics({ defaultMetrics: false }));
    try {
      await limits.assertAuthAllowed('10.0.0.1');
      await limits.recordAuthFailure('10.0.0.1');
      await limits.assertAuthAllowed('10.0.0.1');
      await limits.recordAuthFailure('10.0.0.1');
      const err = (await expectRejection(limits.assertAuthAllowed('10.0.0.1'))) as HttpError;
      expect(err.status).to.equal(429);
      expect(err.headers['Retry-After']).to.match(/^\d+$/);
      await limits.recordAuthFailure('10.0.0.1'); // over the limit: counting more does not throw
      await limits.assertAuthAllowed('10.0.0.2');
    } finally {
      await limits.close();
    }
  });
});

describe('Limits on Redis', () => {
  it('shares the budget and the protocol limit between two instances (two replicas)', async () => {
    const keyPrefix = `kf-test-${randomUUID()}:`;
    const config = buildConfig({ redisUrl: REDIS_URL, apiWriteBudget: 3, protocolRateLimitPerMinute: 2 });
    const logger = pino({ level: 'silent' });
    const one = await createLimits(config, logger, createMetrics({ defaultMetrics: false }), { keyPrefix });
    const two = await createLimits(config, logger, createMetrics({ defaultMetrics: false }), { keyPrefix });
    try {
      expect(await one.checkRedis?.()).to.equal('up');
      const person = randomUUID();
      const org = randomUUID();
      expect((await one.budget.consume(person, org, 'write')).remaining).to.equal(2);
      expect((await two.budget.consume(person, org, 'write')).remaining).to.equal(1);
      await one.budget.consume(person, org, 'write');
      const err = (await expectRejection(two.budget.consume(person, org, 'write'))) as ApiError;
      expect(err.code).to.equal('RATE_LIMITED');
      expect(err.details?.limit).to.equal(3);
      expect((await two.budget.consume(person, randomUUID(), 'write')).remaining).to.equal(2);

      await one.consumeProtocol('sub');
      await two.consumeProtocol('sub');
      expect(((await expectRejection(one.consumeProtocol('sub'))) as HttpError).status).to.equal(429);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('fails open when Redis is unreachable: serves, counts redis_errors_total, logs one error line', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const { logger, lines } = captureLogger();
    const limits = await createLimits(buildConfig({ redisUrl: 'redis://127.0.0.1:1', apiReadBudget: 2 }), logger, metrics);
    try {
      const person = randomUUID();
      const org = randomUUID();
      const started = Date.now();
      expect((await limits.budget.consume(person, org, 'read')).remaining).to.equal(1);
      await limits.consumeProtocol('sub');
      await limits.assertAuthAllowed('10.0.0.1');
      await limits.recordAuthFailure('10.0.0.1');
      expect(Date.now() - started).to.be.below(1_000);
      // The first failed command opens the circuit: the other three checks do not try Redis.
      expect(await counterValue(metrics, 'redis_errors_total')).to.be.at.least(1);
      expect(await counterValue(metrics, 'redis_fallbacks_total', { reason: 'error' })).to.equal(1);
      expect(await counterValue(metrics, 'redis_fallbacks_total', { reason: 'circuit_open' })).to.equal(3);
      const errors = lines.filter((l) => l.level === 50 && String(l.msg).includes('fail open'));
      // One at start-up, one for the first failed command; later failures within the interval are not logged.
      expect(errors.length).to.equal(2);
      expect(await limits.checkRedis?.()).to.equal('down');
      // Degraded, not unlimited: this process still enforces the budget on its own.
      await limits.budget.consume(person, org, 'read');
      expect(((await expectRejection(limits.budget.consume(person, org, 'read'))) as ApiError).code).to.equal('RATE_LIMITED');
    } finally {
      await limits.close();
    }
  });

  it('goes back to the shared counters once Redis is reachable again', async () => {
    // A free port with nothing listening, later served by a TCP proxy to the real Redis.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const metrics = createMetrics({ defaultMetrics: false });
    const limits = await createLimits(buildConfig({ redisUrl: `redis://127.0.0.1:${port}` }), pino({ level: 'silent' }), metrics, {
      keyPrefix: `kf-test-${randomUUID()}:`,
    });
    const proxy = net.createServer((client) => {
      const upstream = net.connect({ host: '127.0.0.1', port: 6379 });
      client.pipe(upstream).pipe(client);
      const end = () => { client.destroy(); upstream.destroy(); };
      client.on('error', end);
      upstream.on('error', end);
      client.on('close', end);
    });
    try {
      expect(await limits.checkRedis?.()).to.equal('down');
      await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
      let state: string | undefined = 'down';
      for (let i = 0; i < 40 && state !== 'up'; i += 1) {
        await sleep(100);
        state = await limits.checkRedis?.();
      }
      expect(state).to.equal('up');
      const errorsBefore = await counterValue(metrics, 'redis_errors_total');
      await limits.budget.consume(randomUUID(), randomUUID(), 'read');
      expect(await counterValue(metrics, 'redis_errors_total')).to.equal(errorsBefore);
    } finally {
      await limits.close();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});
