/**
 * The fault suite with real processes: two replicas started with `npm start` on a private
 * PostgreSQL database and a private `redis-server`, under a load of reads and idempotent writes
 * (test/faults/support/load.ts), while the test injects, in turn:
 *
 * 1. every PostgreSQL backend of the app terminated (`pg_terminate_backend`);
 * 2. a database outage of a few seconds (each replica reaches PostgreSQL through its own TCP
 *    proxy, test/helpers/tcp-proxy.ts, and every proxy stops); a third replica, started with its
 *    proxy down and waiting since, must become ready once the database is back;
 * 3. Redis frozen (SIGSTOP) for a few seconds, then SIGCONT;
 * 4. Redis killed (SIGKILL) and restarted;
 * 5. SIGTERM to the third replica's `npm start` with a request in flight.
 *
 * Asserted: no replica exits (the load would see a connection error); during a database outage
 * requests answer 503 + Retry-After; service is back within 5 s after it; Redis faults cost no
 * request and the median read during a frozen Redis stays within 2× the median just before;
 * SIGTERM lets the in-flight request finish and the process tree exits 0 within the grace
 * period; and at the end every acknowledged write is exactly one row (retries with the same
 * Idempotency-Key after a 503 never duplicated one). PostgreSQL only (docs/testing.md, "Fault
 * suite").
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { skipWithReason } from '../helpers/mocha.js';
import pg from 'pg';
import { DEMO } from '../helpers/index.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { APPLICATION_NAME } from '../../src/store/db.js';
import { WRITE_PREFIX, medianReadMs, startLoad, type Load } from './support/load.js';
import {
  createPrivateDatabase, hasRedisServer, isAlive, npmStart, startPrivateRedis, waitFor,
  type Instance, type PrivateDatabase, type PrivateRedis,
} from './support/replica-stack.js';

const run = promisify(execFile);
const M = DEMO.workspaces.matriz;
/** Service must be back this soon after a database fault ends (the issue's bound). */
const RECOVERY_MS = 5_000;
/** SIGTERM → exit bound: the drain (SHUTDOWN_GRACE_MS) plus closing Redis and the pool (docs/operations.md). */
const SHUTDOWN_GRACE_MS = 3_000;
const CLOSE_MARGIN_MS = 2_000;
/** The median read while Redis is frozen may be at most this many times the median before. */
const PAUSED_REDIS_P50_RATIO = 2;
const PUBLIC_URL = 'http://kf-faults.test';
/** Kysely's COMMIT on the wire: a simple-protocol Query message, 'Q', int32 length 11, "commit\0". */
const COMMIT_MESSAGE = Buffer.from('Q\0\0\0\x0bcommit\0', 'latin1');

function connectOutcome(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // Checked field by field.
  readonly body: any;
}

describe('fault suite: two npm start replicas on PostgreSQL + Redis under load', function () {
  this.timeout(120_000);
  let skipReason: string | null = null;
  let database: PrivateDatabase | undefined;
  let redis: PrivateRedis | undefined;
  let dataDir: string | undefined;
  const proxies: TcpProxy[] = [];
  const instances: Instance[] = [];
  let direct: pg.Client | undefined;
  let a: Instance;
  let b: Instance;
  let c: Instance | undefined;
  /** C's way to the database: a proxy that does not listen until the outage of (2) ends. */
  let toC: { proxy: TcpProxy; url: string };
  let toA: { proxy: TcpProxy; url: string };
  let token: string;
  let accountId: string;
  let load: Load | undefined;
  let baseEnv: NodeJS.ProcessEnv;

  /** A proxy to the private database for one replica, and the DATABASE_URL through it. */
  async function proxiedDatabase(listening: boolean): Promise<{ proxy: TcpProxy; url: string }> {
    const target = new URL((database as PrivateDatabase).url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) }, { listening });
    proxies.push(proxy);
    target.hostname = '127.0.0.1';
    target.port = String(proxy.port);
    return { proxy, url: target.toString() };
  }

  async function startReplica(name: string, databaseUrl: string, env: NodeJS.ProcessEnv = {}): Promise<Instance> {
    const instance = await npmStart(name, { ...baseEnv, DATABASE_URL: databaseUrl, ...env });
    instances.push(instance);
    return instance;
  }

  async function send(instance: Instance, method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const response = await fetch(`${instance.url}${route}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-workspace-id': M, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
  }

  function expectOutage(answer: Answer, what: string): void {
    expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).to.equal(503);
    expect(answer.headers.get('retry-after'), what).to.equal('2');
    expect(answer.body?.error?.code, what).to.equal('SERVICE_UNAVAILABLE');
  }

  /** Polls a read on `instance` until 200; every answer on the way is 503; fails past `since` + RECOVERY_MS. */
  async function expectServiceBack(instance: Instance, since: number): Promise<void> {
    for (;;) {
      const answer = await send(instance, 'GET', `/v1/accounts/${accountId}`);
      if (answer.status === 200) return;
      expect(answer.status, `${instance.name}: ${JSON.stringify(answer.body)}`).to.equal(503);
      if (Date.now() - since > RECOVERY_MS) expect.fail(`${instance.name}: service not back within ${RECOVERY_MS} ms`);
      await sleep(100);
    }
  }

  async function expectReady(instance: Instance, timeoutMs: number): Promise<void> {
    await waitFor(`${instance.name} /readyz 200`, timeoutMs, async () => (await fetch(`${instance.url}/readyz`)).status === 200);
  }

  function statusesBetween(from: number, to: number): Map<number, number> {
    const counts = new Map<number, number>();
    for (const sample of load?.samples ?? []) {
      if (sample.start >= from && sample.start < to) counts.set(sample.status, (counts.get(sample.status) ?? 0) + 1);
    }
    return counts;
  }

  before(async function () {
    if (!process.env.DATABASE_URL) skipReason = 'DATABASE_URL is unset; the replicas share a PostgreSQL database';
    else if (!(await hasRedisServer())) skipReason = 'redis-server is not on PATH; the suite starts a private Redis';
    if (skipReason !== null) return;
    database = await createPrivateDatabase(process.env.DATABASE_URL as string);
    redis = await startPrivateRedis();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kf-faults-'));
    baseEnv = {
      ...process.env,
      // The replicas of one service: one public URL (the token audience), one Redis, one database.
      PUBLIC_URL, REDIS_URL: redis.url, DATA_DIR: dataDir, LOG_LEVEL: 'warn',
      SEED_DEMO_DATA: 'false', SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS),
      DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_STATEMENT_TIMEOUT_MS: '3000', DATABASE_IDLE_TIMEOUT_MS: '60000',
      // The load is one person: the limits must not be what answers.
      PROTOCOL_RATE_LIMIT_PER_MINUTE: '1000000', API_READ_BUDGET: '10000000', API_WRITE_BUDGET: '10000000',
      CONFIRMATION_KEY: '', ACCOUNT_ISSUER: '', ACCOUNT_JWKS_URL: '', REDIS_KEY_PREFIX: '', METRICS_TOKEN: '',
    };
    toA = await proxiedDatabase(true);
    const toB = await proxiedDatabase(true);
    toC = await proxiedDatabase(false);
    // A and B start at once on the empty database: migrations, the signing key and the seed race
    // for real. C starts too, but its way to the database is down until the outage of (2) ends.
    [a, b, c] = await Promise.all([
      startReplica('A', toA.url, { SEED_DEMO_DATA: 'true' }),
      startReplica('B', toB.url),
      startReplica('C', toC.url, { DATABASE_STARTUP_TIMEOUT_MS: '300000' }),
    ]);
    await Promise.all([expectReady(a, 60_000), expectReady(b, 60_000)]);
    // A third process mints the token from the database's key; both replicas must accept it.
    const minted = await run('npm', ['run', '--silent', 'token', '--', '--person', DEMO.emails.ana, '--scope', 'finance.all.write', '--aud', 'api'], {
      env: { ...baseEnv, DATABASE_URL: database.url },
    });
    token = minted.stdout.trim();
    const account = await send(a, 'POST', '/v1/accounts', { name: 'Fault suite', type: 'checking' });
    expect(account.status, JSON.stringify(account.body)).to.equal(201);
    accountId = account.body.id as string;
    expect((await send(b, 'GET', `/v1/accounts/${accountId}`)).status).to.equal(200);
    direct = new pg.Client({ connectionString: database.url });
    await direct.connect();
    load = startLoad({ targets: [a, b], token, workspaceId: M, accountId, workers: 4, retryDelayMs: 100 });
    await sleep(1_000);
  });

  beforeEach(function () {
    if (skipReason !== null) skipWithReason(this, skipReason);
  });

  afterEach(function () {
    if (this.currentTest?.state !== 'failed') return;
    for (const instance of instances) {
      process.stderr.write(`--- ${instance.name} (${instance.running() ? 'running' : 'exited'}), last output:\n${instance.output()}\n`);
    }
  });

  after(async () => {
    await load?.stop(0).catch(() => undefined);
    for (const instance of instances) instance.destroy();
    await Promise.all(instances.map((instance) => instance.exited));
    await direct?.end().catch(() => undefined);
    for (const proxy of proxies) await proxy.close();
    await redis?.stop();
    await database?.drop();
    if (dataDir !== undefined) await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('(1) every PostgreSQL backend of the app terminated: both replicas stay up, service is back within 5 s', async () => {
    const terminated = await (direct as pg.Client).query(
      'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = $1',
      [APPLICATION_NAME],
    );
    const since = Date.now();
    expect(terminated.rowCount).to.be.greaterThan(0);
    await Promise.all([expectServiceBack(a, since), expectServiceBack(b, since)]);
    expect(a.running() && b.running()).to.equal(true);
  });

  it('(1b) a write whose COMMIT reached the database but whose answer was lost: the retry on the other replica replays it', async () => {
    const proxy = toA.proxy;
    const replayedBefore = (load as Load).replayed.size;
    let cut = false;
    proxy.onClientData = (chunk) => {
      if (cut || !chunk.includes(COMMIT_MESSAGE)) return;
      // The COMMIT goes on to the server; its answer, and every other answer to A, never comes back.
      cut = true;
      proxy.onClientData = null;
      proxy.freezeResponses();
      setTimeout(() => {
        proxy.dropConnections();
        proxy.thaw();
      }, 200);
    };
    await waitFor('a write of the load commits through A', 10_000, async () => cut);
    const since = Date.now();
    await expectServiceBack(a, since);
    await waitFor('the retry of the cut write is replayed', 5_000, async () => (load as Load).replayed.size > replayedBefore);
  });

  it('(2) a database outage: 503 + Retry-After during it, service back within 5 s after; a replica started without the database becomes ready once it is up', async () => {
    const down = Date.now();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
    expectOutage(await send(a, 'GET', `/v1/accounts/${accountId}`), 'A read');
    expectOutage(await send(b, 'POST', '/v1/transactions', {
      financial_account_id: accountId, type: 'credit', amount: '1.00', occurred_at: '2026-03-10', description: `${WRITE_PREFIX}outage`,
    }, { 'idempotency-key': `${WRITE_PREFIX}outage` }), 'B write');
    expect((await fetch(`${a.url}/readyz`)).status).to.equal(503);
    // C, started without a database, is still waiting for it: alive, not ready, requests 503.
    const replica = c as Instance;
    expect((await fetch(`${replica.url}/healthz`)).status).to.equal(200);
    expect((await fetch(`${replica.url}/readyz`)).status).to.equal(503);
    expectOutage(await send(replica, 'GET', `/v1/accounts/${accountId}`), 'C read while starting');
    await sleep(Math.max(0, 2_000 - (Date.now() - down)));

    const up = Date.now();
    await Promise.all(proxies.map((proxy) => proxy.start()));
    await Promise.all([expectServiceBack(a, up), expectServiceBack(b, up)]);
    expect(statusesBetween(down, up).get(503) ?? 0, 'the load met the outage').to.be.greaterThan(0);
    // C retries with backoff (at most 5 s apart): ready soon after, without a restart.
    await expectReady(replica, 20_000);
    expect((await send(replica, 'GET', `/v1/accounts/${accountId}`)).status).to.equal(200);
    // The write refused during the outage, retried with its key: created once.
    const retried = await send(a, 'POST', '/v1/transactions', {
      financial_account_id: accountId, type: 'credit', amount: '1.00', occurred_at: '2026-03-10', description: `${WRITE_PREFIX}outage`,
    }, { 'idempotency-key': `${WRITE_PREFIX}outage` });
    expect(retried.status, JSON.stringify(retried.body)).to.equal(201);
    const rows = await (direct as pg.Client).query('select id from transactions where description = $1', [`${WRITE_PREFIX}outage`]);
    expect(rows.rows.map((row: { id: string }) => row.id)).to.deep.equal([retried.body.id]);
  });

  it(`(3) Redis frozen (SIGSTOP) for 3 s: no request fails, and the median read stays within ${PAUSED_REDIS_P50_RATIO}× the median before`, async () => {
    const store = redis as PrivateRedis;
    const before = Date.now();
    await sleep(2_000);
    const paused = Date.now();
    store.pause();
    await sleep(3_000);
    const resumed = Date.now();
    store.resume();
    const normal = medianReadMs(load?.samples ?? [], before, paused);
    const frozen = medianReadMs(load?.samples ?? [], paused, resumed);
    expect([...statusesBetween(paused, resumed).keys()].filter((status) => status !== 200 && status !== 201)).to.deep.equal([]);
    const reads = `median read ${frozen.median.toFixed(1)} ms while frozen (${frozen.count} reads) vs ${normal.median.toFixed(1)} ms before (${normal.count} reads)`;
    expect(frozen.median, reads).to.be.at.most(PAUSED_REDIS_P50_RATIO * normal.median);
    expect(Math.min(normal.count, frozen.count), reads).to.be.greaterThan(10);
    await Promise.all([expectReady(a, 5_000), expectReady(b, 5_000)]);
  });

  it('(4) Redis killed and restarted: no request fails, the replicas count in the new Redis again', async () => {
    const store = redis as PrivateRedis;
    const killed = Date.now();
    await store.kill();
    await sleep(1_500);
    await store.restart();
    await sleep(1_500);
    expect([...statusesBetween(killed, Date.now()).keys()].filter((status) => status !== 200 && status !== 201)).to.deep.equal([]);
    await Promise.all([expectReady(a, 5_000), expectReady(b, 5_000)]);
    await waitFor('rate-limit counters in the restarted Redis', 5_000, async () => (await store.keyCount()) > 0);
  });

  it('(5) SIGTERM to npm start with a request in flight: it completes, the process tree exits 0 within the grace period', async () => {
    const replica = c as Instance;
    const servers = await replica.childPids();
    expect(servers).to.have.length(1);
    // A pooled connection to hold the request on, then the database stops answering that replica.
    expect((await send(replica, 'GET', `/v1/accounts/${accountId}`)).status).to.equal(200);
    toC.proxy.freeze();
    let settled = false;
    const inFlight = send(replica, 'GET', `/v1/accounts/${accountId}`).finally(() => {
      settled = true;
    });
    await sleep(300);
    expect(settled, 'the request is still in flight').to.equal(false);
    const signalled = Date.now();
    replica.npm.kill('SIGTERM');
    await sleep(300);
    expect(await connectOutcome(replica.port), 'no new connections while draining').to.equal('ECONNREFUSED');
    toC.proxy.thaw();
    expect((await inFlight).status).to.equal(200);
    const exit = await Promise.race([replica.exited, sleep(SHUTDOWN_GRACE_MS + CLOSE_MARGIN_MS + 5_000).then(() => null)]);
    expect(exit, 'npm start exited').to.not.equal(null);
    expect(exit).to.include({ code: 0, signal: null });
    expect((exit as { at: number }).at - signalled).to.be.below(SHUTDOWN_GRACE_MS + CLOSE_MARGIN_MS);
    expect(servers.filter(isAlive), 'the server process is gone').to.deep.equal([]);
  });

  it('after the load: both replicas still run, every acknowledged write is exactly one row, no key has two', async () => {
    const traffic = load as Load;
    await traffic.stop(15_000);
    expect(traffic.violations).to.deep.equal([]);
    expect({ A: a.running(), B: b.running() }).to.deep.equal({ A: true, B: true });
    const rows = await (direct as pg.Client).query<{ id: string; description: string }>(
      'select id, description from transactions where workspace_id = $1 and description like $2',
      [M, `${WRITE_PREFIX}%`],
    );
    const byKey = new Map<string, string[]>();
    for (const row of rows.rows) byKey.set(row.description, [...(byKey.get(row.description) ?? []), row.id]);
    byKey.delete(`${WRITE_PREFIX}outage`);
    const duplicated = [...byKey].filter(([, ids]) => ids.length > 1).map(([key]) => key);
    const lost = [...traffic.acknowledged].filter(([key, id]) => byKey.get(key)?.[0] !== id).map(([key]) => key);
    const unacknowledged = [...byKey.keys()].filter((key) => !traffic.acknowledged.has(key));
    expect({ duplicated, lost, unacknowledged }).to.deep.equal({ duplicated: [], lost: [], unacknowledged: [] });
    expect(traffic.acknowledged.size).to.be.greaterThan(20);
    expect(traffic.retriedAfter503.size, 'writes retried after a 503').to.be.greaterThan(0);
    expect(traffic.replayed.size, 'retries answered with the stored answer').to.be.greaterThan(0);
  });
});
