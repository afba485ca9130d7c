/**
 * `npm start` on SIGTERM, for real: the signal must reach the server (no shell or tsx wrapper
 * left serving), in-flight requests finish, an upload that never finishes is cut at the end of
 * SHUTDOWN_GRACE_MS, and the whole process tree exits. The token comes from `npm run token`.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { DEMO } from '../helpers/index.js';

const run = promisify(execFile);
const GRACE_MS = 1_500;
/** Start-up of the drain, closing the database and process exit on a loaded 2-core machine. */
const EXIT_MARGIN_MS = 3_000;

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

interface Started {
  readonly npm: ChildProcess;
  readonly port: number;
  readonly url: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** `npm start` on PORT=0; the port is read from the "listening" log line (no free-port race with other tests). */
async function npmStart(env: NodeJS.ProcessEnv): Promise<Started> {
  // Its own process group, so that clean-up can kill whatever npm left behind.
  const npm = spawn('npm', ['start'], { env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  const lines = readline.createInterface({ input: npm.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === 'kobana-finance listening' && typeof entry.port === 'number') resolve(entry.port);
    });
    void exited.then(() => reject(new Error('npm start exited before listening')));
  });
  return { npm, port, url: `http://127.0.0.1:${port}`, exited };
}

/** Sends headers and the first `first` bytes of `body` now; `finish()` sends the rest. */
function partialRequest(url: string, headers: http.OutgoingHttpHeaders, body: Buffer | string, first: number) {
  const req = http.request(url, { method: 'POST', headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } });
  const outcome = new Promise<number | string>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
  const bytes = Buffer.from(body);
  req.write(bytes.subarray(0, first));
  return { outcome, finish: () => req.end(bytes.subarray(first)), abandon: () => req.destroy() };
}

describe('npm start on SIGTERM', function () {
  // Each case starts the whole app through npm and tsx (several seconds on a cold cache).
  this.timeout(90_000);
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let token: string;
  let started: Started | undefined;

  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-sigterm-'));
    // Token audiences follow PUBLIC_URL, not the port the server happens to get.
    env = {
      ...process.env, PORT: '0', HOST: '127.0.0.1', PUBLIC_URL: 'http://kobana-sigterm.test', DATA_DIR: dataDir,
      LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: String(GRACE_MS), REDIS_URL: '', DATABASE_URL: '',
    };
    const { stdout } = await run('npm', ['run', '--silent', 'token', '--', '--person', DEMO.emails.ana, '--scope', 'finance.all.write', '--aud', 'api'], { env });
    token = stdout.trim();
  });
  afterEach(() => {
    try {
      if (started?.npm.pid) process.kill(-started.npm.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
    started = undefined;
  });
  after(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('finishes the in-flight request, refuses new connections, and the process tree exits 0', async () => {
    started = await npmStart(env);
    const { url, port } = started;
    const body = JSON.stringify({ name: 'Created during shutdown', type: 'debit' });
    const slow = partialRequest(`${url}/v1/categories`, {
      Authorization: `Bearer ${token}`, 'X-Workspace-Id': DEMO.workspaces.matriz, 'Content-Type': 'application/json',
    }, body, 10);
    await sleep(300);
    const signalled = Date.now();
    started.npm.kill('SIGTERM');
    await sleep(300);
    const newConnection = await connect(port);
    slow.finish();

    expect(newConnection).to.equal('ECONNREFUSED');
    // 201: the server accepted the token that `npm run token` minted.
    expect(await slow.outcome).to.equal(201);
    const exit = await started.exited;
    // npm exits 0 only when the server it runs exited 0 after draining (npm killed by the
    // signal would report signal SIGTERM instead), and nothing is left listening.
    expect(exit).to.include({ code: 0, signal: null });
    expect(await connect(port)).to.equal('ECONNREFUSED');
    expect(exit.at - signalled).to.be.below(GRACE_MS + EXIT_MARGIN_MS);
  });

  it('cuts an upload that never finishes at the end of the grace period', async () => {
    started = await npmStart(env);
    const { url, port } = started;
    const boundary = 'kobana-test-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`;
    const upload = partialRequest(`${url}/v1/attachments`, {
      Authorization: `Bearer ${token}`, 'X-Workspace-Id': DEMO.workspaces.matriz, 'Content-Type': `multipart/form-data; boundary=${boundary}`,
    }, Buffer.concat([Buffer.from(head), Buffer.alloc(2 * 1024 * 1024, 0x41)]), head.length + 64 * 1024);
    try {
      await sleep(300);
      const signalled = Date.now();
      started.npm.kill('SIGTERM');
      const exit = await started.exited;
      expect(exit).to.include({ code: 0, signal: null });
      expect(await upload.outcome).to.be.oneOf(['ECONNRESET', 'EPIPE']);
      expect(await connect(port)).to.equal('ECONNREFUSED');
      expect(exit.at - signalled).to.be.below(GRACE_MS + EXIT_MARGIN_MS);
    } finally {
      upload.abandon();
    }
  });
});
