/**
 * The knobs and bookkeeping shared by the property tests of the HTTP surfaces
 * (test/http/property.test.ts, test/mcp/property.test.ts) and their soak run
 * (scripts/soak-property.ts): how many cases to run, whether to count server faults or stop at
 * the first one (and let fast-check shrink it), warm-up, settled memory samples, and the JSON report
 * the soak reads.
 *
 * Environment (read here, by the tests only):
 * - `PROPERTY_RUNS`: cases per property (default 1,000).
 * - `PROPERTY_TALLY=1`: count every server fault and fail once at the end (the soak wants the
 *   count); unset: fail at the first fault, shrunk to a minimal counterexample.
 * - `PROPERTY_MAX_RSS_GROWTH`: e.g. `0.10`; when set, RSS growth over the run must stay below it.
 *   Unset in CI: RSS on a shared CI machine is too noisy to assert on 1,000 cases.
 * - `PROPERTY_REPORT`: a file the run writes its numbers to (JSON, see PropertyReport).
 *
 * When memory is watched (either of the last two is set) the process must run with `--expose-gc`:
 * every sample is taken after full collections, once RSS has settled, so it measures what the
 * server keeps, not garbage that has not been collected yet.
 */
import fs from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';

export const DEFAULT_PROPERTY_RUNS = 1_000;
/**
 * Cases run before the first sample, so JIT, compiled validators, the tools/list caches, the token
 * verification LRU, prepared statements and the database page cache are full: 10% of the run, at
 * least 1,000.
 */
export const WARM_UP_FRACTION = 0.1;
export const MIN_WARM_UP_RUNS = 1_000;
/** Samples taken during the measured run (after each tenth), to tell a plateau from steady growth. */
const TRACE_SEGMENTS = 10;
/** A sample is settled when RSS moved less than this between two collections… */
const SETTLED_BYTES = 512 * 1024;
/** …or after this many rounds of collect-and-wait. */
const SETTLE_ROUNDS = 8;
const SETTLE_WAIT_MS = 200;
/** Examples kept per fault label in the report (the count is exact, the examples are a sample). */
const EXAMPLES_PER_FAULT = 3;

export interface PropertySettings {
  readonly runs: number;
  readonly tally: boolean;
  readonly maxRssGrowth: number | null;
  readonly reportPath: string | null;
}

export interface PropertyReport {
  readonly surface: string;
  readonly database: 'sqlite' | 'postgres';
  readonly cases: number;
  readonly faults: number;
  readonly faultsByLabel: Readonly<Record<string, number>>;
  readonly examples: Readonly<Record<string, readonly string[]>>;
  /** Cases run before `before` was sampled (not in `cases`; their faults are in `faults`). */
  readonly warmUpCases: number;
  readonly rssBefore: number;
  readonly rssAfter: number;
  readonly rssGrowth: number;
  /** V8 heap in use after GC: tells a JS leak (heap grows) from native memory or allocator retention (only RSS grows). */
  readonly heapUsedBefore: number;
  readonly heapUsedAfter: number;
  /** Memory of C++ objects bound to JS (`external`, which includes `arrayBuffers`: Buffers). */
  readonly externalBefore: number;
  readonly externalAfter: number;
  readonly arrayBuffersBefore: number;
  readonly arrayBuffersAfter: number;
  /** Settled samples after each tenth of the measured run (`cases` = measured cases so far). */
  readonly trace: readonly (MemorySample & { readonly cases: number })[];
}

export interface MemorySample {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  readonly arrayBuffers: number;
}

function readPositiveInteger(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new Error(`${name} must be a positive integer`);
  return Number(text);
}

function readFraction(name: string, text: string | undefined): number | null {
  if (text === undefined || text === '') return null;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number such as 0.10`);
  return value;
}

export function readPropertySettings(env: NodeJS.ProcessEnv = process.env): PropertySettings {
  return {
    runs: readPositiveInteger('PROPERTY_RUNS', env['PROPERTY_RUNS'], DEFAULT_PROPERTY_RUNS),
    tally: env['PROPERTY_TALLY'] === '1',
    maxRssGrowth: readFraction('PROPERTY_MAX_RSS_GROWTH', env['PROPERTY_MAX_RSS_GROWTH']),
    reportPath: env['PROPERTY_REPORT'] || null,
  };
}

/** Cases of warm-up before a run of `runs` measured cases. */
export function warmUpRuns(runs: number): number {
  return Math.max(MIN_WARM_UP_RUNS, Math.ceil(runs * WARM_UP_FRACTION));
}

function readMemory(): MemorySample {
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, external, arrayBuffers };
}

/** `global.gc`, which memory samples need: throws when node runs without `--expose-gc`. */
function forcedGc(): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('memory samples need a forced GC: run node with --expose-gc (the soak does)');
  return gc;
}

/**
 * Memory after full collections, settled: collect, wait (closed sockets, finalizers and freed
 * native objects get their turn), collect again, until RSS moves less than SETTLED_BYTES between
 * two rounds. Needs `--expose-gc`.
 */
export async function sampleMemory(): Promise<MemorySample> {
  const gc = forcedGc();
  let previous = readMemory();
  for (let round = 0; round < SETTLE_ROUNDS; round += 1) {
    gc();
    await sleep(SETTLE_WAIT_MS);
    gc();
    const current = readMemory();
    const settled = Math.abs(current.rss - previous.rss) < SETTLED_BYTES;
    previous = current;
    if (settled) break;
  }
  return previous;
}

/**
 * Server faults seen during a run (5xx, or the surface's in-band equivalent), by label
 * (e.g. `POST /v1/payables → 500`). In tally mode `record` only counts; otherwise it throws so
 * fast-check shrinks the case.
 */
export class FaultTally {
  readonly byLabel: Record<string, number> = {};
  readonly examples: Record<string, string[]> = {};
  cases = 0;

  constructor(private readonly tally: boolean) {}

  get total(): number {
    return Object.values(this.byLabel).reduce((sum, n) => sum + n, 0);
  }

  record(label: string, example: () => string): void {
    if (!this.tally) throw new Error(`server fault: ${label}\n  case: ${example()}`);
    this.byLabel[label] = (this.byLabel[label] ?? 0) + 1;
    const kept = (this.examples[label] ??= []);
    if (kept.length < EXAMPLES_PER_FAULT) kept.push(example());
  }

  summary(): string {
    return Object.entries(this.byLabel).map(([label, n]) => `${n} × ${label}\n    e.g. ${this.examples[label]?.[0] ?? ''}`).join('\n');
  }
}

export async function writePropertyReport(settings: PropertySettings, report: PropertyReport): Promise<void> {
  if (settings.reportPath) await fs.writeFile(settings.reportPath, `${JSON.stringify(report, null, 2)}\n`);
}

export function databaseUnderTest(): 'sqlite' | 'postgres' {
  return process.env.DATABASE_URL ? 'postgres' : 'sqlite';
}

/**
 * Runs `property` for `settings.runs` cases and returns the numbers. When memory is watched
 * (a report or a growth limit is asked for), warmUpRuns(runs) cases run first, then the measured
 * cases in TRACE_SEGMENTS parts (each its own fast-check run and seed) with a settled sample after
 * each. Fails on any counted fault and, when a limit is set, on RSS growth.
 */
export async function runMeasured<Ts extends [unknown, ...unknown[]]>(
  settings: PropertySettings,
  surface: string,
  tally: FaultTally,
  property: fc.IAsyncPropertyWithHooks<Ts>,
): Promise<PropertyReport> {
  const watchMemory = settings.maxRssGrowth !== null || settings.reportPath !== null;
  if (watchMemory) forcedGc();
  const warmUpCases = watchMemory ? warmUpRuns(settings.runs) : 0;
  if (warmUpCases > 0) await fc.assert(property, { numRuns: warmUpCases });
  tally.cases = 0;
  const trace: (MemorySample & { cases: number })[] = [];
  let before: MemorySample = readMemory();
  let after: MemorySample = before;
  if (watchMemory) {
    before = await sampleMemory();
    const segments = Math.min(TRACE_SEGMENTS, settings.runs);
    for (let segment = 0; segment < segments; segment += 1) {
      const numRuns = Math.floor((settings.runs * (segment + 1)) / segments) - Math.floor((settings.runs * segment) / segments);
      await fc.assert(property, { numRuns });
      after = await sampleMemory();
      trace.push({ cases: tally.cases, ...after });
    }
  } else {
    await fc.assert(property, { numRuns: settings.runs });
    after = readMemory();
  }
  const report: PropertyReport = {
    surface,
    database: databaseUnderTest(),
    cases: tally.cases,
    faults: tally.total,
    faultsByLabel: { ...tally.byLabel },
    examples: { ...tally.examples },
    warmUpCases,
    rssBefore: before.rss,
    rssAfter: after.rss,
    rssGrowth: (after.rss - before.rss) / before.rss,
    heapUsedBefore: before.heapUsed,
    heapUsedAfter: after.heapUsed,
    externalBefore: before.external,
    externalAfter: after.external,
    arrayBuffersBefore: before.arrayBuffers,
    arrayBuffersAfter: after.arrayBuffers,
    trace,
  };
  await writePropertyReport(settings, report);
  if (report.faults > 0) throw new Error(`${report.faults} server fault(s) in ${warmUpCases + report.cases} cases:\n${tally.summary()}`);
  if (settings.maxRssGrowth !== null && report.rssGrowth >= settings.maxRssGrowth) {
    throw new Error(`RSS grew ${(report.rssGrowth * 100).toFixed(1)}% over ${report.cases} cases (limit ${(settings.maxRssGrowth * 100).toFixed(0)}%)`);
  }
  return report;
}

/** `fc.stringify` of a case, cut to a readable length (reports and failure messages). */
export function describeCase(value: unknown): string {
  const text = fc.stringify(value);
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}
