/**
 * The documents cite files and exported names that exist, and never line numbers (which drift with
 * every edit). Documents: README.md, openapi/README.md, docs/**\/*.md and the folder READMEs src/**\/README.md. The grammar
 * checked, which the documents follow:
 *
 * 1. A cited path is written from the repository root and starts with one of its folders —
 *    `src/`, `test/`, `codegen/`, `generated/`, `openapi/`, `scripts/`, `bench/`, `docs/`,
 *    `conformance/`, `.ci/` — at the start of a word (not after `/`, `.` or `-`, so `dist/src/…`
 *    and URL paths are not citations). It ends in a file extension (`src/api/execute.ts`) or in `/`
 *    (a folder, `src/mcp/tools/`). `*` matches within one folder, `**` across folders; a glob must
 *    match at least one file. A path must exist (tracked, or new and not ignored). Anchors
 *    (`docs/<file>.md#<heading>`) are test/docs.test.ts's to check. A code block's opening line is no
 *    citation: ```ts src/api/operations/x.ts names the file a guide's reader writes.
 * 2. A cited exported name is written right after its file, both in backticks, one space apart:
 *    `src/api/execute.ts` `createOperationService` — or several: `src/x.ts` `a`, `b`. A name may be
 *    `Name`, `Name()`, `Name(args)` or `Name.member`; `Name` must be exported by the file (`export function`,
 *    `export const`, `export class`, `export interface`, `export type`, `export enum`, an
 *    `export { … }` list, or through `export * from` a relative module), and `member` must occur in
 *    it. Only TypeScript and JavaScript files are read for names.
 * 3. No line numbers: no `file.ts:12`, `file.ts:12-34` or `` `:12` ``; cite the file and the name.
 *
 * Files move (that is when this test fails): fix the document, not the test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PACKAGE_ROOT } from '../../src/package-root.js';

const ROOTS = ['src', 'test', 'codegen', 'generated', 'openapi', 'scripts', 'bench', 'docs', 'conformance', '.ci'];
const EXTENSIONS = 'ts|js|mjs|cjs|json|ya?ml|md|sql|sh|hbs|txt|png';
const PATH_SOURCE = `(?:${ROOTS.map((root) => root.replace('.', '\\.')).join('|')})/(?:[\\w.*-]+/)*(?:[\\w.*-]+\\.(?:${EXTENSIONS})\\b|)`;
/** Rule 1: a path at the start of a word. */
const PATH = new RegExp(`(?<![\\w./-])${PATH_SOURCE}`, 'g');
/** Rule 2: `path` `name`, `name`… */
const NAMED = new RegExp(`\`(${PATH_SOURCE})\` ((?:\`[A-Za-z_$][\\w$]*(?:\\.[A-Za-z_$][\\w$]*)?(?:\\([^)\`]*\\))?\`(?:, )?)+)`, 'g');
const NAME = /`([A-Za-z_$][\w$]*)(?:\.([A-Za-z_$][\w$]*))?(?:\([^)`]*\))?`/g;
/** Rule 3. */
const LINE_NUMBER = new RegExp(`\\.(?:${EXTENSIONS}):\\d+|\`:\\d+(?:-\\d+)?\``);
/** A code block's opening line: ```ts src/api/operations/x.ts names a file the reader writes. */
const FENCE = /^\s*```/;
const FILE_EXTENSION = new RegExp(`^(?:${EXTENSIONS})$`);
const CODE_FILE = /\.(?:ts|js|mjs|cjs)$/;

export interface Citation { doc: string; line: number; text: string }

function listFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
  return out.split('\n').filter((file) => file !== '' && existsSync(path.join(PACKAGE_ROOT, file)));
}

function globToRegExp(glob: string): RegExp {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '(?:.*/)?');
  return new RegExp(`^${source}${glob.endsWith('/') ? '' : '$'}`);
}

/** Whether `cited` (a file, a folder ending in `/`, or a glob) names something among `files`. */
export function pathExists(cited: string, files: readonly string[]): boolean {
  if (!cited.includes('*') && !cited.endsWith('/')) return files.includes(cited);
  const pattern = globToRegExp(cited);
  return files.some((file) => pattern.test(file));
}

/** Every occurrence of `pattern` in `text`, with its line number; a code fence's line is no citation. */
function matchesByLine(text: string, pattern: RegExp): { match: RegExpMatchArray; line: number }[] {
  return text.split('\n').flatMap((line, index) => (FENCE.test(line) ? [] : [...line.matchAll(pattern)].map((match) => ({ match, line: index + 1 }))));
}

/** The names `source` exports, following `export * from './…'` through `readModule`. */
export function exportedNames(source: string, readModule: (specifier: string) => string | null, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(/^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|var|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm)) names.add(m[1] as string);
  for (const m of source.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const item of (m[1] as string).split(',')) {
      const alias = item.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop()?.trim();
      if (alias) names.add(alias);
    }
  }
  for (const m of source.matchAll(/^export\s+\*\s+from\s+['"](\.[^'"]+)['"]/gm)) {
    const specifier = m[1] as string;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    const module = readModule(specifier);
    if (module !== null) for (const name of exportedNames(module, readModule, seen)) names.add(name);
  }
  return names;
}

function readSource(file: string): string | null {
  const full = path.join(PACKAGE_ROOT, file);
  return existsSync(full) ? readFileSync(full, 'utf8') : null;
}

/** The module a relative specifier of `from` names: `./x.js` is `x.ts` in the sources. */
function readRelative(read: (file: string) => string | null, from: string, specifier: string): string | null {
  const target = path.posix.join(path.posix.dirname(from), specifier);
  return read(target.replace(/\.js$/, '.ts')) ?? read(target);
}

/** Rule 2's failures in one document: the name is not exported, or its member does not occur. */
export function findMissingNames(doc: string, text: string, read: (file: string) => string | null): Citation[] {
  const missing: Citation[] = [];
  for (const { match, line } of matchesByLine(text, NAMED)) {
    const file = match[1] as string;
    const source = CODE_FILE.test(file) ? read(file) : null;
    if (source === null) continue; // not code, or a missing file: rule 1 reports it
    const exported = exportedNames(source, (specifier) => readRelative(read, file, specifier));
    for (const name of (match[2] as string).matchAll(NAME)) {
      const [, head, member] = name;
      if (member !== undefined && FILE_EXTENSION.test(member)) continue; // `x.ts`: a file, not a name
      const found = exported.has(head as string) && (member === undefined || new RegExp(`\\b${member}\\b`).test(source));
      if (!found) missing.push({ doc, line, text: `${file} ${name[0]}` });
    }
  }
  return missing;
}

/** Rule 1's failures in one document. */
export function findMissingPaths(doc: string, text: string, files: readonly string[]): Citation[] {
  return matchesByLine(text, PATH).filter(({ match }) => !pathExists(match[0], files)).map(({ match, line }) => ({ doc, line, text: match[0] }));
}

/** Rule 3's failures in one document. */
export function findLineNumbers(doc: string, text: string): Citation[] {
  return text.split('\n').flatMap((line, index) => (LINE_NUMBER.test(line) ? [{ doc, line: index + 1, text: line.trim() }] : []));
}

const show = (citations: Citation[]): string[] => citations.map((c) => `${c.doc}:${c.line}: ${c.text}`);

describe('docs/ cites files and exported names that exist, not line numbers', function () {
  const files = listFiles();
  const documents = files.filter((file) => file === 'README.md' || file === 'openapi/README.md' || /^docs\/.*\.md$/.test(file) || /^src\/(?:.*\/)?README\.md$/.test(file));
  const read = (doc: string): string => readFileSync(path.join(PACKAGE_ROOT, doc), 'utf8');

  it('reads the documents', () => {
    expect(documents).to.include.members(['docs/architecture.md', 'docs/testing.md', 'src/mcp/README.md']);
  });

  it('every cited path exists', () => {
    expect(show(documents.flatMap((doc) => findMissingPaths(doc, read(doc), files)))).to.deep.equal([]);
  });

  it('every cited exported name is exported by its file', () => {
    const cited = documents.flatMap((doc) => matchesByLine(read(doc), NAMED));
    expect(cited.length, 'the documents cite names in the `file` `name` form').to.be.greaterThan(5);
    expect(show(documents.flatMap((doc) => findMissingNames(doc, read(doc), readSource)))).to.deep.equal([]);
  });

  it('no line numbers', () => {
    expect(show(documents.flatMap((doc) => findLineNumbers(doc, read(doc))))).to.deep.equal([]);
  });

  it('the checks catch what they are for', () => {
    const tree = ['src/api/execute.ts', 'src/api/service.ts', 'test/api/list.test.ts'];
    expect(show(findMissingPaths('d.md', 'see `src/api/execute.ts`, src/api/ and `test/**/*.test.ts`', tree))).to.deep.equal([]);
    expect(show(findMissingPaths('d.md', 'see `src/dispatch/index.ts`, src/dispatch/, `src/x/*.ts`; not dist/src/y.ts nor /v1/src/a.ts', tree)))
      .to.deep.equal(['d.md:1: src/dispatch/index.ts', 'd.md:1: src/dispatch/', 'd.md:1: src/x/*.ts']);
    const sources: Record<string, string> = {
      'src/a.ts': 'export function one() {}\nexport const two = 2;\nexport { three, four as five };\nexport * from \'./b.js\';\nconst hidden = 1;\n',
      'src/b.ts': 'export interface Six { seven(): void }\n',
    };
    const readFake = (file: string): string | null => sources[file] ?? null;
    expect(exportedNames(sources['src/a.ts'] as string, (specifier) => readFake(path.posix.join('src', specifier).replace(/\.js$/, '.ts'))))
      .to.deep.equal(new Set(['one', 'two', 'three', 'five', 'Six']));
    expect(show(findMissingNames('d.md', '`src/a.ts` `one()`, `two` and `src/b.ts` `Six.seven`', readFake))).to.deep.equal([]);
    expect(show(findMissingNames('d.md', '`src/a.ts` `hidden`, `Six.eight`', (file) => (file === 'src/a.ts' ? (sources['src/a.ts'] as string).replace('./b.js', './none.js') : null))))
      .to.deep.equal(['d.md:1: src/a.ts `hidden`', 'd.md:1: src/a.ts `Six.eight`']);
    expect(show(findLineNumbers('d.md', 'in `src/api/list.ts:51` and (`:227`); port localhost:3000 is fine'))).to.have.length(1);
    expect(findLineNumbers('d.md', 'the `handle-message.ts:66-73` catch')).to.have.length(1);
  });
});
