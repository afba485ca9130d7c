/**
 * No hand-kept list of operations outside openapi/ and generated/ (issue 15, "Done when"): a
 * TypeScript or JavaScript file of the repository that holds a list of three or more operation
 * ids (`payables.settle`) or tool names (`finance_payables_settle`) of the generated registry
 * fails — an array of them (also as the first members of `[id, value]` pairs, as `new Map` takes)
 * or an object keyed by them. Such a list has to be edited whenever an operation is added; derive
 * it from the registry instead. Not lists of operations, and so not reported:
 * - the handler declarations of src/api (`defineOperations({...})`, `Record<string, OperationHandler>`),
 *   each next to its code;
 * - a list preceded by a comment line `// hand-kept-ok: <why>` (or carrying it on its own line):
 *   a test's expected values for a few operations, or a prompt's script tools — the reason says which.
 * Single names, and lists of fewer than three, are what one behaviour test calls: fine.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { ts } from 'ts-morph';
import { routes, tools } from '../generated/registry.gen.js';

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly names: readonly string[];
}

const SOURCE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const OUTSIDE = /^(openapi|generated|node_modules)\//;
const MARKER = /\/\/\s*hand-kept-ok:\s*\S/;

/** The operation ids and tool names of the generated registry. */
function registryNames(): Set<string> {
  return new Set([...routes.map((route) => route.operation.operationId), ...tools.map((tool) => tool.name)]);
}

function nameOf(node: ts.Node | undefined): string | undefined {
  if (!node) return undefined;
  if (ts.isStringLiteralLike(node) || ts.isIdentifier(node)) return node.text;
  return undefined;
}

/** Whether `node` is the object of handler declarations: `defineOperations({...})` or `x: Record<string, OperationHandler> = {...}`. */
function declaresHandlers(node: ts.ObjectLiteralExpression, source: ts.SourceFile): boolean {
  const parent = node.parent;
  if (ts.isCallExpression(parent) && ts.isIdentifier(parent.expression) && parent.expression.text === 'defineOperations') return true;
  return ts.isVariableDeclaration(parent) && parent.type !== undefined && /\bOperationHandler\b/.test(parent.type.getText(source));
}

/** The lists of three or more registry names in one file's text. */
function findHandKeptLists(file: string, text: string, names: ReadonlySet<string>): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = text.split('\n');
  const findings: Finding[] = [];
  const report = (node: ts.Node, found: Set<string>) => {
    if (found.size < 3) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    if (MARKER.test(lines[line] ?? '') || MARKER.test(lines[line - 1] ?? '')) return;
    findings.push({ file, line: line + 1, names: [...found] });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isArrayLiteralExpression(node)) {
      const found = new Set<string>();
      for (const element of node.elements) {
        const name = ts.isArrayLiteralExpression(element) ? nameOf(element.elements[0]) : ts.isStringLiteralLike(element) ? element.text : undefined;
        if (name !== undefined && names.has(name)) found.add(name);
      }
      report(node, found);
    } else if (ts.isObjectLiteralExpression(node) && !declaresHandlers(node, source)) {
      const found = new Set<string>();
      for (const property of node.properties) {
        const name = nameOf(property.name);
        if (name !== undefined && names.has(name)) found.add(name);
      }
      report(node, found);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

/** Every source file of the work tree (tracked or new, not ignored) outside openapi/ and generated/. */
function repositorySources(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
    .split('\n').filter((file) => SOURCE.test(file) && !OUTSIDE.test(file) && fs.existsSync(file));
}

describe('hand-kept lists of operations', function () {
  this.timeout(60_000);
  const names = registryNames();

  it('finds none outside openapi/ and generated/', function () {
    const files = repositorySources();
    expect(files.length, 'files scanned').to.be.greaterThan(100);
    const findings = files.flatMap((file) => findHandKeptLists(file, fs.readFileSync(file, 'utf8'), names));
    const described = findings.map((f) => `${f.file}:${f.line}: ${f.names.join(', ')} (derive it from generated/registry.gen.ts)`);
    expect(described).to.deep.equal([]);
  });

  it('catches what it is for, and leaves handler declarations and marked lists alone', function () {
    const [a, b, c] = tools.map((tool) => tool.name);
    const [x, y, z] = routes.map((route) => route.operation.operationId);
    const found = (text: string) => findHandKeptLists('probe.ts', text, names).map((f) => f.line);
    expect(found(`const NAMES = ['${a}', '${b}',\n  '${c}', 'nope'];`)).to.deep.equal([1]);
    expect(found(`const byId = new Map([['${x}', 1], ['${y}', 2], ['${z}', 3]]);`)).to.deep.equal([1]);
    expect(found(`const want = {\n  '${x}': 'a', '${y}': 'b', '${z}': null,\n};`)).to.deep.equal([1]);
    expect(found(`const two = ['${a}', '${b}'];\ncall('${x}');`)).to.deep.equal([]);
    expect(found(`export const handlers = defineOperations({ '${x}': f, '${y}': g, '${z}': h });`)).to.deep.equal([]);
    expect(found(`const more: Record<string, OperationHandler> = { '${x}': f, '${y}': g, '${z}': h };`)).to.deep.equal([]);
    expect(found(`// hand-kept-ok: expected values of this test\nconst want = { '${x}': 1, '${y}': 2, '${z}': 3 };`)).to.deep.equal([]);
    expect(found(`// hand-kept-ok:\nconst want = { '${x}': 1, '${y}': 2, '${z}': 3 };`), 'a marker without its reason').to.deep.equal([2]);
  });
});
