/**
 * Type-checks rendered files against the real runtime (src/runtime) with the project's TypeScript
 * compiler, so a generator bug fails the build instead of the app; and formats TypeScript text
 * with the formatter bundled in ts-morph, for what a frame does not write formatted. Writing to
 * disk is write.ts's job.
 *
 * What is checked, and why not more: the frames, imports, identifiers, the registry and the
 * structure of the shared-schemas module are hand-shaped and can be wrong, so every operation
 * module, the registry and the shared-schemas module's frame are compiled. The data in them are
 * OperationDefinitions built by the planner's TypeScript (checked by `npm run typecheck`) and
 * written by json-text.ts, which refuses any value JSON cannot carry; the schemas are typed
 * JsonSchema, which every JSON object is. So the shared schemas' literals — most of the bytes of a
 * large document — reach the check as `{}` but a sample (render.ts `typeChecked`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ts as TypeScript } from 'ts-morph';
import { CodegenError } from '../errors.js';

/** The repository: the checked files sit in a temporary `generated/` beside it (compilerOptions.rootDirs). */
const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const OUT = 'generated';

/** The options of tsconfig.json that bear on generated code; `types: ['node']` for the runtime's structuredClone. */
function tsconfig(): object {
  return {
    compilerOptions: {
      target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', lib: ['es2022'], strict: true,
      noUncheckedIndexedAccess: true, verbatimModuleSyntax: true, isolatedModules: true, skipLibCheck: true, noEmit: true,
      types: ['node'], typeRoots: [path.join(REPOSITORY, 'node_modules/@types')],
      // The files import '../src/runtime/…' as they will on disk: resolved in the repository.
      rootDirs: ['.', REPOSITORY],
    },
    include: [`${OUT}/**/*.ts`],
  };
}

export interface TypeCheckOptions {
  readonly specFile: string;
  readonly unchecked?: ReadonlySet<string>;
  /** The tsc script run with node; default the project's (tests give a stand-in that fails to run). */
  readonly tsc?: string;
}

/**
 * Compiles `files` (but the `unchecked` ones) with the project's `tsc` (TypeScript 7, native: a
 * tenth of a second for our contract, where the in-memory compiler of ts-morph took seconds and
 * its import alone 0.35 s). Any diagnostic fails the build, naming the first five; a tsc that
 * could not run (killed by a signal, its native binary missing, not started) is said as such —
 * nothing is known about the code then.
 */
export async function typeCheckOutput(files: ReadonlyMap<string, string>, options: TypeCheckOptions): Promise<void> {
  const checked = [...files].filter(([relative]) => relative.endsWith('.ts') && !options.unchecked?.has(relative));
  if (checked.length === 0) return;
  const dir = mkdtempSync(path.join(tmpdir(), 'kobana-codegen-check-'));
  try {
    writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig()));
    for (const [relative, text] of checked) {
      const target = path.join(dir, OUT, relative);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, text);
    }
    const run = await runTsc(options.tsc ?? projectTsc(), dir, ['-p', '.', '--pretty', 'false', '--singleThreaded']);
    if (run.code === 0) return;
    const diagnostics = run.output.split('\n').filter((line) => /error TS\d+/.test(line));
    if (diagnostics.length === 0) throw new CodegenError('TYPE_CHECK', options.specFile, '#', `the type-check could not run: tsc ${describeRun(run)}`);
    throw new CodegenError('TYPE_CHECK', options.specFile, '#', `generated code does not type-check (${diagnostics.length} errors):\n  ${diagnostics.slice(0, 5).join('\n  ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface TscRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Why it did not start, if it did not. */
  readonly error: Error | null;
  readonly output: string;
}

function projectTsc(): string {
  return path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');
}

/** Runs tsc in `cwd`, so the diagnostics name the files as `generated/…`. */
function runTsc(tsc: string, cwd: string, args: readonly string[]): Promise<TscRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.on('error', (error) => resolve({ code: null, signal: null, error, output }));
    child.on('close', (code, signal) => resolve({ code, signal, error: null, output }));
  });
}

/** A tsc run that gave no diagnostic: how it ended, and the first line it said. */
function describeRun(run: TscRun): string {
  if (run.error !== null) return `could not start (${run.error.message})`;
  const said = run.output.trim().split('\n')[0]?.trim();
  const ended = run.signal !== null ? `was killed by ${run.signal}` : `exited with code ${run.code}`;
  return said ? `${ended}: ${said}` : ended;
}

/**
 * Formats TypeScript text with a syntactic-mode language service (ts-morph's per-file
 * `formatText()` re-wraps every node and was about 3× slower). Nothing generate() renders needs
 * it — the frames and json-text.ts write formatted text, and test/codegen proves this formats
 * none of openapi/v1.yaml's files differently — so ts-morph is loaded only when this is called.
 */
export async function formatOutput(files: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  const { ts } = await import('ts-morph');
  const settings: TypeScript.FormatCodeSettings = { ...ts.getDefaultFormatCodeSettings('\n'), indentSize: 2, tabSize: 2, convertTabsToSpaces: true };
  const texts = new Map<string, string>();
  for (const [relative, text] of files) texts.set(`/${relative}`, text.endsWith('\n') ? text : text + '\n');
  const host: TypeScript.LanguageServiceHost = {
    getCompilationSettings: () => ({}),
    getScriptFileNames: () => [],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => {
      const text = texts.get(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => '/',
    getDefaultLibFileName: () => 'lib.d.ts',
    fileExists: (name) => texts.has(name),
    readFile: (name) => texts.get(name),
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry(), ts.LanguageServiceMode.Syntactic);
  const formatted = new Map<string, string>();
  for (const relative of files.keys()) {
    const name = `/${relative}`;
    const text = texts.get(name) ?? '';
    formatted.set(relative, applyEdits(text, service.getFormattingEditsForDocument(name, settings)));
  }
  service.dispose();
  return formatted;
}

/** Applies non-overlapping text edits, last first so earlier offsets stay valid. */
function applyEdits(text: string, edits: readonly TypeScript.TextChange[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.span.start - a.span.start)) {
    result = result.slice(0, edit.span.start) + edit.newText + result.slice(edit.span.start + edit.span.length);
  }
  return result;
}
