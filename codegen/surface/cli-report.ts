/**
 * The change report's part of the command line, shared by `npm run generate` (cli.ts) and
 * `npm run surface:diff` (diff-cli.ts): its flags, and printing the report of two sides. `--fail-on
 * breaking` makes an unacknowledged breaking change fail the command.
 *
 *   --base <rev>           compare with this revision's generated/, both files there and readable, else an error
 *                          (default: the merge base with main, else the copy on disk, the report saying why)
 *   --format text|markdown|json
 *   --report-file <file>   write the report there (e.g. a pull-request comment) and print only its summary
 *   --fail-on breaking
 */
import { writeFileSync } from 'node:fs';
import { findDefaultBase, readGenerated, readNamedRevision } from './base.js';
import { compareSurfaces, hasUnacknowledgedBreaks } from './diff.js';
import { formatReport, REPORT_FORMATS, summarize, type ReportFormat } from './format.js';
import type { Surface } from './surface.js';

export const SURFACE_OPTIONS = {
  base: { type: 'string' },
  format: { type: 'string', default: 'text' },
  'report-file': { type: 'string' },
  'fail-on': { type: 'string' },
} as const;

export interface SurfaceFlags {
  readonly base?: string | undefined;
  readonly format?: string | undefined;
  readonly 'report-file'?: string | undefined;
  readonly 'fail-on'?: string | undefined;
}

export const FAIL_ON = ['breaking'] as const;

export interface ReportSettings {
  readonly format: ReportFormat;
  readonly reportFile: string | undefined;
  readonly failOnBreaking: boolean;
}

/** The flags checked (an unknown format or --fail-on value is an error naming what is accepted). */
export function readSettings(flags: SurfaceFlags): ReportSettings {
  const format = flags.format ?? 'text';
  if (!(REPORT_FORMATS as readonly string[]).includes(format)) throw new Error(`--format must be one of ${REPORT_FORMATS.join(', ')}, not ${JSON.stringify(format)}`);
  const failOn = flags['fail-on'];
  if (failOn !== undefined && !(FAIL_ON as readonly string[]).includes(failOn)) throw new Error(`--fail-on must be ${FAIL_ON.join(' or ')}, not ${JSON.stringify(failOn)}`);
  return { format: format as ReportFormat, reportFile: flags['report-file'], failOnBreaking: failOn === 'breaking' };
}

/** Prints (or writes) the report of `base` → `head`; true when `--fail-on breaking` fails it. */
export function printReport(base: Surface, head: Surface, settings: ReportSettings): boolean {
  const report = compareSurfaces(base, head);
  const failed = settings.failOnBreaking && hasUnacknowledgedBreaks(report);
  const verdict = failed ? ' — unacknowledged breaking changes (--fail-on breaking; acknowledge with x-mcp.breaking)' : '';
  if (settings.reportFile !== undefined) {
    writeFileSync(settings.reportFile, formatReport(report, settings.format));
    process.stdout.write(`tool surface, ${report.base} → ${report.head}: ${summarize(report)} (report in ${settings.reportFile})${verdict}\n`);
  } else {
    process.stdout.write(formatReport(report, settings.format));
    if (failed) process.stderr.write(`tool surface:${verdict.slice(2)}\n`);
  }
  return failed;
}

/**
 * `generate`: the report of the generated files against the base, the base read now (before the write
 * phase replaces the copy on disk) and printed by the returned function, which is true when the report fails the run.
 */
export function prepareGeneratedReport(flags: SurfaceFlags, out: string, files: ReadonlyMap<string, string>): () => boolean {
  const settings = readSettings(flags);
  const base = flags.base === undefined ? findDefaultBase(out) : readNamedRevision(flags.base, out);
  const head = readGenerated('generated now', files);
  return () => {
    if (base !== undefined) return printReport(base, head, settings);
    process.stdout.write(`tool surface: nothing to compare with (no ${out}/tools-list.gen.json at the merge base with main or on disk)\n`);
    return false;
  };
}
