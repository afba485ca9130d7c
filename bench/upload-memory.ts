/**
 * Upload memory bench (issue 7): uploads N files of 10 MB in a row and reports the server's
 * peak RSS, heap and external memory. The app runs in this process (test/helpers/startTestApp,
 * SQLite or DATABASE_URL); the client runs in a child process so its buffers are not counted.
 * Numbers only, no assertions: record them in bench/README.md ("Attachments").
 *
 *   node --import tsx bench/upload-memory.ts [--channel multipart|json|mcp] [--files 20] [--mb 10]
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

type Channel = 'multipart' | 'json' | 'mcp';
const MB = 1024 * 1024;

const { values } = parseArgs({
  options: {
    channel: { type: 'string', default: 'multipart' },
    files: { type: 'string', default: '20' },
    mb: { type: 'string', default: '10' },
    client: { type: 'boolean', default: false },
  },
});
const channel = values.channel as Channel;
const files = Number(values.files);
const size = Math.round(Number(values.mb) * MB);

/** One unique PDF-signed buffer per upload (a different tail each time, so no dedupe). */
function fillUpload(buffer: Buffer, index: number): void {
  buffer.fill(0x20);
  buffer.write('%PDF-1.4\n', 0, 'latin1');
  buffer.write(`upload-${index}-${Date.now()}`, buffer.length - 40, 'latin1');
}

async function runClient(): Promise<void> {
  const { BENCH_URL: url = '', BENCH_TOKEN: token = '', BENCH_WORKSPACE: workspace = '' } = process.env;
  const { modernRequest } = await import('../test/mcp/support/wire.js');
  const buffer = Buffer.alloc(size);
  for (let i = 0; i < files; i += 1) {
    fillUpload(buffer, i);
    const started = performance.now();
    let status: number;
    let ok: boolean;
    if (channel === 'multipart') {
      const form = new FormData();
      form.append('file', new Blob([buffer], { type: 'application/pdf' }), `bench-${i}.pdf`);
      const res = await fetch(`${url}/v1/attachments`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace }, body: form });
      status = res.status;
      ok = res.status === 201;
      await res.arrayBuffer();
    } else {
      const args = { file_name: `bench-${i}.pdf`, content_type: 'application/pdf', content_base64: buffer.toString('base64') };
      if (channel === 'json') {
        const res = await fetch(`${url}/v1/attachments`, {
          method: 'POST', headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspace, 'content-type': 'application/json' }, body: JSON.stringify(args),
        });
        status = res.status;
        ok = res.status === 201;
        await res.arrayBuffer();
      } else {
        const { body, headers } = modernRequest(i + 1, 'tools/call', { name: 'finance_attachments_upload', arguments: { workspace_id: workspace, ...args } });
        const res = await fetch(`${url}/mcp`, {
          method: 'POST', headers: { ...headers, authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body),
        });
        status = res.status;
        const reply = (await res.json()) as { result?: { isError?: boolean } };
        ok = res.status === 200 && reply.result?.isError !== true;
      }
    }
    process.stdout.write(`${JSON.stringify({ i, status, ok, ms: Math.round(performance.now() - started) })}\n`);
  }
}

interface Peaks { rss: number; heapUsed: number; external: number; arrayBuffers: number }

function sampleMemory(peaks: Peaks): void {
  const m = process.memoryUsage();
  peaks.rss = Math.max(peaks.rss, m.rss);
  peaks.heapUsed = Math.max(peaks.heapUsed, m.heapUsed);
  peaks.external = Math.max(peaks.external, m.external);
  peaks.arrayBuffers = Math.max(peaks.arrayBuffers, m.arrayBuffers);
}

const toMb = (bytes: number): string => (bytes / MB).toFixed(1);

async function runServer(): Promise<void> {
  const { startTestApp, DEMO } = await import('../test/helpers/index.js');
  const app = await startTestApp({ config: { apiWriteBudget: 10_000, protocolRateLimitPerMinute: 10_000 } });
  try {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', type: 'personal', aud: channel === 'mcp' ? 'mcp' : 'api' });
    const baseline = process.memoryUsage();
    const peaks: Peaks = { rss: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
    const timer = setInterval(() => sampleMemory(peaks), 5);
    const script = fileURLToPath(import.meta.url);
    const child = spawn(process.execPath, ['--import', 'tsx', script, '--client', '--channel', channel, '--files', String(files), '--mb', String(Number(values.mb))], {
      env: { ...process.env, BENCH_URL: app.url, BENCH_TOKEN: token, BENCH_WORKSPACE: DEMO.workspaces.matriz },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: { ok: boolean; ms: number }[] = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      for (const line of text.split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { ok: boolean; ms: number });
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearInterval(timer);
    sampleMemory(peaks);
    const after = process.memoryUsage();
    const maxRssKb = process.resourceUsage().maxRSS;
    const okCount = lines.filter((l) => l.ok).length;
    const totalMs = lines.reduce((n, l) => n + l.ms, 0);
    process.stdout.write([
      `channel=${channel} files=${files} size=${toMb(size)} MB ok=${okCount}/${files} client_exit=${code} db=${process.env.DATABASE_URL ? 'postgres' : 'sqlite'} node=${process.version}`,
      `baseline rss=${toMb(baseline.rss)} MB heapUsed=${toMb(baseline.heapUsed)} MB`,
      `peak     rss=${toMb(peaks.rss)} MB heapUsed=${toMb(peaks.heapUsed)} MB external=${toMb(peaks.external)} MB arrayBuffers=${toMb(peaks.arrayBuffers)} MB`,
      `maxRSS (resourceUsage) = ${toMb(maxRssKb * 1024)} MB; after: rss=${toMb(after.rss)} MB heapUsed=${toMb(after.heapUsed)} MB`,
      `mean upload time = ${lines.length ? Math.round(totalMs / lines.length) : 0} ms`,
    ].join('\n') + '\n');
    if (okCount !== files) process.exitCode = 1;
  } finally {
    await app.close();
  }
}

await (values.client ? runClient() : runServer());
