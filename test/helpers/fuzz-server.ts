/**
 * The server process of the boundary fuzzer (test/fuzz/boundary.test.ts, scripts/soak-fuzz.ts):
 * the real app of test/helpers/test-app.ts (SQLite in a temporary data dir, or a fresh schema of
 * DATABASE_URL) in a child process of its own, started with `child_process.fork` and
 * `node --import tsx`, so what it measures is the server's work, not the test runner's. It mints
 * the fuzzer's tokens and answers the parent over IPC (docs/testing.md#boundary-fuzzer):
 *
 * - `mark`: closes the current measurement window and opens the next one (the parent marks
 *   before and after every case). The closed window reports the longest event-loop delay
 *   (`perf_hooks.monitorEventLoopDelay`, reset when the window opens), the CPU the process used
 *   (`process.cpuUsage` delta), RSS at the end and the peak RSS of the process so far
 *   (`process.resourceUsage().maxRSS`).
 * - `sample`: RSS, heap and `external` after forced full collections, once settled (needs
 *   `--expose-gc`; test/helpers/property-soak.ts).
 * - `close`: shuts the app down, drops its database and exits.
 *
 * Tokens go to the parent only over IPC; they are never printed.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestApp, type TestApp } from './test-app.js';
import { dropRunDatabase } from './database.js';
import { sampleMemory, type MemorySample } from './property-soak.js';
import { DEMO } from '../../src/seed/ids.js';

/**
 * Resolution of the event-loop delay histogram. `reset()` also forgets the time of the previous
 * tick, so the first interval after a reset is never recorded: a window opens only once the
 * histogram has recorded a tick after its reset (1 ms keeps that wait short).
 */
const LOOP_DELAY_RESOLUTION_MS = 1;

/** What one measurement window (one case) cost the server. */
export interface WindowStats {
  /** Longest event-loop delay seen in the window, ms (includes the 1 ms resolution). */
  readonly loopDelayMaxMs: number;
  /** User + system CPU of the process over the window, ms. */
  readonly cpuMs: number;
  /** Wall time of the window inside the server, ms. */
  readonly wallMs: number;
  /** RSS at the end of the window, bytes. */
  readonly rss: number;
  /** Peak RSS of the process since it started, bytes. */
  readonly maxRss: number;
}

export interface FuzzServerReady {
  readonly type: 'ready';
  readonly url: string;
  readonly database: 'sqlite' | 'postgres';
  /** A personal token of ana for /v1 with every scope, security and approval decisions included. */
  readonly restToken: string;
  /** A personal token of ana for /mcp with every finance scope. */
  readonly mcpToken: string;
  readonly workspaceId: string;
  /** What the parent removes when it had to kill this process: the PostgreSQL database of its run, its data dir. */
  readonly leftovers: { readonly postgresDatabase: string | null; readonly dataDir: string };
}

export type FuzzServerRequest =
  | { readonly type: 'mark'; readonly id: number }
  | { readonly type: 'sample'; readonly id: number }
  | { readonly type: 'close'; readonly id: number };

export type FuzzServerReply =
  | { readonly type: 'mark'; readonly id: number; readonly stats: WindowStats }
  | { readonly type: 'sample'; readonly id: number; readonly memory: MemorySample & { readonly maxRss: number } }
  | { readonly type: 'close'; readonly id: number }
  | { readonly type: 'error'; readonly id: number; readonly message: string };

const delays = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
delays.enable();
let windowCpu = process.cpuUsage();
let windowStart = performance.now();

function maxRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/** Resets the histogram and waits until it has recorded a tick again (see LOOP_DELAY_RESOLUTION_MS). */
async function openWindow(): Promise<void> {
  delays.reset();
  while (delays.count === 0) await sleep(LOOP_DELAY_RESOLUTION_MS);
  windowCpu = process.cpuUsage();
  windowStart = performance.now();
}

function closeWindow(): WindowStats {
  const cpu = process.cpuUsage(windowCpu);
  return {
    loopDelayMaxMs: delays.max / 1e6,
    cpuMs: (cpu.user + cpu.system) / 1000,
    wallMs: performance.now() - windowStart,
    rss: process.memoryUsage.rss(),
    maxRss: maxRss(),
  };
}

function send(message: FuzzServerReady | FuzzServerReply): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  if (!process.send) throw new Error('test/helpers/fuzz-server.ts runs as a forked child (test/fuzz/support/server-process.ts)');
  const app: TestApp = await startTestApp();
  const ready: FuzzServerReady = {
    type: 'ready',
    url: app.url,
    database: app.services.dialect,
    restToken: await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write finance.security.write finance.approvals.write', aud: 'api' }),
    mcpToken: await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' }),
    workspaceId: DEMO.workspaces.matriz,
    leftovers: {
      postgresDatabase: app.services.config.databaseUrl ? new URL(app.services.config.databaseUrl).pathname.slice(1) : null,
      dataDir: app.services.config.dataDir,
    },
  };
  process.on('message', (raw: FuzzServerRequest) => {
    void (async () => {
      try {
        if (raw.type === 'mark') {
          const stats = closeWindow();
          await openWindow();
          send({ type: 'mark', id: raw.id, stats });
        } else if (raw.type === 'sample') {
          const memory = await sampleMemory();
          send({ type: 'sample', id: raw.id, memory: { ...memory, maxRss: maxRss() } });
        } else {
          await app.close();
          await dropRunDatabase();
          send({ type: 'close', id: raw.id });
          process.disconnect();
        }
      } catch (err) {
        send({ type: 'error', id: raw.id, message: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
  process.on('disconnect', () => {
    // The parent went away (killed, or done): leave no server behind.
    void app.close().then(() => dropRunDatabase()).finally(() => process.exit(0));
  });
  await openWindow();
  send(ready);
}

main().catch((err: unknown) => {
  process.stderr.write(`fuzz-server: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
