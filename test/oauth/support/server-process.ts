/**
 * The server as `npm start` runs it — its own process, `node dist/src/main.js` (CI builds dist/
 * before the tests; without a build, `src/main.ts` through tsx, as `npm run dev`), the embedded
 * default (SQLite in a fresh data folder, demo data), on a free port — for tests that must talk
 * to a started server rather than an app built inside the test process.
 */
import { existsSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../helpers/ports.js';
import { waitUntilReady } from '../../helpers/connection-retry.js';

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` (also PUBLIC_URL, so issuer, audiences and resource match). */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startServerProcess(): Promise<ServerProcess> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-oauth-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  // The embedded default, whatever the test run's database: never the shared test database.
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'ACCOUNT_ISSUER', 'ACCOUNT_JWKS_URL', 'SEED_DEMO_DATA']) delete env[name];
  const built = path.join(PACKAGE_ROOT, 'dist/src/main.js');
  const args = existsSync(built) ? [built] : ['--import', 'tsx', 'src/main.ts'];
  const child: ChildProcess = spawn(process.execPath, args, { cwd: PACKAGE_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('kobana-finance is running')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${stderr.slice(0, 500)}`)));
    });
    // The banner comes once it listens; a loaded machine may still be slow to serve.
    await waitUntilReady(`${url}/readyz`);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop };
}
