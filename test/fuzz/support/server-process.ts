/**
 * The fuzzer's side of its server process (test/helpers/fuzz-server.ts): forks it with
 * `node --import tsx`, waits for its URL and tokens, asks it to mark case windows and to sample
 * memory, and kills it (SIGKILL) when it stops answering — a case that hangs the event loop —
 * removing what it leaves behind (its PostgreSQL database, its data dir).
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { FuzzServerReady, FuzzServerReply, FuzzServerRequest, WindowStats } from '../../helpers/fuzz-server.js';
import type { MemorySample } from '../../helpers/property-soak.js';

const ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../helpers/fuzz-server.ts');
const START_TIMEOUT_MS = 120_000;

export type ServerMemory = MemorySample & { readonly maxRss: number };

/** A call to the server process that got no answer in time (its event loop is blocked, or it died). */
export class ServerUnresponsive extends Error {}

export interface FuzzServer {
  readonly ready: FuzzServerReady;
  /** Closes the current measurement window (its stats) and opens the next. */
  mark(timeoutMs: number): Promise<WindowStats>;
  sample(timeoutMs: number): Promise<ServerMemory>;
  close(): Promise<void>;
  /** SIGKILL, then removes the leftovers. */
  kill(): Promise<void>;
}

type Pending = { resolve: (reply: FuzzServerReply) => void; reject: (err: Error) => void; timer: NodeJS.Timeout };

export async function startFuzzServer(env: NodeJS.ProcessEnv = process.env): Promise<FuzzServer> {
  const child: ChildProcess = fork(ENTRY, [], {
    // As production runs (docs/operations.md): small semi-space, two malloc arenas. The heap cap
    // only keeps a runaway case (an endless loop that allocates) from taking the shared machine.
    execArgv: ['--import', 'tsx', '--expose-gc', '--max-semi-space-size=4', '--max-old-space-size=2048'],
    env: { ...env, MALLOC_ARENA_MAX: env['MALLOC_ARENA_MAX'] ?? '2' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let exited = false;
  const pending = new Map<number, Pending>();
  let nextId = 1;
  child.on('exit', () => {
    exited = true;
    for (const [id, waiter] of pending) {
      clearTimeout(waiter.timer);
      waiter.reject(new ServerUnresponsive('the server process exited'));
      pending.delete(id);
    }
  });
  const ready = await new Promise<FuzzServerReady>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the fuzz server did not start')), START_TIMEOUT_MS);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the fuzz server exited at start (code ${String(code)})`)); });
    child.on('message', (message: FuzzServerReady | FuzzServerReply) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message);
        return;
      }
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      clearTimeout(waiter.timer);
      if (message.type === 'error') waiter.reject(new Error(`fuzz server: ${message.message}`));
      else waiter.resolve(message);
    });
  });

  function request(type: FuzzServerRequest['type'], timeoutMs: number): Promise<FuzzServerReply> {
    if (exited) return Promise.reject(new ServerUnresponsive('the server process exited'));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new ServerUnresponsive(`no answer to ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      child.send({ type, id } satisfies FuzzServerRequest);
    });
  }

  async function removeLeftovers(): Promise<void> {
    await fs.rm(ready.leftovers.dataDir, { recursive: true, force: true });
    const base = env['DATABASE_URL'];
    if (ready.leftovers.postgresDatabase === null || !base) return;
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(ready.leftovers.postgresDatabase)} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }

  const exitedPromise = new Promise<void>((resolve) => {
    if (exited) resolve();
    else child.once('exit', () => resolve());
  });

  async function kill(): Promise<void> {
    if (!exited) child.kill('SIGKILL');
    await exitedPromise;
    await removeLeftovers();
  }

  return {
    ready,
    async mark(timeoutMs) {
      const reply = await request('mark', timeoutMs);
      if (reply.type !== 'mark') throw new Error(`unexpected reply ${reply.type}`);
      return reply.stats;
    },
    async sample(timeoutMs) {
      const reply = await request('sample', timeoutMs);
      if (reply.type !== 'sample') throw new Error(`unexpected reply ${reply.type}`);
      return reply.memory;
    },
    async close() {
      if (exited) return;
      try {
        await request('close', 60_000);
        await exitedPromise;
      } catch {
        await kill();
      }
    },
    kill,
  };
}
