/**
 * One clock (docs/architecture.md#conventions, issue 25 Build 7): nothing in `src/` reads the
 * wall clock but `src/runtime/clock.ts` — every expiry, window, TTL and "today" reads the
 * services' `Clock`, so tests move time instead of sleeping. A read is `Date.now` (called or
 * passed as a function), `new Date()` without an argument, or `Date()`. Not reported:
 * a read on a line carrying, or preceded by a line carrying, `// real-time-ok: <why>`.
 * Real waits (socket and shutdown timeouts, start-up retries) use timers and the monotonic
 * `performance.now()`, which this test does not look at: they are not the application's time.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

const CLOCK_MODULE = 'src/runtime/clock.ts';
const MARKER = /\/\/\s*real-time-ok:\s*\S/;

function isDate(node: ts.Node): boolean {
  return ts.isIdentifier(node) && node.text === 'Date';
}

/** The wall-clock reads of one file's text (comments are not code: the AST never sees them). */
function findClockReads(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = text.split('\n');
  const findings: Finding[] = [];
  const report = (node: ts.Node): void => {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    if (MARKER.test(lines[line] ?? '') || MARKER.test(lines[line - 1] ?? '')) return;
    findings.push({ file, line: line + 1, text: node.getText(source) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && isDate(node.expression) && node.name.text === 'now') report(node);
    else if (ts.isNewExpression(node) && isDate(node.expression) && (node.arguments === undefined || node.arguments.length === 0)) report(node);
    else if (ts.isCallExpression(node) && isDate(node.expression)) report(node);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

function listSources(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((entry) => path.posix.join(dir, entry.split(path.sep).join('/')))
    .filter((file) => /\.(ts|mts|cts)$/.test(file) && fs.statSync(file).isFile())
    .sort();
}

describe('one clock: src/ reads time only through src/runtime/clock.ts', function () {
  const reads = listSources('src').filter((file) => file !== CLOCK_MODULE)
    .flatMap((file) => findClockReads(file, fs.readFileSync(file, 'utf8')));

  it('finds no wall-clock read outside the clock module and the marked lines', function () {
    const described = reads
      .map((read) => `${read.file}:${read.line}: ${read.text} (read the services' Clock, src/runtime/clock.ts)`);
    expect(described).to.deep.equal([]);
  });

  it('catches what it is for, and leaves reads with an argument, comments and marked lines alone', function () {
    const found = (text: string) => findClockReads('probe.ts', text).map((f) => f.line);
    expect(found('const a = Date.now();')).to.deep.equal([1]);
    expect(found('const now = options.now ?? Date.now;')).to.deep.equal([1]);
    expect(found('const b = new Date();\nconst c = new Date;')).to.deep.equal([1, 2]);
    expect(found('const s = Date();')).to.deep.equal([1]);
    expect(found('const d = new Date(clock.now());\nconst e = new Date(`${day}T00:00:00Z`);\nconst f = Date.UTC(2026, 0, 1);')).to.deep.equal([]);
    expect(found('/** like Date.now() and new Date() */\nconst g = 1; // Date.now()')).to.deep.equal([]);
    expect(found('// real-time-ok: a real wait\nconst h = Date.now();\nconst i = Date.now(); // real-time-ok: a real wait')).to.deep.equal([]);
    expect(found('// real-time-ok:\nconst j = Date.now();'), 'a marker without its reason').to.deep.equal([2]);
  });
});
