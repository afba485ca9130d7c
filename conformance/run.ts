/**
 * `npm run conformance`: the official MCP conformance suite against the real server. Starts
 * the server (embedded default, fresh data dir, free port), mints a finance.all.write token for
 * ana@demo.test, puts the bearer-adding loopback proxy in front, runs the suite in server mode
 * for each spec version with that version's committed baseline, prints a summary, cleans up,
 * and exits non-zero on any unexpected failure or unexpected pass. The suite's scenarios and
 * verdicts are its own; this file only wires and reports.
 *
 * Options: `--spec-version <v>` (repeatable; default both), `--keep` (keep the results folder).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBearerProxy, type BearerProxy } from './proxy.js';
import { startServerUnderTest, type ServerUnderTest } from './server.js';
import { findUnusedBaselineEntries, readBaseline, runConformanceSuite, tallyRun, type BaselineEntry, type SuiteRun } from './suite.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const VERSIONS = ['2026-07-28', '2025-06-18'] as const;
const SCENARIO_TIMEOUT_MS = 15_000;

/**
 * Scenarios that need nothing but a correct server: they must run and pass. The baseline may
 * only excuse single checks of server-stateless that call the suite's fixture tools.
 */
const GENERIC: Record<string, readonly string[]> = {
  '2026-07-28': ['server-stateless', 'tools-list', 'resources-list', 'prompts-list', 'caching', 'sep-2164-resource-not-found', 'dns-rebinding-protection', 'http-header-validation'],
  '2025-06-18': ['server-initialize', 'ping', 'tools-list', 'resources-list', 'prompts-list'],
};
const GENERIC_WITH_FIXTURE_CHECKS = new Set(['server-stateless']);

interface Options { versions: string[]; keep: boolean }

function parseOptions(argv: readonly string[]): Options {
  const versions: string[] = [];
  let keep = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--keep') keep = true;
    else if (arg === '--spec-version' && argv[i + 1]) versions.push(argv[++i] as string);
    else throw new Error(`unknown argument ${arg ?? ''}; usage: conformance/run.ts [--spec-version <v>]... [--keep]`);
  }
  for (const v of versions) if (!(VERSIONS as readonly string[]).includes(v)) throw new Error(`no baseline for spec version ${v}`);
  return { versions: versions.length > 0 ? versions : [...VERSIONS], keep };
}

/** The suite's own summary and baseline verdict (everything from `=== SUMMARY ===`). */
function printSuiteSummary(run: SuiteRun): void {
  const at = run.stdout.indexOf('=== SUMMARY ===');
  process.stdout.write(`${at === -1 ? run.stdout : run.stdout.slice(at)}\n`);
}

/** A generic scenario that did not run, or that the baseline excuses beyond fixture checks. */
function findGenericProblems(version: string, baseline: readonly BaselineEntry[], run: SuiteRun): string[] {
  const problems: string[] = [];
  const ran = new Set(run.scenarios.map((s) => s.scenario));
  for (const scenario of GENERIC[version] ?? []) {
    if (!ran.has(scenario)) problems.push(`${scenario} did not run`);
    for (const entry of baseline.filter((e) => e.scenario === scenario)) {
      if (!entry.checkId || !GENERIC_WITH_FIXTURE_CHECKS.has(scenario)) {
        problems.push(`${scenario}${entry.checkId ? `:${entry.checkId}` : ''} must pass, it may not be baselined`);
      }
    }
  }
  return problems;
}

/**
 * Harness self-checks through the proxy, so a green suite means what it says: a foreign Origin
 * is refused with 403 by the server (the proxy passes Origin through), and the server itself
 * refuses a request without a token (the proxy is the only thing that authenticates).
 */
async function checkHarness(server: ServerUnderTest, proxy: BearerProxy): Promise<string[]> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const problems: string[] = [];
  const foreign = await fetch(`${proxy.url}/mcp`, { method: 'POST', body, headers: { ...headers, origin: 'http://evil.example.com' } });
  if (foreign.status !== 403) problems.push(`a foreign Origin through the proxy answered ${foreign.status}, want 403`);
  const viaProxy = await fetch(`${proxy.url}/mcp`, { method: 'POST', body, headers: { ...headers, origin: proxy.url } });
  if (viaProxy.status !== 200) problems.push(`ping through the proxy answered ${viaProxy.status}, want 200`);
  const direct = await fetch(`${server.url}/mcp`, { method: 'POST', body, headers });
  if (direct.status !== 401) problems.push(`a request without a token answered ${direct.status}, want 401`);
  return problems;
}

async function runVersion(version: string, proxy: BearerProxy, resultsDir: string): Promise<boolean> {
  const baselineFile = path.join(ROOT, 'conformance', `baseline-${version}.yml`);
  const baseline = await readBaseline(baselineFile);
  process.stdout.write(`\n### conformance ${version} (baseline: ${baseline.length} entries)\n`);
  const run = await runConformanceSuite({
    root: ROOT, url: `${proxy.url}/mcp`, version, baselineFile,
    outputDir: path.join(resultsDir, version), timeoutMs: SCENARIO_TIMEOUT_MS,
  });
  printSuiteSummary(run);
  const tally = tallyRun(run);
  const unused = findUnusedBaselineEntries(baseline, run);
  for (const entry of unused) process.stdout.write(`  stale baseline entry (scenario did not run): ${entry.scenario}${entry.checkId ? `:${entry.checkId}` : ''}\n`);
  const problems = findGenericProblems(version, baseline, run);
  for (const problem of problems) process.stdout.write(`  generic scenario: ${problem}\n`);
  const ok = run.exitCode === 0 && unused.length === 0 && problems.length === 0 && tally.scenarios > 0;
  process.stdout.write(
    `conformance ${version}: ${ok ? 'OK' : 'FAILED'} — ${tally.scenarios} scenarios, ${tally.scenariosPassed} fully passing, ` +
      `${tally.failedScenarios.length} with failing checks; checks ${tally.checksPassed} passed, ${tally.checksFailed} failed or warned` +
      ` (suite exit ${run.exitCode})\n`,
  );
  return ok;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const started = Date.now();
  const resultsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'kobana-conformance-results-'));
  let server: ServerUnderTest | undefined;
  let proxy: BearerProxy | undefined;
  const cleanup = async () => {
    await proxy?.close();
    await server?.stop();
    if (!options.keep) await fs.rm(resultsDir, { recursive: true, force: true });
  };
  // Ctrl-C or a CI timeout must not leave a server or a data dir behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { void cleanup().finally(() => process.exit(130)); });
  }
  try {
    server = await startServerUnderTest(ROOT);
    const token = await server.mintToken({ person: 'ana@demo.test', scope: 'finance.all.write', aud: 'mcp' });
    proxy = await startBearerProxy(server.url, token);
    const harnessProblems = await checkHarness(server, proxy);
    for (const problem of harnessProblems) process.stdout.write(`conformance harness: ${problem}\n`);
    let ok = harnessProblems.length === 0;
    for (const version of options.versions) ok = (await runVersion(version, proxy, resultsDir)) && ok;
    if (proxy.forwarded() === 0) {
      process.stdout.write('conformance: the proxy forwarded no request — the suite never reached the server\n');
      ok = false;
    }
    if (options.keep) process.stdout.write(`results kept in ${resultsDir}\n`);
    process.stdout.write(`conformance: ${ok ? 'passed' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    return ok ? 0 : 1;
  } catch (err) {
    process.stderr.write(`conformance: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await cleanup();
  }
}

process.exitCode = await main();
