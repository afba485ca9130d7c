/**
 * The rule of docs/testing.md#assertions-in-loops: an assertion that sits only in a
 * `for (const x of list) expect(…)` loop passes on an empty list, so every such loop is preceded,
 * in the same block, by an assertion on the list itself (`expect(list).to.not.be.empty`, a length,
 * `include`, `members`, …: any `expect(` that names the list). Not checked: loops over a literal
 * (`[a, b]`, `'abc'`), loops whose body declares tests (`for (…) it(…)`), and loops over an
 * optional part with a fallback (`row.want ?? {}`), which may be empty by design.
 */
import { expect } from 'chai';
import { Node, Project, SyntaxKind, type ForOfStatement } from 'ts-morph';
import { PACKAGE_ROOT } from '../../src/package-root.js';

/** The list a loop walks, without casts and `Object.entries(…)`-style wrappers. */
function listOf(loop: ForOfStatement): Node | null {
  let list: Node = loop.getExpression();
  for (;;) {
    if (Node.isAsExpression(list) || Node.isParenthesizedExpression(list) || Node.isAwaitExpression(list)) list = list.getExpression();
    else if (Node.isCallExpression(list) && /^Object\.(?:entries|keys|values)$/.test(list.getExpression().getText()) && list.getArguments()[0]) list = list.getArguments()[0] as Node;
    else break;
  }
  if (Node.isArrayLiteralExpression(list) || Node.isStringLiteral(list) || Node.isNoSubstitutionTemplateLiteral(list)) return null;
  if (Node.isBinaryExpression(list) && list.getOperatorToken().getKind() === SyntaxKind.QuestionQuestionToken) return null;
  return list;
}

/** Whether an earlier statement of the loop's block asserts on `list`. */
function checkedBefore(loop: ForOfStatement, list: string): boolean {
  const block = loop.getParent();
  if (!Node.isBlock(block) && !Node.isSourceFile(block)) return false;
  const earlier = block.getStatements().slice(0, loop.getChildIndex());
  return earlier.some((statement) => statement.getDescendantsOfKind(SyntaxKind.CallExpression)
    .some((call) => call.getExpression().getText() === 'expect' && (call.getArguments()[0]?.getText() ?? '').includes(list)));
}

/** `file:line  for (…)` for every one-line loop of an assertion not preceded by a check of its list. */
export function findUncheckedLoops(project: Project): string[] {
  const found: string[] = [];
  for (const file of project.getSourceFiles()) {
    for (const loop of file.getDescendantsOfKind(SyntaxKind.ForOfStatement)) {
      const body = loop.getStatement();
      if (Node.isBlock(body) || !body.getText().startsWith('expect(')) continue;
      const list = listOf(loop);
      if (list === null || checkedBefore(loop, list.getText())) continue;
      found.push(`${file.getFilePath().slice(PACKAGE_ROOT.length + 1)}:${loop.getStartLineNumber()}  ${loop.getText().slice(0, 90)}`);
    }
  }
  return found;
}

describe('assertions in loops are preceded by a check that the list is not empty', function () {
  this.timeout(60_000);

  it('in every test file', () => {
    const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
    project.addSourceFilesAtPaths([`${PACKAGE_ROOT}/test/**/*.ts`]);
    expect(project.getSourceFiles().length).to.be.greaterThan(100);
    expect(findUncheckedLoops(project)).to.deep.equal([]);
  });

  it('the check catches what it is for', () => {
    const project = new Project({ useInMemoryFileSystem: true });
    project.createSourceFile(`${PACKAGE_ROOT}/t.ts`, [
      'it("a", () => { const rows = f(); for (const r of rows) expect(r).to.equal(1); });',
      'it("b", () => { const rows = f(); expect(rows).to.not.be.empty; for (const r of rows) expect(r).to.equal(1); });',
      'it("c", () => { for (const [k, v] of Object.entries(g().map)) expect(v, k).to.equal(1); });',
      'it("d", () => { for (const k of ["x", "y"]) expect(k).to.be.a("string"); for (const w of row.want ?? {}) expect(w).to.equal(1); });',
      'for (const c of cases) it(c.name, () => expect(c.x).to.equal(1));',
    ].join('\n'));
    expect(findUncheckedLoops(project).map((line) => line.split('  ')[0])).to.deep.equal(['t.ts:1', 't.ts:3']);
  });
});
