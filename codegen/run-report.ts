/**
 * What the CLI prints about a run besides its progress lines (progress.ts): the warnings, once,
 * and the summary line, once (unless `--quiet`) — on success after the write phase, and on
 * failure too, with what the run had found by then (GenerateOptions `onFound`: none before the
 * plan), after the `error:` lines. Warnings that `--strict` turned into the errors are not
 * printed twice.
 */
import { CodegenError, formatWarning } from './errors.js';
import type { Found } from './generate.js';
import { summaryLine } from './progress.js';

const NOTHING_FOUND: Found = { operations: 0, tools: 0, warnings: [] };

export class RunReport {
  private found = NOTHING_FOUND;
  private warningsPrinted = false;
  private summarized = false;

  constructor(private readonly quiet: boolean, private readonly write: (text: string) => void = (text) => process.stderr.write(text)) {}

  readonly record = (found: Found): void => { this.found = found; };

  printWarnings(): void {
    if (this.warningsPrinted) return;
    this.warningsPrinted = true;
    for (const warning of this.found.warnings) this.write(`warning: ${formatWarning(warning)}\n`);
  }

  summarize(): void {
    if (this.quiet || this.summarized) return;
    this.summarized = true;
    this.write(`${summaryLine(this.found.operations, this.found.tools, this.found.warnings.length)}\n`);
  }

  /** A failed run: its warnings (unless they are the errors), the `error:` lines, the summary. */
  fail(error: unknown): void {
    if (!isStrictFailure(error)) this.printWarnings();
    for (const line of errorLines(error, this.quiet)) this.write(`error: ${line}\n`);
    this.summarize();
  }
}

function isStrictFailure(error: unknown): boolean {
  const errors = error instanceof AggregateError ? error.errors : [error];
  return errors.length > 0 && errors.every((each) => each instanceof CodegenError && each.code === 'STRICT');
}

function errorLines(error: unknown, quiet: boolean): string[] {
  if (error instanceof AggregateError) return error.errors.map((each) => (each instanceof Error ? each.message : String(each)));
  // A schema nested thousands of levels deep exhausts the stack in a recursive step; say what that means.
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return [`the document nests deeper than the generator can follow (${error.message})${quiet ? '' : '; the phase that failed is named above'}`];
  }
  return [error instanceof Error ? error.message : String(error)];
}
