/**
 * `npm run metrics`: the two measures that hold the house (run in `.ci/run`, so every later change
 * keeps them).
 *
 * - Function length, read with ts-morph: a function's length is its node's first line to its last
 *   (every function-like node: declarations, expressions, arrows, methods, constructors,
 *   accessors). A nested function counts on its own and inside its parent. In `src` + `codegen`, at
 *   most MAX_OVER_40 functions may be longer than 40 lines and none longer than 80.
 * - Duplicate pairs in `src`, counted by jscpd (a maintained copy/paste detector) with clones of at
 *   least 8 lines and 60 tokens: at most MAX_DUPLICATE_PAIRS.
 *
 * Both leave out `src/store/migrations/` (an applied migration is never edited) and `generated/`
 * (written by the generator). Exits 1, naming what is over, when a cap is broken.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Node, Project } from 'ts-morph';

const ROOT = join(import.meta.dirname, '..');
const LONG = 40;
const TOO_LONG = 80;
const MAX_OVER_40 = 12;
const MAX_DUPLICATE_PAIRS = 15;
const MIGRATIONS = 'src/store/migrations/';

interface FunctionLength { readonly where: string; readonly lines: number }

function functionLengths(): FunctionLength[] {
  const project = new Project({ tsConfigFilePath: join(ROOT, 'tsconfig.json'), skipAddingFilesFromTsConfig: true });
  project.addSourceFilesAtPaths([join(ROOT, 'src/**/*.ts'), join(ROOT, 'codegen/**/*.ts'), `!${join(ROOT, MIGRATIONS)}**`]);
  const found: FunctionLength[] = [];
  for (const file of project.getSourceFiles()) {
    const path = relative(ROOT, file.getFilePath());
    file.forEachDescendant((node) => {
      if (!Node.isFunctionLikeDeclaration(node)) return;
      const lines = node.getEndLineNumber() - node.getStartLineNumber() + 1;
      const name = Node.hasName(node) ? ` ${node.getName()}` : '';
      found.push({ where: `${path}:${node.getStartLineNumber()}${name}`, lines });
    });
  }
  return found.sort((a, b) => b.lines - a.lines);
}

interface JscpdReport { duplicates: { firstFile: { name: string; start: number; end: number }; secondFile: { name: string; start: number; end: number } }[] }

function duplicatePairs(): string[] {
  const out = mkdtempSync(join(tmpdir(), 'kobana-jscpd-'));
  try {
    execFileSync(join(ROOT, 'node_modules/.bin/jscpd'), [
      'src', '--min-lines', '8', '--min-tokens', '60', '--format', 'typescript',
      '--ignore', `**/${MIGRATIONS}**`, '--reporters', 'json', '--output', out, '--silent',
    ], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    const report = JSON.parse(readFileSync(join(out, 'jscpd-report.json'), 'utf8')) as JscpdReport;
    return report.duplicates.map((d) => `${d.firstFile.name}:${d.firstFile.start}-${d.firstFile.end} ~ ${d.secondFile.name}:${d.secondFile.start}-${d.secondFile.end}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const lengths = functionLengths();
const overLong = lengths.filter((f) => f.lines > LONG);
const overMax = lengths.filter((f) => f.lines > TOO_LONG);
const pairs = duplicatePairs();

console.log(`metrics: ${lengths.length} functions in src + codegen; ${overLong.length} over ${LONG} lines (cap ${MAX_OVER_40}), ${overMax.length} over ${TOO_LONG} (cap 0)`);
for (const f of overLong) console.log(`  ${String(f.lines).padStart(4)}  ${f.where}`);
console.log(`metrics: ${pairs.length} duplicate pairs in src (jscpd, 8 lines / 60 tokens; cap ${MAX_DUPLICATE_PAIRS})`);
for (const p of pairs) console.log(`  ${p}`);

const broken = [
  overLong.length > MAX_OVER_40 ? `${overLong.length} functions over ${LONG} lines (at most ${MAX_OVER_40})` : '',
  overMax.length > 0 ? `${overMax.length} functions over ${TOO_LONG} lines (none allowed)` : '',
  pairs.length > MAX_DUPLICATE_PAIRS ? `${pairs.length} duplicate pairs (at most ${MAX_DUPLICATE_PAIRS})` : '',
].filter(Boolean);
if (broken.length > 0) {
  console.error(`metrics: over the caps: ${broken.join('; ')}`);
  process.exit(1);
}
