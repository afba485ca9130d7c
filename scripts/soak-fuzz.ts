/**
 * The boundary fuzzer's soak (docs/testing.md#boundary-fuzzer): the fuzzer of
 * test/fuzz/boundary.test.ts with more cases per operation and every boundary on both surfaces,
 * on SQLite and on PostgreSQL (+ Redis), one database after the other. Prints, per operation, the
 * cases and the wall-clock event-loop blocks of the server (max and p99 of the per-case maximum,
 * against the quiet-machine target of 250 ms), then the criteria violations; exits 1 on any.
 *
 *   npm run soak:fuzz -- --cases-per-op 1000                       # both databases (DATABASE_URL)
 *   npm run soak:fuzz -- --cases-per-op 1000 --sqlite-only
 *
 * Options: --cases-per-op (default 1000), --database-url (default DATABASE_URL), --redis-url
 * (default REDIS_URL), --sqlite-only / --postgres-only, --seed (default 25), --operation <regexp>,
 * --report <file> (the whole reports, JSON).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import { formatReport, runBoundaryFuzzer, type RunReport } from '../test/fuzz/support/run.js';

/** The soak's target for the longest block on a quiet machine (issue 25, Build 2). */
const TARGET_BLOCK_MS = 250;

interface SoakArguments {
  readonly casesPerOperation: number;
  readonly databaseUrl: string | null;
  readonly redisUrl: string | null;
  readonly databases: readonly ('sqlite' | 'postgres')[];
  readonly seed: number;
  readonly operation: RegExp | null;
  readonly report: string | null;
}

function readArguments(argv: readonly string[]): SoakArguments {
  const value = (name: string): string | undefined => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const integer = (name: string, fallback: number): number => {
    const text = value(name);
    if (text === undefined) return fallback;
    if (!/^\d+$/.test(text)) throw new Error(`${name} takes a whole number`);
    return Number(text);
  };
  const databaseUrl = value('--database-url') ?? process.env['DATABASE_URL'] ?? null;
  const sqliteOnly = argv.includes('--sqlite-only');
  const postgresOnly = argv.includes('--postgres-only');
  const databases: ('sqlite' | 'postgres')[] = postgresOnly ? ['postgres'] : sqliteOnly ? ['sqlite'] : ['sqlite', 'postgres'];
  if (databases.includes('postgres') && !databaseUrl) throw new Error('the PostgreSQL run needs --database-url or DATABASE_URL (or pass --sqlite-only)');
  const operation = value('--operation');
  return {
    casesPerOperation: integer('--cases-per-op', 1_000),
    databaseUrl,
    redisUrl: value('--redis-url') ?? process.env['REDIS_URL'] ?? null,
    databases,
    seed: integer('--seed', 25),
    operation: operation === undefined ? null : new RegExp(operation),
    report: value('--report') ?? null,
  };
}

function loadAverage(): string {
  return os.loadavg().map((n) => n.toFixed(2)).join(' ');
}

function blocksTable(report: RunReport): string {
  const rows = report.operations.map((op) => `${op.operationId.padEnd(30)} ${String(op.cases).padStart(6)} ${op.loopDelayMaxMs.toFixed(0).padStart(8)} ${op.loopDelayP99Ms.toFixed(0).padStart(8)}${op.loopDelayMaxMs > TARGET_BLOCK_MS ? `  over ${TARGET_BLOCK_MS} ms: ${op.loopDelayWorstCase}` : ''}`);
  const all = report.operations.flatMap((op) => op.results.flatMap((r) => (r.stats ? [r.stats.loopDelayMaxMs] : []))).sort((a, b) => a - b);
  const p99 = all[Math.min(all.length - 1, Math.ceil(0.99 * all.length) - 1)] ?? 0;
  return [
    `${'operation'.padEnd(30)} ${'cases'.padStart(6)} ${'max ms'.padStart(8)} ${'p99 ms'.padStart(8)}`,
    ...rows,
    `all cases: max ${(all[all.length - 1] ?? 0).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms (target on a quiet machine: max ≤ ${TARGET_BLOCK_MS} ms)`,
  ].join('\n');
}

async function main(): Promise<void> {
  const args = readArguments(process.argv.slice(2));
  const reports: RunReport[] = [];
  for (const database of args.databases) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    if (database === 'postgres') {
      env['DATABASE_URL'] = args.databaseUrl ?? '';
      if (args.redisUrl) env['REDIS_URL'] = args.redisUrl;
    } else {
      delete env['DATABASE_URL'];
      delete env['REDIS_URL'];
    }
    const loadBefore = loadAverage();
    process.stdout.write(`soak:fuzz: ${database}, ${args.casesPerOperation} cases per operation, load average ${loadBefore}\n`);
    const report = await runBoundaryFuzzer({
      casesPerOperation: args.casesPerOperation,
      bothSurfaces: true,
      seed: args.seed,
      caseTimeoutMs: 30_000,
      maxHangsPerOperation: 2,
      env,
      ...(args.operation ? { only: args.operation } : {}),
      log: (line) => process.stdout.write(`${line}\n`),
    });
    reports.push(report);
    process.stdout.write(`${formatReport(report)}\n\nwall-clock event-loop blocks per operation (${database}):\n${blocksTable(report)}\n`);
    process.stdout.write(`load average: before ${loadBefore}, after ${loadAverage()}\n`);
    process.stdout.write(report.violations.length === 0 ? 'no violations\n\n' : `${report.violations.length} violation(s):\n  ${report.violations.join('\n  ')}\n\n`);
  }
  if (args.report) await fs.writeFile(args.report, `${JSON.stringify(reports, null, 1)}\n`);
  process.exitCode = reports.some((report) => report.violations.length > 0) ? 1 : 0;
}

main().catch((err: unknown) => {
  process.stderr.write(`soak:fuzz: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
