/**
 * Where a long run is (docs/generator.md#phases): the generator's phases — load, plan, render,
 * check, format, type-check, write — reported on stderr. On a terminal each phase's line is
 * rewritten in place as it goes (with its counts); without one (CI) exactly one line per phase
 * when it ends, `phase plan: 79 operations, 77 tools (0.31 s)`, or `phase check: failed` before
 * the `error:` lines; then one summary line other tools parse:
 *
 *   summary: <N> operations, <N> tools, <N> warnings, <x.xx> s CPU, <N> MB peak RSS
 *
 * `silentProgress` (the CLI's --quiet, and callers of generate() as a library) says nothing.
 */

export type PhaseName = 'load' | 'plan' | 'render' | 'check' | 'format' | 'type-check' | 'write';

export interface Progress {
  /** Runs one phase: `counts` says what it did, for its line (`79 operations, 77 tools`). */
  phase<T>(name: PhaseName, run: (update: (counts: string) => void) => Promise<T> | T, counts: (result: T) => string): Promise<T>;
}

export const silentProgress: Progress = {
  async phase(_name, run) {
    return run(() => {});
  },
};

export interface ProgressOutput {
  write(text: string): void;
  /** A terminal: lines are rewritten in place. */
  readonly isTTY: boolean;
}

/** `3 files`, `1 document`. */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
/** Moves to the start of the line and clears it. */
const REWRITE = '\r\x1b[K';

export function createProgress(output: ProgressOutput): Progress {
  return {
    async phase(name, run, counts) {
      const started = performance.now();
      const update = output.isTTY ? (said: string) => output.write(`${REWRITE}phase ${name}: ${said} …`) : () => {};
      if (output.isTTY) output.write(`phase ${name} …`);
      let result: Awaited<ReturnType<typeof run>>;
      try {
        result = await run(update);
      } catch (error) {
        output.write(`${output.isTTY ? REWRITE : ''}phase ${name}: failed\n`);
        throw error;
      }
      output.write(`${output.isTTY ? REWRITE : ''}phase ${name}: ${counts(result)} (${seconds(performance.now() - started)})\n`);
      return result;
    },
  };
}

/**
 * The summary line: this process's own CPU (user + system; not the type-check's `tsc` child) and
 * peak resident memory. The format stays as above (docs/generator.md#phases).
 */
export function summaryLine(operations: number, tools: number, warnings: number): string {
  const cpu = process.cpuUsage();
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  // maxRSS is in kilobytes.
  const peakMb = Math.round(process.resourceUsage().maxRSS / 1024);
  return `summary: ${operations} operations, ${tools} tools, ${warnings} warnings, ${cpuSeconds.toFixed(2)} s CPU, ${peakMb} MB peak RSS`;
}
