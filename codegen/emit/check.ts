/**
 * Formats rendered files with the TypeScript formatter bundled in ts-morph and type-checks them
 * against src/runtime/types.ts in an in-memory ts-morph Project, so a generator bug fails the
 * build instead of the app. Writing to disk is write.ts's job.
 */
import { readFileSync } from 'node:fs';
import type { ts as TypeScript } from 'ts-morph';
import { CodegenError } from '../errors.js';

const ROOT = '/project';
const OUT = `${ROOT}/generated`;
const TYPES_PATH = `${ROOT}/src/runtime/types.ts`;
const MINIMAL_LIB_PATH = `${ROOT}/minimal-lib.d.ts`;
/**
 * Generated modules are data (object and array literals) typed by src/runtime/types.ts, which uses
 * no library types; the standard lib would cost more to load than all the checking. Arrays keep a
 * typed index signature so element types are still checked (`readonly FilterOperator[]`).
 */
const MINIMAL_LIB = [
  'interface Array<T> { length: number; [n: number]: T }',
  'interface ReadonlyArray<T> { readonly length: number; readonly [n: number]: T }',
  'interface Boolean {}', 'interface Function {}', 'interface CallableFunction {}', 'interface NewableFunction {}',
  'interface IArguments {}', 'interface Number {}', 'interface Object {}', 'interface RegExp {}', 'interface String {}',
].join('\n');

type TsMorph = typeof import('ts-morph');

/** ts-morph bundles a whole TypeScript compiler; loaded only when there is output to check. */
async function loadTsMorph(): Promise<TsMorph> {
  return import('ts-morph');
}

/** Formats every file (the format phase of generate). Returns path → formatted text. */
export async function formatOutput(files: ReadonlyMap<string, string>): Promise<Map<string, string>> {
  return formatFiles(await loadTsMorph(), files);
}

/** Type-checks the files but the `unchecked` ones (the type-check phase of generate); throws TYPE_CHECK. */
export async function typeCheckOutput(files: ReadonlyMap<string, string>, options: { specFile: string; unchecked?: ReadonlySet<string> }): Promise<void> {
  const unchecked = options.unchecked ?? new Set<string>();
  assertTypeChecks(await loadTsMorph(), new Map([...files].filter(([relative]) => !unchecked.has(relative))), options.specFile);
}

/**
 * Formatting needs only syntax trees, so a syntactic-mode language service is used: ts-morph's
 * per-file `formatText()` re-wraps every node and was about 3× slower on a 2,000-operation spec.
 */
function formatFiles({ ts }: TsMorph, files: ReadonlyMap<string, string>): Map<string, string> {
  const settings: TypeScript.FormatCodeSettings = { ...ts.getDefaultFormatCodeSettings('\n'), indentSize: 2, tabSize: 2, convertTabsToSpaces: true };
  const texts = new Map<string, string>();
  for (const [relative, text] of files) texts.set(`${OUT}/${relative}`, text.endsWith('\n') ? text : text + '\n');
  const host: TypeScript.LanguageServiceHost = {
    getCompilationSettings: () => ({}),
    getScriptFileNames: () => [],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => {
      const text = texts.get(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => ROOT,
    getDefaultLibFileName: () => 'lib.d.ts',
    fileExists: (name) => texts.has(name),
    readFile: (name) => texts.get(name),
  };
  const service = ts.createLanguageService(host, ts.createDocumentRegistry(), ts.LanguageServiceMode.Syntactic);
  const formatted = new Map<string, string>();
  for (const relative of files.keys()) {
    const name = `${OUT}/${relative}`;
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

/**
 * Compiles the output in memory against the real runtime types; any diagnostic fails the build.
 * The minimal lib is tried first; diagnostics are only reported when the standard lib confirms
 * them (so a library type added to types.ts later costs time, never a false failure).
 */
export function assertTypeChecks(morph: TsMorph, files: ReadonlyMap<string, string>, specFile: string): void {
  if (collectDiagnostics(morph, files, 'minimal').length === 0) return;
  const diagnostics = collectDiagnostics(morph, files, 'standard');
  if (diagnostics.length === 0) return;
  throw new CodegenError('TYPE_CHECK', specFile, '#', `generated code does not type-check (${diagnostics.length} errors):\n  ${diagnostics.slice(0, 5).join('\n  ')}`);
}

function collectDiagnostics({ Project, ts }: TsMorph, files: ReadonlyMap<string, string>, lib: 'minimal' | 'standard'): string[] {
  const project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
      types: [],
      ...(lib === 'minimal' ? { noLib: true } : { lib: ['lib.es2022.d.ts'] }),
    },
  });
  project.getFileSystem().writeFileSync(`${ROOT}/package.json`, '{"type":"module"}');
  if (lib === 'minimal') project.createSourceFile(MINIMAL_LIB_PATH, MINIMAL_LIB);
  project.createSourceFile(TYPES_PATH, readFileSync(new URL('../../src/runtime/types.ts', import.meta.url), 'utf8'));
  for (const [relative, text] of files) project.createSourceFile(`${OUT}/${relative}`, text, { overwrite: true });
  return project.getPreEmitDiagnostics().map((d) => {
    const where = d.getSourceFile()?.getFilePath().replace(`${ROOT}/`, '') ?? '?';
    const message = ts.flattenDiagnosticMessageText(d.getMessageText() as never, '\n').split('\n')[0];
    return `${where}:${d.getLineNumber() ?? 0}: ${message}`;
  });
}
