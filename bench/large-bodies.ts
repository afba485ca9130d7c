/**
 * Large-body memory bench (issue 14): N concurrent `/mcp` requests of M MB each (a JSON-RPC
 * ping padded to size), against the real server started as `src/main.ts` in a child process
 * (embedded, SQLite, logs silent). It samples the server's RSS (/proc) every 10 ms and reports
 * RSS before the burst, the peak during it and after it (settled, after a forced GC: the child
 * runs with --expose-gc and collects on SIGUSR2), plus how many requests got 200 and 503.
 * It checks two things and exits 1 when either fails: peak ≤ before + the bound (default
 * 2 × MAX_INFLIGHT_BODY_BYTES), and after ≤ before × 1.2. Record results in bench/README.md.
 *
 *   node --import tsx bench/large-bodies.ts [--requests 40] [--mb 13] [--cap-mb 64] [--bound-mb N]
 *
 * `--cap-mb 16384` (the largest MAX_INFLIGHT_BODY_BYTES) shows the server without the cap.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';

const MB = 1024 * 1024;
const run = promisify(execFile);

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '40' },
    mb: { type: 'string', default: '13' },
    'cap-mb': { type: 'string', default: '64' },
    'bound-mb': { type: 'string' },
  },
});
const requests = Number(values.requests);
const size = Math.round(Number(values.mb) * MB);
const capMb = Number(values['cap-mb']);
const boundMb = values['bound-mb'] === undefined ? 2 * capMb : Number(values['bound-mb']);

async function rssMb(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Forces a full GC in the server and waits for RSS to stop falling. */
async function settledRss(pid: number): Promise<number> {
  let last = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 20; i += 1) {
    process.kill(pid, 'SIGUSR2');
    await sleep(500);
    const now = await rssMb(pid);
    if (now >= last - 1) return now;
    last = now;
  }
  return last;
}

function send(url: string, token: string, body: Buffer): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.request(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': body.length },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    // A refused body may see its connection closed while still sending (Connection: close).
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    req.end(body);
  });
}

async function main(): Promise<void> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-large-bodies-'));
  const env = {
    ...process.env, PORT: '0', HOST: '127.0.0.1', PUBLIC_URL: 'http://kobana-bench.test', DATA_DIR: dataDir, LOG_LEVEL: 'info',
    REDIS_URL: '', DATABASE_URL: '', MAX_INFLIGHT_BODY_BYTES: String(capMb * MB), PROTOCOL_RATE_LIMIT_PER_MINUTE: '1000000',
  };
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/auth/token-cli.ts', '--person', 'ana@demo.test', '--scope', 'finance.all', '--aud', 'mcp'], { env });
  const token = stdout.trim();
  const server = spawn(process.execPath, [
    '--expose-gc', '--import', 'tsx', '--input-type=module', '-e',
    "process.on('SIGUSR2', () => globalThis.gc?.()); await import('./src/main.ts');",
  ], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      readline.createInterface({ input: server.stdout! }).on('line', (line) => {
        if (!line.startsWith('{')) return;
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        if (entry.msg === 'kobana-finance listening' && typeof entry.port === 'number') resolve(entry.port);
      });
      server.once('exit', () => reject(new Error('the server exited before listening')));
    });
    const url = `http://127.0.0.1:${port}`;
    const pid = server.pid!;
    const json = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const body = Buffer.concat([Buffer.from(json), Buffer.alloc(size - json.length, 0x20)]);
    // Warm up the /mcp path once so lazy loading is not counted as burst memory.
    await send(url, token, Buffer.from(json));
    const before = await settledRss(pid);

    let peak = before;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rssMb(pid));
        await sleep(10);
      }
    })();
    const started = performance.now();
    const outcomes = await Promise.all(Array.from({ length: requests }, () => send(url, token, body)));
    const burstMs = Math.round(performance.now() - started);
    sampling = false;
    await sampler;
    const after = await settledRss(pid);

    const counts = new Map<string, number>();
    for (const outcome of outcomes) counts.set(String(outcome), (counts.get(String(outcome)) ?? 0) + 1);
    const peakOk = peak - before <= boundMb;
    const afterOk = after <= before * 1.2;
    console.log(JSON.stringify({
      requests, body_mb: Number(values.mb), cap_mb: capMb, outcomes: Object.fromEntries(counts), burst_ms: burstMs,
      rss_before_mb: before, rss_peak_mb: peak, rss_after_mb: after, bound_mb: boundMb,
    }));
    console.log(`peak - before = ${peak - before} MB ${peakOk ? '<=' : '>'} bound ${boundMb} MB: ${peakOk ? 'ok' : 'FAIL'}`);
    console.log(`after = ${after} MB ${afterOk ? '<=' : '>'} before × 1.2 = ${Math.round(before * 1.2)} MB: ${afterOk ? 'ok' : 'FAIL'}`);
    process.exitCode = peakOk && afterOk ? 0 : 1;
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
