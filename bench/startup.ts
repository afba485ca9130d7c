/**
 * Start-up time and memory at rest of the server, as `npm start` runs it (`node dist/src/main.js`,
 * after `npm run build`) and as `npm run dev` runs it (`node --import tsx src/main.ts`). Each run
 * starts a fresh process on a free port and its own data folder: the first run of a folder
 * migrates and seeds it, the later ones find it ready (the usual restart). Measured: wall time
 * from spawn to `/readyz` 200, the child's CPU time (user + system) at that moment — the figure
 * that does not depend on how busy the machine is — and RSS after `--rest` seconds idle.
 * A script, not a test (docs/architecture.md#conventions).
 * Usage: node --import tsx bench/startup.ts [--runs 3] [--rest 5] [--mode dist|tsx|both]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../test/helpers/ports.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const COMMANDS = {
  // As `npm start` runs it (package.json): the young generation capped at 4 MB per semi-space.
  dist: ['--max-semi-space-size=4', 'dist/src/main.js'],
  tsx: ['--import', 'tsx', 'src/main.ts'],
} as const;
const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a process, in ms (fields 14 and 15 of /proc/<pid>/stat, after the command name). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Math.round(Number(match?.[1] ?? 0) / 1024);
}

interface Run { wallMs: number; cpuMs: number; rssMb: number }

async function measure(mode: keyof typeof COMMANDS, dataDir: string, restSeconds: number): Promise<Run> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [...COMMANDS[mode]], {
    cwd: ROOT, stdio: 'ignore',
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn' },
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${mode}: the server exited with ${child.exitCode}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false);
      if (ready) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const wallMs = Math.round(performance.now() - started);
    const cpu = cpuMs(child.pid as number);
    await new Promise((resolve) => setTimeout(resolve, restSeconds * 1000));
    return { wallMs, cpuMs: cpu, rssMb: rssMb(child.pid as number) };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' }, rest: { type: 'string', default: '5' }, mode: { type: 'string', default: 'both' } } });
const modes = values.mode === 'both' ? (['dist', 'tsx'] as const) : [values.mode as keyof typeof COMMANDS];
if (modes.includes('dist') && !existsSync(path.join(ROOT, 'dist/src/main.js'))) throw new Error('run `npm run build` first');

console.log(`Node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log('| command | run | wall to /readyz | CPU to /readyz | RSS at rest |');
console.log('|---|---|---|---|---|');
for (const mode of modes) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kobana-startup-'));
  try {
    for (let run = 1; run <= Number(values.runs); run += 1) {
      const result = await measure(mode, dataDir, Number(values.rest));
      const label = run === 1 ? '1 (migrate + seed)' : String(run);
      console.log(`| ${mode === 'dist' ? 'node --max-semi-space-size=4 dist/src/main.js' : 'node --import tsx src/main.ts'} | ${label} | ${result.wallMs} ms | ${result.cpuMs} ms | ${result.rssMb} MB |`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
