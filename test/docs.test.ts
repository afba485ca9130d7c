/**
 * The repository documents itself: no tracked file cites a design document that lives outside
 * the repository (the old SECURITY.md, PROTOCOL.md, DOMAIN.md, ARCHITECTURE.md, PLAN.md, STYLE.md,
 * the Spanish product seeds, a /work/shared folder), and every `docs/<file>.md` or
 * `docs/<file>.md#anchor` reference — in code comments, READMEs or the docs themselves — names a
 * file that exists and a heading it has. Reads `git ls-files` (tracked and new files), so a stale
 * citation fails CI wherever it is.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Citations of documents outside the repository. */
const OUTSIDE_CITATIONS: readonly RegExp[] = [
  /\b(?:SECURITY|PROTOCOL|DOMAIN|ARCHITECTURE|PLAN|STYLE)\.md\b/,
  /\bPLAN:/,
  /\/work\/|\bshared\/(?:design|seeds|notes)\b/,
  /\bthe seeds\b|\bseed: (?:M[ée]todos|Archivos|Errores|Encabezados|")|\bthe seed's error\b/,
];

/** `docs/name.md` optionally followed by `#anchor`, as cited in code and prose. */
const DOCS_REFERENCE = /\bdocs\/([a-z0-9-]+\.md)(?:#([a-z0-9-]+))?/g;
/** Relative Markdown links inside docs/: `](name.md#anchor)`. */
const RELATIVE_LINK = /\]\(([a-z0-9-]+\.md)(?:#([a-z0-9-]+))?\)/g;

function listFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\n').filter((file) => file !== '' && file !== 'package-lock.json' && file !== 'test/docs.test.ts'
    && existsSync(path.join(ROOT, file)) && /\.(ts|cjs|mjs|js|json|md|ya?ml|hbs|txt)$|^\.ci\//.test(file));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces → `-`. */
export function slugify(heading: string): string {
  return heading.trim().toLowerCase().replace(/`/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of markdown.split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading?.[1] !== undefined) anchors.add(slugify(heading[1]));
  }
  return anchors;
}

/** Every broken `docs/…` reference of one text, as `file:line → target`. */
export function findBrokenReferences(file: string, text: string, readDoc: (name: string) => string | null): string[] {
  const broken: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const patterns = file.startsWith('docs/') ? [DOCS_REFERENCE, RELATIVE_LINK] : [DOCS_REFERENCE];
    for (const pattern of patterns) {
      for (const match of line.matchAll(pattern)) {
        const [, name, anchor] = match;
        if (name === undefined) continue;
        const doc = readDoc(name);
        if (doc === null) broken.push(`${file}:${index + 1} → docs/${name} (no such file)`);
        else if (anchor !== undefined && !anchorsOf(doc).has(anchor)) broken.push(`${file}:${index + 1} → docs/${name}#${anchor} (no such heading)`);
      }
    }
  });
  return broken;
}

/** Every citation of a document outside the repository in one text, as `file:line: text`. */
export function findOutsideCitations(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, index) =>
    OUTSIDE_CITATIONS.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : []);
}

function readDoc(name: string): string | null {
  const file = path.join(ROOT, 'docs', name);
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

describe('the repository documents itself', function () {
  const files = listFiles();

  it('finds the files it checks', function () {
    expect(files).to.include.members(['README.md', 'docs/README.md', 'docs/security.md', 'src/api/execute.ts']);
  });

  it('cites no document outside the repository', function () {
    const found = files.flatMap((file) => findOutsideCitations(file, readFileSync(path.join(ROOT, file), 'utf8')));
    expect(found, 'point these at docs/ instead').to.deep.equal([]);
  });

  it('every docs/ reference names an existing file and heading', function () {
    const broken = files.flatMap((file) => findBrokenReferences(file, readFileSync(path.join(ROOT, file), 'utf8'), readDoc));
    expect(broken).to.deep.equal([]);
  });

  it('the checks catch what they are for', function () {
    expect(findOutsideCitations('x.ts', ' * the order of SECURITY.md §4')).to.have.length(1);
    expect(findOutsideCitations('x.ts', '// see /work/shared/design/DOMAIN.md')).to.have.length(1);
    expect(findOutsideCitations('x.ts', 'seedDemoData(db); // seeds the demo data')).to.deep.equal([]);
    const docs = (name: string): string | null => (name === 'a.md' ? '# Title\n## Check order and `error` catalogue\n' : null);
    expect(findBrokenReferences('x.ts', 'docs/a.md#check-order-and-error-catalogue', docs)).to.deep.equal([]);
    expect(findBrokenReferences('x.ts', 'docs/a.md#nope', docs)).to.have.length(1);
    expect(findBrokenReferences('x.ts', 'docs/missing.md', docs)).to.have.length(1);
    expect(findBrokenReferences('docs/b.md', 'see [a](a.md#title) and [m](missing.md)', docs)).to.have.length(1);
  });
});
