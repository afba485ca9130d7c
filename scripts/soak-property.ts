/**
 * Soak of the HTTP property tests: runs test/http/property.test.ts (REST) and
 * test/mcp/property.test.ts (MCP) with many cases on SQLite and on PostgreSQL, each in its own
 * mocha process with `--expose-gc`, counting every server fault instead of stopping at the first,
 * and prints cases, faults and memory (RSS, V8 heap, external) before/after per surface and
 * database. Exits non-zero on any fault, on RSS growth at or above the limit, or when a run fails
 * for another reason.
 *
 *   node --import tsx scripts/soak-property.ts [--runs 10000] [--max-rss-growth 0.10]
 *        [--database-url postgres://…] [--sqlite-only | --postgres-only] [--surface rest|mcp]
 *        [--malloc-arena-max 2]
 *
 * PostgreSQL: `--database-url`, else DATABASE_URL (each run creates and drops its own database);
 * SQLite: the test app's file database in a temporary DATA_DIR. REDIS_URL is passed through when
 * set. The children run with MALLOC_ARENA_MAX=2, as docs/operations.md recommends for production
 * (`--malloc-arena-max 0`: glibc's default). Documented in docs/testing.md.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { PropertyReport } from '../test/helpers/property-soak.js';

const SURFACES = { rest: 'test/http/property.test.ts', mcp: 'test/mcp/property.test.ts' } as const;
type Surface = keyof typeof SURFACES;

interface Pass {
  readonly surface: Surface;
  readonly database: 'sqlite' | 'postgres';
  readonly databaseUrl: string | null;
}

interface Outcome {
  readonly pass: Pass;
  readonly exitCode: number;
  readonly report: PropertyReport | null;
}

function readOptions() {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '10000' },
      'max-rss-growth': { type: 'string', default: '0.10' },
      'database-url': { type: 'string' },
      'sqlite-only': { type: 'boolean', default: false },
      'postgres-only': { type: 'boolean', default: false },
      surface: { type: 'string' },
      'malloc-arena-max': { type: 'string', default: '2' },
    },
  });
  const runs = Number(values.runs);
  const maxRssGrowth = Number(values['max-rss-growth']);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
  if (!Number.isFinite(maxRssGrowth) || maxRssGrowth <= 0) throw new Error('--max-rss-growth must be a positive number such as 0.10');
  if (values.surface !== undefined && !(values.surface in SURFACES)) throw new Error('--surface must be rest or mcp');
  if (values['sqlite-only'] && values['postgres-only']) throw new Error('--sqlite-only and --postgres-only exclude each other');
  const mallocArenaMax = Number(values['malloc-arena-max']);
  if (!Number.isInteger(mallocArenaMax) || mallocArenaMax < 0) throw new Error('--malloc-arena-max must be a whole number (0: glibc default)');
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL ?? null;
  if (!values['sqlite-only'] && !databaseUrl) throw new Error('PostgreSQL pass: give --database-url or DATABASE_URL (or --sqlite-only)');
  const surfaces = values.surface === undefined ? (Object.keys(SURFACES) as Surface[]) : [values.surface as Surface];
  const databases: Pass['database'][] = values['sqlite-only'] ? ['sqlite'] : values['postgres-only'] ? ['postgres'] : ['sqlite', 'postgres'];
  const passes: Pass[] = databases.flatMap((database) => surfaces.map((surface) => ({
    surface, database, databaseUrl: database === 'postgres' ? databaseUrl : null,
  })));
  return { runs, maxRssGrowth, mallocArenaMax, passes };
}

async function runPass(pass: Pass, runs: number, maxRssGrowth: number, mallocArenaMax: number, reportDir: string): Promise<Outcome> {
  const reportPath = path.join(reportDir, `${pass.surface}-${pass.database}.json`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PROPERTY_RUNS: String(runs),
    PROPERTY_TALLY: '1',
    PROPERTY_MAX_RSS_GROWTH: String(maxRssGrowth),
    PROPERTY_REPORT: reportPath,
  };
  if (pass.databaseUrl) env['DATABASE_URL'] = pass.databaseUrl;
  else delete env['DATABASE_URL'];
  if (mallocArenaMax > 0) env['MALLOC_ARENA_MAX'] = String(mallocArenaMax);
  else delete env['MALLOC_ARENA_MAX'];
  const args = ['mocha', '--no-config', '--node-option', 'import=tsx', '--node-option', 'expose-gc', '--require', 'test/helpers/root-hooks.ts',
    '--extension', 'ts', '--timeout', '60000', '--exit', SURFACES[pass.surface]];
  console.log(`\n=== ${pass.surface} on ${pass.database}: ${runs} cases ===`);
  const exitCode = await new Promise<number>((resolve) => {
    const child = spawn('npx', args, { env, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  const report = await fs.readFile(reportPath, 'utf8').then((text) => JSON.parse(text) as PropertyReport, () => null);
  return { pass, exitCode, report };
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function summarize(outcome: Outcome, maxRssGrowth: number): { line: string; ok: boolean } {
  const { pass, exitCode, report } = outcome;
  const name = `${pass.surface.padEnd(4)} ${pass.database.padEnd(8)}`;
  if (report === null) return { line: `${name} no report (mocha exit ${exitCode}: the run failed before counting; see its output)`, ok: false };
  const growth = report.rssGrowth * 100;
  const ok = exitCode === 0 && report.faults === 0 && report.rssGrowth < maxRssGrowth;
  const line = `${name} cases ${report.cases} (+${report.warmUpCases} warm-up)  5xx ${report.faults}`
    + `  RSS ${megabytes(report.rssBefore)} → ${megabytes(report.rssAfter)} (${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%)`
    + `  heap ${megabytes(report.heapUsedBefore)} → ${megabytes(report.heapUsedAfter)}`
    + `  external ${megabytes(report.externalBefore)} → ${megabytes(report.externalAfter)}`
    + ` (arrayBuffers ${megabytes(report.arrayBuffersBefore)} → ${megabytes(report.arrayBuffersAfter)})  ${ok ? 'ok' : 'FAIL'}`;
  const trace = `\n    RSS per tenth: ${report.trace.map((sample) => (sample.rss / 1024 / 1024).toFixed(0)).join(' ')} MB`;
  const faults = Object.entries(report.faultsByLabel).map(([label, n]) => `\n    ${n} × ${label}`).join('');
  return { line: line + trace + faults, ok };
}

async function main(): Promise<void> {
  const { runs, maxRssGrowth, mallocArenaMax, passes } = readOptions();
  const reportDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kf-soak-'));
  const outcomes: Outcome[] = [];
  try {
    for (const pass of passes) outcomes.push(await runPass(pass, runs, maxRssGrowth, mallocArenaMax, reportDir));
  } finally {
    await fs.rm(reportDir, { recursive: true, force: true });
  }
  const arenas = mallocArenaMax > 0 ? `MALLOC_ARENA_MAX=${mallocArenaMax}` : 'glibc default arenas';
  console.log(`\n=== soak summary (limit: 0 5xx, RSS growth < ${(maxRssGrowth * 100).toFixed(0)}%; ${arenas}; load average ${os.loadavg()[0]?.toFixed(1)}) ===`);
  let failed = false;
  for (const outcome of outcomes) {
    const { line, ok } = summarize(outcome, maxRssGrowth);
    console.log(line);
    failed ||= !ok;
  }
  process.exitCode = failed ? 1 : 0;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 2;
});
