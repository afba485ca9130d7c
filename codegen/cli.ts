/**
 * `npm run generate [-- --spec <file>] [--out <dir>] [--handlers <dir>] [--check] [--strict] [--no-type-check]`:
 * regenerates generated/ from the OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1), or with
 * --check verifies it is current. Tolerated constructs are printed as `warning: <file>#<pointer>:
 * <message> [RULE]`; `--strict` (CI, on our own contract) makes each of them an error. The
 * handler modules (`--handlers`, by default `src/api/operations` when `--out` is the default
 * `generated`) are checked against the operations and listed in `handlers.gen.ts`. Prints errors
 * as `error: <file>#<pointer>: <message>` (one line each) and exits 1, never with a stack trace.
 * `--check` also prints the tool-surface change report against a base (`--base <rev>`, `--format`,
 * `--report-file`, `--fail-on breaking`: codegen/surface/cli-report.ts).
 */
import { parseArgs } from 'node:util';
import { CodegenError, formatWarning } from './errors.js';
import { generate } from './generate.js';
import { checkOutput, writeOutput } from './emit/write.js';
import { reportGenerated, SURFACE_OPTIONS } from './surface/cli-report.js';

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
      ...SURFACE_OPTIONS,
    },
    strict: true,
  });
  const started = performance.now();
  const out = values.out ?? DEFAULT_OUT;
  const handlersDir = values.handlers ?? (values.out === undefined ? DEFAULT_HANDLERS : undefined);
  const { plan, files, warnings } = await generate(values.spec, {
    typeCheck: !values['no-type-check'],
    strict: values.strict,
    ...(handlersDir === undefined ? {} : { handlers: { dir: handlersDir, outDir: out } }),
  });
  for (const warning of warnings) process.stderr.write(`warning: ${formatWarning(warning)}\n`);
  for (const skipped of plan.skipped) process.stderr.write(`note: ${skipped} skipped (method not served)\n`);
  const elapsed = `${Math.round(performance.now() - started)} ms`;
  if (values.check) {
    const surfaceFailed = reportGenerated(values, out, files);
    const { changed, missing, extra } = checkOutput(out, files);
    const problems = [...changed.map((f) => `changed: ${f}`), ...missing.map((f) => `missing: ${f}`), ...extra.map((f) => `extra: ${f}`)];
    if (problems.length > 0) {
      process.stderr.write(`${out} is stale (run npm run generate):\n  ${problems.join('\n  ')}\n`);
      return 1;
    }
    process.stdout.write(`${out} is up to date: ${plan.tools.length} tools, ${plan.routes.length} routes (${elapsed})\n`);
    return surfaceFailed ? 1 : 0;
  }
  const { written, removed } = writeOutput(out, files);
  process.stdout.write(`generated ${plan.tools.length} tools, ${plan.routes.length} routes, ${plan.resourceTemplates.length} resource templates into ${out} (${written} written, ${removed} removed, ${elapsed})\n`);
  return 0;
}

runCli(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error: unknown) => {
    if (error instanceof CodegenError) process.stderr.write(`error: ${error.message}\n`);
    else if (error instanceof AggregateError) for (const each of error.errors) process.stderr.write(`error: ${each instanceof Error ? each.message : String(each)}\n`);
    else process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
