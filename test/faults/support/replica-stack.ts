/**
 * The pieces of the multi-process fault suite (test/faults/replicas.test.ts): a private
 * PostgreSQL database, a private `redis-server` the test can pause, kill and restart, and app
 * instances run exactly as an orchestrator runs them — `npm start` in their own process group —
 * whose output is kept for the failure message.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from '../../helpers/ports.js';

/** A free loopback port (released again: a small race with other processes, acceptable in tests). */
/** Polls `check` every 100 ms until it returns true; fails with `what` after `timeoutMs`. */
export async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

export interface PrivateDatabase {
  /** The database's URL (direct, not through a proxy). */
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database `kf_faults_<pid>_<random>` on the server of `baseUrl`; dropped WITH (FORCE). */
export async function createPrivateDatabase(baseUrl: string): Promise<PrivateDatabase> {
  const name = `kf_faults_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  url.search = '';
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(500, () => socket.destroy());
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString('latin1').startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  /** SIGSTOP / SIGCONT: Redis keeps its connections but answers nothing. */
  pause(): void;
  resume(): void;
  /** SIGKILL, then a new `redis-server` on the same port (empty: no persistence). */
  kill(): Promise<void>;
  restart(): Promise<void>;
  /** Keys now in Redis (the replicas' shared counters). */
  keyCount(): Promise<number>;
  stop(): Promise<void>;
}

/** Whether `redis-server` is on PATH. */
export async function hasRedisServer(): Promise<boolean> {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir !== '');
  for (const dir of dirs) {
    if (await fs.access(path.join(dir, 'redis-server'), fs.constants.X_OK).then(() => true, () => false)) return true;
  }
  return false;
}

/** A private `redis-server --save '' --appendonly no` on a free port, in a temporary folder. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kf-faults-redis-'));
  let child: ChildProcess | null = null;
  const launch = async (): Promise<void> => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
    await waitFor('private redis-server answers PING', 10_000, () => redisPing(port));
  };
  const kill = async (): Promise<void> => {
    const current = child;
    child = null;
    if (current === null || current.exitCode !== null || current.signalCode !== null) return;
    const exited = new Promise((resolve) => current.once('exit', resolve));
    current.kill('SIGCONT');
    current.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    kill,
    restart: launch,
    keyCount: () => new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.once('connect', () => socket.write('DBSIZE\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(Number(/^:(\d+)/.exec(data.toString('latin1'))?.[1] ?? Number.NaN));
      });
      socket.once('error', reject);
    }),
    async stop() {
      await kill();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly at: number;
}

export interface Instance {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** The `npm` process (the one an orchestrator signals). */
  readonly npm: ChildProcess;
  readonly exited: Promise<Exit>;
  /** Whether npm (and so the server it runs) is still running. */
  running(): boolean;
  /** The pids of npm's children (the node server: `npm start` execs it in place of the shell). */
  childPids(): Promise<number[]>;
  /** The last lines the process wrote (warnings and errors at LOG_LEVEL=warn). */
  output(): string;
  /** SIGKILL to the whole process group (clean-up). */
  destroy(): void;
}

/** `npm start` in its own process group with `env` on a free PORT; resolves once it listens (`/healthz` 200). */
export async function npmStart(name: string, env: NodeJS.ProcessEnv): Promise<Instance> {
  const port = await freePort();
  const npm = spawn('npm', ['start'], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-8_000);
  };
  npm.stdout?.on('data', keep);
  npm.stderr?.on('data', keep);
  const exited = new Promise<Exit>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  const url = `http://127.0.0.1:${port}`;
  const instance: Instance = {
    name,
    port,
    url,
    npm,
    exited,
    running: () => npm.exitCode === null && npm.signalCode === null,
    async childPids() {
      const children = await fs.readFile(`/proc/${npm.pid}/task/${npm.pid}/children`, 'utf8').catch(() => '');
      return children.split(' ').filter((pid) => pid !== '').map(Number);
    },
    output: () => tail,
    destroy() {
      try {
        if (npm.pid) process.kill(-npm.pid, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    },
  };
  const listening = waitFor(`${name} listens`, 30_000, async () => {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
    return response.status === 200;
  });
  const exitedFirst = exited.then((exit) => {
    throw new Error(`${name} exited (${exit.code ?? exit.signal}) before listening:\n${tail}`);
  });
  await Promise.race([listening, exitedFirst]).catch((err: unknown) => {
    instance.destroy();
    throw err;
  });
  exitedFirst.catch(() => undefined);
  return instance;
}

/** Whether a pid is alive (signal 0). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
