/**
 * The boundary fuzzer (issue 25, Build 2; docs/testing.md#boundary-fuzzer): every operation of the
 * generated registry, over REST and its MCP tool, with boundary values derived from its schemas —
 * on SQLite, and on PostgreSQL (+ Redis) when DATABASE_URL is set. The server runs in its own
 * process and measures each case itself. Fails, naming the operation, surface and case, on any
 * 5xx (or its MCP forms, or a request deadline's 503), on a case during which the server both
 * blocked its event loop > 1 s and used > 0.8 s of CPU, on peak RSS > 512 MB or RSS growth > 64 MB,
 * and on an operation with fewer than its share of cases.
 *
 * Environment: FUZZ_CASES_PER_OP (default 200), FUZZ_SEED (default 25), FUZZ_CASE_TIMEOUT_MS
 * (default 20000), FUZZ_BOTH_SURFACES=1 (every boundary on both surfaces, as the soak does),
 * FUZZ_ONLY (a regular expression: only the operations whose id matches), FUZZ_PROGRESS=1 (a line
 * per operation), FUZZ_REPORT (a file the whole report is written to, JSON).
 */
import fs from 'node:fs/promises';
import { expect } from 'chai';
import { operations } from '../../generated/registry.gen.js';
import { formatReport, runBoundaryFuzzer } from './support/run.js';

function readInteger(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text)) throw new Error(`${name} must be a non-negative integer`);
  return Number(text);
}

describe('boundary fuzzer (every operation, REST and MCP)', function () {
  this.timeout(0);

  it('answers every boundary case without a server fault, within the work and memory bounds', async () => {
    const report = await runBoundaryFuzzer({
      casesPerOperation: readInteger('FUZZ_CASES_PER_OP', 200),
      bothSurfaces: process.env['FUZZ_BOTH_SURFACES'] === '1',
      seed: readInteger('FUZZ_SEED', 25),
      caseTimeoutMs: readInteger('FUZZ_CASE_TIMEOUT_MS', 20_000),
      maxHangsPerOperation: 2,
      ...(process.env['FUZZ_ONLY'] ? { only: new RegExp(process.env['FUZZ_ONLY']) } : {}),
      log: process.env['FUZZ_PROGRESS'] === '1' ? (line) => process.stdout.write(`${line}\n`) : undefined,
    });
    process.stdout.write(`${formatReport(report)}\n`);
    // Every operation of the registry (or every one FUZZ_ONLY names) was fuzzed: a new one the moment it exists.
    const only = process.env['FUZZ_ONLY'] ? new RegExp(process.env['FUZZ_ONLY']) : null;
    const expected = operations.map((definition) => definition.operation.operationId).filter((id) => only === null || only.test(id)).sort();
    expect(expected.length, 'operations to fuzz').to.be.greaterThan(0);
    expect(report.operations.map((op) => op.operationId).sort(), 'operations fuzzed').to.deep.equal(expected);
    if (process.env['FUZZ_REPORT']) await fs.writeFile(process.env['FUZZ_REPORT'], `${JSON.stringify(report, null, 1)}\n`);
    expect(report.violations, `${report.violations.length} violation(s) of the fuzzer's criteria:\n  ${report.violations.join('\n  ')}\n`).to.deep.equal([]);
  });
});
