/**
 * One corpus document through the generator as CI runs it — `node --import tsx codegen/cli.ts
 * --spec <document> --out <dir>`, no flags, in a child process — and the checks of what it wrote:
 * every `inputSchema` compiles with the runtime's ajv, every profile file passes its checker.
 * Peak RSS and CPU come from a preload (record-resource-usage.mjs), not from the generator.
 * Shared by test/codegen/corpus.test.ts and scripts/soak-corpus.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createAjv } from '../../src/api/validation.js';
import { checkGeminiSafe, checkOpenAiStrict } from '../../codegen/profile-checkers.js';
import { corpusFile, type CorpusDocument } from './corpus.js';
import { REPO_ROOT } from './support.js';

/** CI's guard (issue 28): no corpus document may take more than 1 GB. */
export const MAX_RSS_MB = 1024;

const PRELOAD = path.join(REPO_ROOT, 'test/codegen/record-resource-usage.mjs');
const PROFILE_CHECKERS = {
  'tools-input.openai.gen.json': checkOpenAiStrict,
  'tools-input.gemini.gen.json': checkGeminiSafe,
} as const;

export interface CorpusRun {
  readonly status: number | null;
  /** The CLI's `error:` lines (or its whole stderr when it has none and failed). */
  readonly errors: readonly string[];
  readonly cpuSeconds: number;
  readonly maxRssMb: number;
  readonly wallSeconds: number;
}

export function runCorpusDocument(document: CorpusDocument, outDir: string): CorpusRun {
  const usageFile = `${outDir}.usage.json`;
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', PRELOAD, '--import', 'tsx', 'codegen/cli.ts', '--spec', corpusFile(document), '--out', outDir], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '', KOBANA_RESOURCE_USAGE_FILE: usageFile },
    maxBuffer: 64 * 1024 * 1024,
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const usage = existsSync(usageFile) ? JSON.parse(readFileSync(usageFile, 'utf8')) as { maxRssKb: number; cpuMicroseconds: number } : undefined;
  const errorLines = run.stderr.split('\n').filter((line) => line.startsWith('error:'));
  return {
    status: run.status,
    errors: errorLines.length > 0 || run.status === 0 ? errorLines : [run.stderr.trim() || `exited by ${run.signal ?? 'unknown'}`],
    cpuSeconds: usage ? usage.cpuMicroseconds / 1e6 : NaN,
    maxRssMb: usage ? usage.maxRssKb / 1024 : NaN,
    wallSeconds,
  };
}

export interface OutputCheck {
  readonly tools: number;
  /** One line per inputSchema that does not compile and per profile checker's rejection. */
  readonly problems: readonly string[];
}

interface ListedTool { readonly name: string; readonly inputSchema: object }

const readTools = (outDir: string, file: string): ListedTool[] => JSON.parse(readFileSync(path.join(outDir, file), 'utf8')) as ListedTool[];

export function checkCorpusOutput(outDir: string): OutputCheck {
  const tools = readTools(outDir, 'tools-list.gen.json');
  const problems: string[] = [];
  const ajv = createAjv();
  // ajv warns on the console at every use of a format it does not know (`uint32`,
  // `e164_phone_number`: legal in OpenAPI, ignored by the runtime as by ajv); silenced here, so a
  // run over a whole API does not print hundreds of lines. Any other warning is printed.
  const warn = console.warn;
  console.warn = (message: unknown, ...rest: unknown[]) => {
    if (!/^unknown format ".*" ignored/.test(String(message))) warn(message, ...rest);
  };
  try {
    for (const tool of tools) {
      try {
        ajv.compile(tool.inputSchema);
      } catch (error) {
        problems.push(`${tool.name}: the inputSchema does not compile: ${(error as Error).message}`);
      }
    }
  } finally {
    console.warn = warn;
  }
  for (const [file, check] of Object.entries(PROFILE_CHECKERS)) {
    for (const tool of readTools(outDir, file)) problems.push(...check(tool.name, tool.inputSchema).map((problem) => `${file}: ${tool.name}: ${problem}`));
  }
  return { tools: tools.length, problems };
}

/**
 * Everything wrong with a successful run, at once (a run over 1,000 tools is too slow to fix one
 * problem at a time): a tool count other than the document's operations minus its exclusions,
 * the output's problems, peak RSS over the guard.
 */
export function corpusFailures(document: CorpusDocument, outDir: string, run: CorpusRun): string[] {
  const check = checkCorpusOutput(outDir);
  const tools = document.operations - Object.keys(document.excluded).length;
  return [
    ...(check.tools === tools ? [] : [`${check.tools} tools, not ${tools}`]),
    ...check.problems,
    ...(run.maxRssMb <= MAX_RSS_MB ? [] : [`peak RSS ${run.maxRssMb.toFixed(0)} MB, over ${MAX_RSS_MB} MB`]),
  ];
}

/** The first `limit` lines and how many more: a run over 1,000 tools can have thousands. */
export function summarize(lines: readonly string[], limit = 12): string {
  const shown = lines.slice(0, limit).join('\n  ');
  return lines.length > limit ? `  ${shown}\n  … and ${lines.length - limit} more` : `  ${shown}`;
}
