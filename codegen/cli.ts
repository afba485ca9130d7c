/**
 * `npm run generate [-- --spec <file>] [--out <dir>] [--handlers <dir>] [--check] [--strict] [--no-type-check] [--quiet]`:
 * regenerates generated/ from the OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1), or with
 * --check verifies it is current. Tolerated constructs are printed as `warning: <file>#<pointer>:
 * <message> [RULE]`; `--strict` (CI, on our own contract) makes each of them an error. The
 * handler modules (`--handlers`, by default `src/api/operations` when `--out` is the default
 * `generated`) are checked against the operations and listed in `handlers.gen.ts`. Prints errors
 * as `error: <file>#<pointer>: <message>` (one line each) and exits 1, never with a stack trace.
 * The phases and a summary line go to stderr (progress.ts), unless `--quiet`.
 * It also prints the tool-surface change report against a base (`--base <rev>`, `--format`,
 * `--report-file`, `--fail-on breaking`: codegen/surface/cli-report.ts), the base read before writing.
 */
import { parseArgs } from 'node:util';
import { generate, type GenerateResult } from './generate.js';
import { checkOutput, writeOutput } from './emit/write.js';
import { count, createProgress, silentProgress, type Progress } from './progress.js';
import { RunReport } from './run-report.js';
import { prepareGeneratedReport, SURFACE_OPTIONS } from './surface/cli-report.js';

const DEFAULT_OUT = 'generated';
const DEFAULT_HANDLERS = 'src/api/operations';

async function runCli(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      spec: { type: 'string', default: 'openapi/v1.yaml' },
      out: { type: 'string' },
      handlers: { type: 'string' },
      check: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      'no-type-check': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      ...SURFACE_OPTIONS,
    },
    strict: true,
  });
  const started = performance.now();
  const out = values.out ?? DEFAULT_OUT;
  const handlersDir = values.handlers ?? (values.out === undefined ? DEFAULT_HANDLERS : undefined);
  const progress = values.quiet ? silentProgress : createProgress({ write: (text) => process.stderr.write(text), isTTY: process.stderr.isTTY === true });
  // Warnings and the summary are printed on failure too (run-report.ts).
  const report = new RunReport(values.quiet);
  try {
    const result = await generate(values.spec, {
      typeCheck: !values['no-type-check'],
      strict: values.strict,
      progress,
      onFound: report.record,
      ...(handlersDir === undefined ? {} : { handlers: { dir: handlersDir, outDir: out } }),
    });
    report.printWarnings();
    for (const skipped of result.plan.skipped) process.stderr.write(`note: ${skipped} skipped (method not served)\n`);
    // After the write phase, so that its CPU and memory count too.
    const summarize = (): void => report.summarize();
    // The base is read before anything is written (the copy on disk may be it).
    const printSurfaceReport = prepareGeneratedReport(values, out, result.files);
    if (!values.check) return await write(out, result, progress, started, summarize).then((written) => (printSurfaceReport() ? 1 : written));
    const surfaceFailed = printSurfaceReport();
    const stale = await compare(out, result, progress, started, summarize);
    return stale === 0 && surfaceFailed ? 1 : stale;
  } catch (error) {
    report.fail(error);
    return 1;
  }
}

const elapsedSince = (started: number): string => `${Math.round(performance.now() - started)} ms`;

/** `--check`: the write phase compares instead (exit 1 when anything differs). */
async function compare(out: string, { plan, files }: GenerateResult, progress: Progress, started: number, summarize: () => void): Promise<number> {
  const { changed, missing, extra } = await progress.phase('write', () => checkOutput(out, files),
    (result) => `${count(files.size, 'file')} compared, ${result.changed.length + result.missing.length + result.extra.length} differ`);
  summarize();
  const problems = [...changed.map((f) => `changed: ${f}`), ...missing.map((f) => `missing: ${f}`), ...extra.map((f) => `extra: ${f}`)];
  if (problems.length > 0) {
    process.stderr.write(`${out} is stale (run npm run generate):\n  ${problems.join('\n  ')}\n`);
    return 1;
  }
  process.stdout.write(`${out} is up to date: ${plan.tools.length} tools, ${plan.routes.length} routes (${elapsedSince(started)})\n`);
  return 0;
}

async function write(out: string, { plan, files }: GenerateResult, progress: Progress, started: number, summarize: () => void): Promise<number> {
  const { written, removed } = await progress.phase('write', () => writeOutput(out, files), (result) => `${result.written} written, ${result.removed} removed`);
  summarize();
  process.stdout.write(`generated ${plan.tools.length} tools, ${plan.routes.length} routes, ${plan.resourceTemplates.length} resource templates into ${out} (${written} written, ${removed} removed, ${elapsedSince(started)})\n`);
  return 0;
}

runCli(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  // Before the run starts (a bad option): nothing to report but the error.
  (error: unknown) => {
    new RunReport(true).fail(error);
    process.exitCode = 1;
  },
);
