/**
 * `npm run surface:diff -- <base> [<head>] [--out generated] [--format text|markdown|json] [--fail-on breaking] [--report-file f]`:
 * the tool-surface change report between two sides, each a git revision (its committed `--out`
 * folder), a folder holding tools-list.gen.json (and tools-review.gen.json), or one of those two
 * files. Without `<head>`, the `--out` folder on disk. Exits 1 when `--fail-on breaking` finds an
 * unacknowledged breaking change, or on an error (one `error:` line).
 */
import { parseArgs } from 'node:util';
import { readPath, readSide } from './base.js';
import { printReport, readSettings, SURFACE_OPTIONS } from './cli-report.js';

function run(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...SURFACE_OPTIONS, out: { type: 'string', default: 'generated' } },
    allowPositionals: true,
    strict: true,
  });
  if (values.base !== undefined) throw new Error('surface:diff takes the base as its first argument, not --base');
  if (positionals.length < 1 || positionals.length > 2) throw new Error('usage: npm run surface:diff -- <base> [<head>] (a revision, a folder, or tools-list.gen.json / tools-review.gen.json)');
  const settings = readSettings(values);
  const [baseName, headName] = positionals as [string, string | undefined];
  const base = readSide(baseName, values.out);
  const head = headName === undefined ? readPath(values.out) : readSide(headName, values.out);
  return printReport(base, head, settings) ? 1 : 0;
}

try {
  process.exitCode = run(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
