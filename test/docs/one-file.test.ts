/**
 * `npm test -- <file>` runs that file alone (one file, several, or a glob), and `npm test` with no
 * file the whole suite: docs/testing.md#running-tests. .mocharc.cjs takes its `spec` from
 * scripts/mocha-spec.cjs, which reads mocha's command line. One run of the real command proves the
 * wiring (mocha's --dry-run: the files load, no test runs); the cases of the command line run
 * in-process.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect } from 'chai';
import { PACKAGE_ROOT } from '../../src/package-root.js';

const require = createRequire(import.meta.url);
const { SUITE, positionalArguments, specFor } = require('../../scripts/mocha-spec.cjs') as {
  SUITE: string[];
  positionalArguments: (args: string[]) => string[];
  specFor: (args: string[]) => string[];
};

interface DryRun { stats: { tests: number }; tests: { file: string }[] }

/** `npm test -- --dry-run --reporter json <args>`: the tests mocha would run, with their files. */
function dryRun(args: string[]): DryRun {
  const run = spawnSync('npm', ['test', '--silent', '--', '--dry-run', '--reporter', 'json', ...args], { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(run.status, run.stderr).to.equal(0);
  return JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as DryRun;
}

describe('npm test -- <file> runs that file alone', function () {
  this.timeout(60_000);

  it('npm test -- test/api/money.test.ts test/codegen/naming.test.ts loads those two files and nothing else', () => {
    const run = dryRun(['test/api/money.test.ts', 'test/codegen/naming.test.ts']);
    expect(run.tests).to.not.be.empty;
    const files = new Set(run.tests.map((test) => path.relative(PACKAGE_ROOT, test.file)));
    expect([...files].sort()).to.deep.equal(['test/api/money.test.ts', 'test/codegen/naming.test.ts']);
    expect(run.stats.tests).to.equal(run.tests.length);
  });

  it('the whole suite when the command line names no file, whatever flags it has', () => {
    expect(specFor([])).to.deep.equal(SUITE);
    expect(SUITE).to.deep.equal(['test/**/*.test.ts']);
    expect(specFor(['--grep', 'money', '-R', 'dot', '--timeout', '60000', '--exit', '-n', 'expose-gc', '--bail'])).to.deep.equal(SUITE);
    expect(specFor(['--grep=money', '--require=test/helpers/root-hooks.ts', '--no-diff', '--dry-run'])).to.deep.equal(SUITE);
  });

  it('no spec of its own when the command line names files, folders or globs', () => {
    expect(specFor(['test/api/money.test.ts'])).to.deep.equal([]);
    expect(specFor(['--grep', 'x', 'test/api/*.test.ts', '--bail'])).to.deep.equal([]);
    expect(specFor(['--', '-odd-name.test.ts'])).to.deep.equal([]);
    expect(positionalArguments(['-r', 'a.ts', 'b.test.ts', '--reporter-option', 'k=v', 'test/x', '--inspect', 'c.test.ts']))
      .to.deep.equal(['b.test.ts', 'test/x', 'c.test.ts']);
  });
});
