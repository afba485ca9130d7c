/**
 * The spec files of a mocha run, for .mocharc.cjs: the whole suite when the command line names no
 * file, none when it names some. Mocha adds a config file's `spec` to the files named on the
 * command line, so a fixed `spec` made `npm test -- test/x.test.ts` (and `npx mocha
 * test/x.test.ts`) run the whole suite with that file in it.
 *
 * A file is a positional argument: one that is not a flag and not the value of a flag that takes
 * one (`--grep x`, `-r x`, `--timeout 60000`), as mocha's own option table says
 * (`expectedTypeForFlag`: boolean flags and node's flags take no separate value). Everything after
 * `--` is positional.
 */
'use strict';

const { expectedTypeForFlag } = require('mocha/lib/cli/run-option-metadata.cjs');

/** The whole suite, as `npm test` (and `.ci/run`) runs it. */
const SUITE = ['test/**/*.test.ts'];

/** Whether `flag` (`--grep`, `-g`; no `=value`) is followed by its value as a separate argument. */
function takesValue(flag) {
  const type = expectedTypeForFlag(flag);
  return type !== undefined && type !== 'boolean';
}

/** The positional arguments of mocha's command line `args` (process.argv without node and mocha). */
function positionalArguments(args) {
  const positional = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (arg === '--') return positional.concat(args.slice(i + 1));
    if (!arg.startsWith('-') || arg === '-') positional.push(arg);
    else if (!arg.includes('=') && takesValue(arg)) i += 1;
  }
  return positional;
}

/** `spec` for the config: SUITE unless `args` name files (or folders, or globs) of their own. */
function specFor(args) {
  return positionalArguments(args).length === 0 ? SUITE : [];
}

module.exports = { SUITE, positionalArguments, specFor };
