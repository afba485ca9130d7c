/**
 * Long runs say where they are (issue 28.4): without a terminal the CLI prints one line per phase
 * when it ends (load, plan, render, check, format, type-check, write) and one summary line of a
 * fixed shape; `--quiet` neither. Failures of the document — arguments of no value under --strict,
 * a profile that cannot represent a tool under --strict, dangling references — are reported with
 * no format, type-check or write phase before them: the expensive phases never start.
 */
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createProgress } from '../../codegen/progress.js';
import { makeTempDir, REPO_ROOT, runCli } from './support.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/codegen-robust');
const PHASES = ['load', 'plan', 'render', 'check', 'format', 'type-check', 'write'];
const EXPENSIVE = /^phase (format|type-check|write):/;
const SUMMARY = /^summary: (\d+) operations, (\d+) tools, (\d+) warnings, \d+\.\d\d s CPU, \d+ MB peak RSS$/;

const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

describe('generate progress lines', function () {
  this.timeout(120_000);

  it('prints one line per phase, in order, then the summary; stdout keeps the result line', () => {
    const run = runCli(['--spec', path.join(FIXTURES, 'profile-limits.yaml'), '--out', makeTempDir()]);
    expect(run.status, run.stderr).to.equal(0);
    const phases = lines(run.stderr).filter((line) => line.startsWith('phase '));
    expect(phases.map((line) => /^phase ([a-z-]+): /.exec(line)?.[1])).to.deep.equal(PHASES);
    expect(phases[0]).to.match(/^phase load: 1 document, 1 file \(\d+\.\d\d s\)$/);
    expect(phases[1]).to.match(/^phase plan: 3 operations, 3 tools \(\d+\.\d\d s\)$/);
    const summary = lines(run.stderr).at(-1)!;
    expect(summary).to.match(SUMMARY);
    expect(SUMMARY.exec(summary)!.slice(1, 4)).to.deep.equal(['3', '3', '2']);
    expect(run.stdout).to.match(/^generated 3 tools, 3 routes, 0 resource templates into /);
  });

  it('--quiet prints neither progress nor summary, but still the warnings', () => {
    const run = runCli(['--spec', path.join(FIXTURES, 'profile-limits.yaml'), '--out', makeTempDir(), '--quiet']);
    expect(run.status).to.equal(0);
    const stderr = lines(run.stderr);
    expect(stderr).to.have.length(2);
    expect(stderr.every((line) => line.startsWith('warning: ') && line.endsWith('[PROFILE_EXCLUDED]'))).to.equal(true);
    expect(run.stdout).to.match(/^generated 3 tools/);
  });

  const failures: readonly { name: string; args: string[]; failed: string; error: RegExp }[] = [
    { name: 'arguments of no value under --strict', args: ['--spec', path.join(FIXTURES, 'empty-enum.yaml'), '--strict'], failed: 'check', error: /\[EMPTY_ENUM; not allowed with --strict\]$/ },
    { name: 'a tool a profile cannot represent under --strict', args: ['--spec', path.join(FIXTURES, 'profile-limits.yaml'), '--strict'], failed: 'check', error: /\[PROFILE_EXCLUDED; not allowed with --strict\]$/ },
    { name: 'dangling references', args: ['--spec', path.join(FIXTURES, 'dangling-refs/openapi.yaml')], failed: 'load', error: /does not exist$/ },
  ];
  for (const failure of failures) {
    it(`${failure.name}: reported before any format, type-check or write phase`, () => {
      const run = runCli([...failure.args, '--out', makeTempDir()]);
      expect(run.status).to.equal(1);
      const stderr = lines(run.stderr);
      const firstError = stderr.findIndex((line) => line.startsWith('error: '));
      expect(firstError, run.stderr).to.be.greaterThan(0);
      expect(stderr[firstError - 1]).to.equal(`phase ${failure.failed}: failed`);
      // The errors, then the summary of what the run had found (a failed run is summarized too).
      expect(stderr.at(-1), run.stderr).to.match(SUMMARY);
      expect(stderr.slice(firstError, -1).every((line) => line.startsWith('error: ') && failure.error.test(line)), run.stderr).to.equal(true);
      expect(stderr.filter((line) => EXPENSIVE.test(line))).to.deep.equal([]);
      expect(run.stdout).to.equal('');
    });
  }

  it('a run that fails after warnings were found prints them, the error and the summary', () => {
    const blocked = path.join(makeTempDir(), 'a-file');
    writeFileSync(blocked, '');
    const run = runCli(['--spec', path.join(FIXTURES, 'profile-limits.yaml'), '--out', path.join(blocked, 'generated')]);
    expect(run.status).to.equal(1);
    const stderr = lines(run.stderr);
    expect(stderr.filter((line) => line.startsWith('warning: ') && line.endsWith('[PROFILE_EXCLUDED]')), run.stderr).to.have.length(2);
    expect(stderr.indexOf('phase write: failed'), run.stderr).to.be.greaterThan(0);
    expect(stderr.at(-2), run.stderr).to.match(/^error: /);
    expect(SUMMARY.exec(stderr.at(-1)!)?.slice(1, 4), run.stderr).to.deep.equal(['3', '3', '2']);
    const quiet = lines(runCli(['--spec', path.join(FIXTURES, 'profile-limits.yaml'), '--out', path.join(blocked, 'generated'), '--quiet']).stderr);
    expect(quiet.filter((line) => line.startsWith('warning: ')), quiet.join('\n')).to.have.length(2);
    expect(quiet.at(-1)).to.match(/^error: /);
  });

  it('on a terminal, rewrites the phase line in place as it goes and ends it with its counts', async () => {
    let text = '';
    const progress = createProgress({ isTTY: true, write: (chunk) => { text += chunk; } });
    await progress.phase('check', (update) => { update('3/7 tools'); return 7; }, (tools) => `${tools} tools`);
    expect(text).to.match(/^phase check …\r\x1b\[Kphase check: 3\/7 tools …\r\x1b\[Kphase check: 7 tools \(\d+\.\d\d s\)\n$/);
  });
});
