/**
 * The server under test for the harness: `node --import tsx src/main.ts` on the embedded
 * default (SQLite in a fresh temporary DATA_DIR, demo data) and a free loopback port, ready
 * once /healthz answers; plus a token minted with that data dir's embedded Account. Stopping
 * kills the process and removes the folder. What runs against it is run.ts's business.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/store/db.js';
import { loadAccountKey } from '../src/auth/account-key.js';
import { buildAudiences } from '../src/auth/audiences.js';
import { createMinter, type MintTokenOptions } from '../src/auth/mint.js';
import { systemClock } from '../src/runtime/clock.js';

export interface ServerUnderTest {
  /** `http://127.0.0.1:<port>` — also the server's PUBLIC_URL, so token audiences match. */
  readonly url: string;
  readonly dataDir: string;
  mintToken(options: MintTokenOptions): Promise<string>;
  /** The server's stderr so far, for diagnosing a failed start (never contains tokens). */
  output(): string;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;

export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode} before /healthz answered`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // Not listening yet: retry below.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`/healthz did not answer within ${READY_TIMEOUT_MS} ms`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts the server; the caller must `stop()` it (run.ts does so on every exit path). */
export async function startServerUnderTest(root: string): Promise<ServerUnderTest> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-conformance-'));
  const port = await findFreePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // The suite sends a few hundred requests in seconds from one token subject.
    PROTOCOL_RATE_LIMIT_PER_MINUTE: '100000',
  };
  // The embedded default is the thing under test: never inherit a replica configuration.
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'ACCOUNT_ISSUER', 'ACCOUNT_JWKS_URL', 'CONFIRMATION_KEY', 'ALLOWED_ORIGINS']) delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 64 * 1024) stderr += chunk.toString();
  });
  const stop = async () => {
    await stopChild(child);
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(url, child);
  } catch (err) {
    await stop();
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${stderr}`);
  }
  return {
    url,
    dataDir,
    // Same logic as `npm run token`, on the server's own data dir (already migrated and seeded).
    async mintToken(options) {
      const config = loadConfig({ DATA_DIR: dataDir, PUBLIC_URL: url });
      const store = await openDatabase(config);
      try {
        const key = await loadAccountKey(config.dataDir);
        return await createMinter(store.db, key, config.publicUrl, buildAudiences(config.publicUrl), config.tokenMaxLifetimeSeconds, systemClock).mintToken(options);
      } finally {
        await store.close();
      }
    },
    output: () => stderr,
    stop,
  };
}
