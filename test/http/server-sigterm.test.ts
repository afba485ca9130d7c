import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { DEMO } from '../helpers/index.js';

const run = promisify(execFile);

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function connect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
}

async function waitForHealthy(url: string): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error('server did not start');
}

describe('src/main.ts on SIGTERM', function () {
  // Two child processes load the whole app through tsx (several seconds each on a cold cache).
  this.timeout(90_000);
  let dataDir: string;
  let child: ChildProcess | undefined;

  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-sigterm-'));
  });
  afterEach(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('finishes the in-flight request, refuses new connections, and exits 0', async () => {
    const port = await findFreePort();
    const url = `http://127.0.0.1:${port}`;
    const env = {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, DATA_DIR: dataDir,
      LOG_LEVEL: 'silent', SHUTDOWN_GRACE_MS: '5000', REDIS_URL: '', DATABASE_URL: '',
    };
    const tsx = ['--import', 'tsx'];
    const { stdout } = await run(process.execPath, [...tsx, 'src/auth/token-cli.ts', '--person', DEMO.emails.ana, '--scope', 'finance.all.write', '--aud', 'api'], { env });
    const token = stdout.trim();
    child = spawn(process.execPath, [...tsx, 'src/main.ts'], { env, stdio: 'ignore' });
    const started = child;
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
    await waitForHealthy(url);

    // A slow request: headers and part of the body now, the rest after SIGTERM.
    const body = JSON.stringify({ name: 'Created during shutdown', type: 'debit' });
    const req = http.request(`${url}/v1/categories`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`, 'X-Workspace-Id': DEMO.workspaces.matriz,
        'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body),
      },
    });
    const response = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
    req.write(body.slice(0, 10));
    await sleep(300);
    child.kill('SIGTERM');
    await sleep(300);
    const newConnection = await connect(port);
    req.end(body.slice(10));

    expect(newConnection).to.equal('ECONNREFUSED');
    expect(await response).to.equal(201);
    expect(await exited).to.equal(0);
  });
});
