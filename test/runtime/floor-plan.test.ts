/**
 * The floor plan of issue 26 that the import rules cannot see (dependency-cruiser holds the
 * arrows: api-one-face, registries-only-bootstrap, wiring-at-the-top):
 *
 * - `ctx.state` is typed once (src/http/app-state.ts `AppState`, through `Koa<AppState>` and
 *   `Router<AppState>`): no `as` cast of a `…state` expression anywhere in `src/` — a cast is how
 *   a field nobody sets gets read;
 * - the tool path is one wing: `src/mcp/tools/` (with `src/mcp/tools/confirmation/`), and the
 *   folders it came from (`src/dispatch/`, `src/confirmation/`) stay gone.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { ts } from 'ts-morph';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** `x.state as T` / `<T>x.state` / `(x?.state as T)`: the places a file casts a state object. */
function findStateCasts(file: string, text: string): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      let inner: ts.Expression = node.expression;
      while (ts.isParenthesizedExpression(inner) || ts.isNonNullExpression(inner)) inner = inner.expression;
      if (ts.isPropertyAccessExpression(inner) && inner.name.text === 'state') {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText()}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('floor plan (issue 26)', () => {
  it('no cast of ctx.state in src/', () => {
    const files = sourceFiles('src');
    expect(files.length).to.be.above(100);
    expect(files.flatMap((file) => findStateCasts(file, fs.readFileSync(path.join(ROOT, file), 'utf8')))).to.deep.equal([]);
  });

  it('the check finds the casts it is for', () => {
    const text = [
      'const a = ctx.state as AuthState;',
      'const b = (ctx?.state as { log?: Logger } | undefined)?.log;',
      'const c = (ctx.state as { caller?: Caller }).caller;',
      'const d = ctx.state.caller as Caller;',
      'const e = <AuthState>ctx.state;',
    ].join('\n');
    expect(findStateCasts('x.ts', text).map((finding) => finding.split(':')[1])).to.deep.equal(['1', '2', '3', '5']);
  });

  it('the tool path is src/mcp/tools; src/dispatch and src/confirmation are gone', () => {
    expect(fs.existsSync(path.join(ROOT, 'src/dispatch'))).to.equal(false);
    expect(fs.existsSync(path.join(ROOT, 'src/confirmation'))).to.equal(false);
    const wing = sourceFiles('src/mcp/tools').map((file) => path.relative('src/mcp/tools', file));
    expect(wing).to.include.members(['call.ts', 'run.ts', 'input.ts', 'arguments.ts', 'catalog.ts', 'result.ts', 'call-log.ts', 'confirmation/confirmation.ts']);
  });
});
