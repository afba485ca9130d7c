/**
 * The promise of docs/adding-an-endpoint.md, checked on a temporary copy of the repository: the
 * page's blocks (a spec fragment and one handler module per operation) are applied as written,
 * every name of the example given a generated, unique suffix first (so the example never collides
 * with a real endpoint, even one that later takes the example's name), `npm run generate` runs,
 * and then
 * - the example has the three shapes the page promises: a GET returning a record, a list with
 *   two filters, a destructive POST with a confirmation sentence;
 * - nothing but the spec, the handler modules and generated/ changed (`git status` of the copy);
 * - `generate --check --strict` and the type-check pass in the copy;
 * - the suites the page's section 4 names, run whole inside the copy (the token budget and the
 *   hand-kept lists among them), pass and cover the new operations: every documented REST status,
 *   a sample call of each tool over MCP, the confirmation question from the spec's
 *   `x-kobana-confirm`, tools/list, the derived coverage requests, the invariants over every tool;
 * - without its handler module, `generate --check` fails naming the operation.
 * The example's YAML and handlers live only in the page: a line added there is all it takes.
 */
import { expect } from 'chai';
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = process.cwd();
const DOC = 'docs/adding-an-endpoint.md';

interface Block { readonly lang: string; readonly target: string; readonly text: string }

/** The fenced blocks of the page whose info string names a target: ```yaml openapi/v1.yaml under paths: */
function docBlocks(page: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^```(\w+) (\S+)[^\n]*\n([\s\S]*?)^```$/gm;
  for (const match of page.matchAll(fence)) blocks.push({ lang: match[1] as string, target: match[2] as string, text: match[3] as string });
  return blocks;
}

/** The test files a section of the page names (`test/….test.ts`), in order, once each. */
function namedTestFiles(page: string, heading: string): string[] {
  const start = page.indexOf(heading);
  expect(start, `the page has a section "${heading}"`).to.be.greaterThan(-1);
  const end = page.indexOf('\n## ', start + heading.length);
  const section = page.slice(start, end === -1 ? undefined : end);
  return [...new Set([...section.matchAll(/`(test\/[\w./-]+\.test\.ts)`/g)].map((match) => match[1] as string))];
}

type SpecOperation = { operationId: string; parameters?: { $ref?: string; 'x-kobana-filter'?: unknown; name?: string }[]; 'x-kobana-confirm'?: unknown; responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> };

/** One operation of the page's example, before and after its names get the suffix. */
interface Example {
  readonly method: string;
  readonly operationId: string;
  readonly path: string;
  readonly handler: string;
  readonly list: boolean;
  readonly filters: readonly string[];
  readonly confirm: unknown;
  readonly record: string | undefined;
}

function examplesOf(fragment: string, handlers: readonly Block[]): Example[] {
  const paths = parse(fragment) as Record<string, Record<string, SpecOperation>>;
  return Object.entries(paths).flatMap(([route, methods]) => Object.entries(methods).map(([method, op]): Example => {
    const handler = handlers.find((block) => block.text.includes(`'${op.operationId}'`));
    expect(handler, `a handler module of ${op.operationId} on the page`).to.not.equal(undefined);
    const success = Object.entries(op.responses).find(([status]) => status.startsWith('2'))?.[1];
    return {
      method: method.toUpperCase(),
      operationId: op.operationId,
      path: route,
      handler: (handler as Block).target,
      list: (op.parameters ?? []).some((parameter) => parameter.$ref === '#/components/parameters/Limit'),
      filters: (op.parameters ?? []).filter((parameter) => parameter['x-kobana-filter'] !== undefined).map((parameter) => String(parameter.name)),
      confirm: op['x-kobana-confirm'],
      record: success?.content?.['application/json']?.schema?.$ref,
    };
  }));
}

/** The MCP tool name of an operation (openapi/README.md: `finance_` + snake_case of the operationId). */
const toolOf = (operationId: string) => `finance_${operationId.replace(/\./g, '_')}`;
/** Its generated module (`payables.next_due` → generated/operations/payables_next_due.gen.ts). */
const moduleOf = (operationId: string) => `generated/operations/${operationId.replace(/\./g, '_')}.gen.ts`;

/** A suffix found nowhere in the contract or the handlers, new on every run. */
function uniqueSuffix(): string {
  const taken = [fs.readFileSync(path.join(ROOT, 'openapi/v1.yaml'), 'utf8'), fs.readdirSync(path.join(ROOT, 'src/api/operations')).join('\n')].join('\n');
  for (;;) {
    const suffix = `doc${randomBytes(4).toString('hex')}`;
    if (!taken.includes(suffix)) return suffix;
  }
}

/** The example with the suffix on every name: operationId, path (its last, fixed segment), handler module. */
function withSuffix(example: Example, suffix: string): Example {
  expect(example.path, `${example.operationId}: the path ends with a fixed segment the suffix goes on`).to.match(/\/[a-z][\w-]*$/);
  return { ...example, operationId: `${example.operationId}_${suffix}`, path: `${example.path}-${suffix}`, handler: example.handler.replace(/\.ts$/, `-${suffix}.ts`) };
}

/** Replaces each `from` where it stands as a whole name (not inside a longer one). */
function rename(text: string, names: ReadonlyMap<string, string>): string {
  const escape = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const froms = [...names.keys()].sort((a, b) => b.length - a.length);
  return text.replace(new RegExp(`(?<![\\w./-])(${froms.map(escape).join('|')})(?![\\w-])`, 'g'), (name) => names.get(name) as string);
}

function run(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
}

/**
 * The work tree as it is (tracked and untracked, not ignored; files only) in a fresh git
 * repository, node_modules linked. The link is excluded from the copy's git (`node_modules/` in
 * .gitignore matches a folder, not a link), so the copy's own `npm test` can copy it again.
 */
function copyRepository(into: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0').filter((file) => file !== '' && fs.existsSync(path.join(ROOT, file)) && fs.statSync(path.join(ROOT, file)).isFile());
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(into, file));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(into, 'node_modules'), 'dir');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=test@example.invalid', '-c', 'user.name=test', ...args], { cwd: into, stdio: 'ignore' });
  git('init', '-q');
  fs.mkdirSync(path.join(into, '.git/info'), { recursive: true });
  fs.appendFileSync(path.join(into, '.git/info/exclude'), '/node_modules\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'copy');
}

/** Files changed or added in the copy since its commit. */
function changedFiles(copy: string): string[] {
  return execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: copy, encoding: 'utf8' })
    .split('\n').filter(Boolean).map((line) => line.slice(3)).sort();
}

interface MochaReport { stats: { passes: number; failures: number }; passes: { fullTitle: string }[]; failures: { fullTitle: string; err: { message: string } }[] }

describe('docs/adding-an-endpoint.md, applied to a copy of the repository', function () {
  this.timeout(300_000);
  const page = fs.readFileSync(path.join(ROOT, DOC), 'utf8');
  let copy: string;
  let examples: Example[];
  const byShape = {
    record: () => examples.find((e) => e.method === 'GET' && !e.list) as Example,
    list: () => examples.find((e) => e.method === 'GET' && e.list) as Example,
    write: () => examples.find((e) => e.method !== 'GET') as Example,
  };

  before(function () {
    const blocks = docBlocks(page);
    const fragment = blocks.find((block) => block.lang === 'yaml' && block.target === 'openapi/v1.yaml');
    const handlers = blocks.filter((block) => block.lang === 'ts' && block.target.startsWith('src/api/operations/'));
    expect(fragment, 'the page shows the spec fragment').to.not.equal(undefined);
    const asWritten = examplesOf((fragment as Block).text, handlers);
    expect(handlers.map((block) => block.target).sort(), 'one handler module per operation').to.deep.equal(asWritten.map((e) => e.handler).sort());

    const suffix = uniqueSuffix();
    examples = asWritten.map((example) => withSuffix(example, suffix));
    const names = new Map(asWritten.flatMap((example, index) => {
      const renamed = examples[index] as Example;
      return [[example.operationId, renamed.operationId], [toolOf(example.operationId), toolOf(renamed.operationId)], [example.path, renamed.path]] as [string, string][];
    }));

    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'kobana-add-endpoint-'));
    copyRepository(copy);
    const specPath = path.join(copy, 'openapi/v1.yaml');
    const spec = fs.readFileSync(specPath, 'utf8');
    expect(spec).to.match(/^paths:\n/m);
    fs.writeFileSync(specPath, spec.replace(/^paths:\n/m, () => `paths:\n${rename((fragment as Block).text, names)}`));
    for (const [index, example] of asWritten.entries()) {
      const block = handlers.find((b) => b.target === example.handler) as Block;
      fs.writeFileSync(path.join(copy, (examples[index] as Example).handler), rename(block.text, names));
    }
    const generated = run(copy, 'npx', ['tsx', 'codegen/cli.ts']);
    expect(generated.status, `npm run generate: ${generated.stderr}`).to.equal(0);
  });
  after(function () {
    // KEEP_COPY=1 leaves the copy (and its report) in the temp dir, to look into a failure.
    if (copy && !process.env.KEEP_COPY) for (const made of [copy, `${copy}-mocha-report.json`]) fs.rmSync(made, { recursive: true, force: true });
  });

  it('shows three operations: a GET returning a record, a list with two filters, a destructive POST with a confirmation sentence', function () {
    expect(examples).to.have.length(3);
    expect(byShape.record()?.record, 'the GET returns a record schema').to.match(/^#\/components\/schemas\/\w+$/);
    expect(byShape.list()?.filters, 'the list has two filters').to.have.length(2);
    expect(byShape.write()?.method).to.equal('POST');
    expect(byShape.write()?.confirm, 'the write has a confirmation sentence').to.be.a('string').and.match(/\{\w+(:brl)?\}.*\?$/);
    expect(byShape.write()?.confirm, 'the write\'s sentence shows one of its arguments').to.match(/\{arg\.\w+\}/);
  });

  it('gives the example names no real endpoint has: a new suffix on the operationId, the path and the handler module', function () {
    const contract = fs.readFileSync(path.join(ROOT, 'openapi/v1.yaml'), 'utf8');
    for (const example of examples) {
      expect(contract, example.operationId).to.not.include(example.operationId);
      expect(contract, example.path).to.not.include(`${example.path}:`);
      expect(fs.existsSync(path.join(ROOT, example.handler)), example.handler).to.equal(false);
    }
    // Whole names only: a longer name that starts with an example's is left alone.
    const names = new Map([['receivables.list', 'receivables.list_x'], ['finance_receivables_list', 'finance_receivables_list_x']]);
    expect(rename("'receivables.list' receivables.list_pending finance_receivables_list: finance_receivables_list_pending", names))
      .to.equal("'receivables.list_x' receivables.list_pending finance_receivables_list_x: finance_receivables_list_pending");
  });

  it('edits nothing but the spec, the handler modules and generated/', function () {
    const changed = changedFiles(copy);
    expect(changed.filter((file) => !file.startsWith('generated/')), 'edited outside generated/').to.deep.equal(['openapi/v1.yaml', ...examples.map((e) => e.handler)].sort());
    expect(changed, 'the new operation modules').to.include.members(examples.map((e) => moduleOf(e.operationId)));
  });

  it('passes generate --check --strict and the type-check in the copy', function () {
    const check = run(copy, 'npx', ['tsx', 'codegen/cli.ts', '--check', '--strict']);
    expect(check.status, `generate --check --strict: ${check.stderr}`).to.equal(0);
    const typecheck = run(copy, 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
    expect(typecheck.status, `typecheck: ${typecheck.stdout.slice(-3000)}`).to.equal(0);
  });

  it('passes the suites the page names, run whole in the copy, and they cover the three operations over REST and MCP', function () {
    const files = namedTestFiles(page, '## 4. What you get');
    // The two that a new endpoint broke before (issue 25, B1) are among them.
    expect(files, 'suites the page names').to.include.members(['test/mcp/token-budget.test.ts', 'test/hand-kept-lists.test.ts']);
    for (const file of files) expect(fs.existsSync(path.join(copy, file)), file).to.equal(true);
    // Outside the copy, so the copy's `git status` stays the example's alone.
    const output = `${copy}-mocha-report.json`;
    const mocha = run(copy, 'npx', ['mocha', '--no-config', '--node-option', 'import=tsx', '--require', 'test/helpers/root-hooks.ts', '--extension', 'ts',
      '--timeout', '60000', '--exit', '--reporter', 'json', '--reporter-option', `output=${output}`, ...files],
    // The boundary fuzzer runs on the new operations only (the rest of the registry is main's, fuzzed by main's own run).
    { FUZZ_ONLY: `^(${examples.map((e) => e.operationId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$` });
    expect(fs.existsSync(output), `mocha in the copy wrote no report: ${mocha.stderr.slice(-2000)}`).to.equal(true);
    const report = JSON.parse(fs.readFileSync(output, 'utf8')) as MochaReport;
    expect(report.failures.map((f) => `${f.fullTitle}: ${f.err.message}`), 'failures in the copy').to.deep.equal([]);
    expect(mocha.status, mocha.stderr.slice(-2000)).to.equal(0);
    const titles = report.passes.map((p) => p.fullTitle);
    const covering = (text: string, under = '') => titles.filter((title) => title.startsWith(under) && title.includes(text));
    for (const example of examples) {
      const tool = toolOf(example.operationId);
      // Every documented status of the REST route (success, 400, 401, 403, [404 with a path id]) and 429.
      expect(covering(`${example.operationId} (${example.method} ${example.path})`), `REST statuses of ${example.operationId}`)
        .to.have.length(example.path.includes('{') ? 5 : 4);
      expect(covering(`${example.operationId}: 429`), `429 of ${example.operationId}`).to.have.length(1);
      // A sample call over MCP whose structuredContent validates against the tool's outputSchema.
      expect(covering(` ${tool}`, 'typed results'), `MCP call of ${tool}`).to.have.length(1);
      // Destructive: asked with the spec's sentence over MCP, run once on acceptance; the others are not.
      expect(covering(tool, 'every tool with destructiveHint'), `confirmation of ${tool}`).to.have.length(example.confirm === undefined ? 0 : 2);
    }
    for (const text of ['shows the admin', 'limited member', 'derived for exactly the routes', 'classifies destructive', 'holds every toolset', 'finds none outside openapi/ and generated/']) {
      expect(covering(text), text).to.have.length.greaterThanOrEqual(1);
    }
    expect(covering('', 'generated/registry.gen.ts'), 'registry invariants').to.have.length.greaterThanOrEqual(10);
    expect(covering('', 'tool surface token budget'), 'the token budget').to.have.length.greaterThanOrEqual(5);
    // The new operations' inputs are bounded, and the boundary fuzzer ran on them within its criteria.
    expect(covering('', 'the contract bounds every input'), 'bounded inputs').to.have.length.greaterThanOrEqual(1);
    expect(covering('answers every boundary case', 'boundary fuzzer'), 'the boundary fuzzer').to.have.length(1);
    // The permission matrix refuses the write-off to a caller missing what its x-kobana-touches declares.
    expect(titles.filter((title) => title.startsWith('permission matrix') && title.includes(`${byShape.write().operationId}: `)), 'permission matrix of the write-off')
      .to.have.length.greaterThanOrEqual(1);
  });

  it('generates each operation as the page says: the list\'s two filters, the write\'s classification and sentence', function () {
    const registry = fs.readFileSync(path.join(copy, 'generated/registry.gen.ts'), 'utf8');
    expect(examples).to.not.be.empty;
    for (const example of examples) expect(registry).to.include(`./${moduleOf(example.operationId).slice('generated/'.length).replace(/\.ts$/, '.js')}`);
    const list = fs.readFileSync(path.join(copy, moduleOf(byShape.list().operationId)), 'utf8');
    expect(byShape.list().filters).to.not.be.empty;
    for (const filter of byShape.list().filters) expect(list, filter).to.include(`"name": "${filter}"`);
    const write = fs.readFileSync(path.join(copy, moduleOf(byShape.write().operationId)), 'utf8');
    expect(write).to.match(/"destructive": true/).and.include(String(byShape.write().confirm));
  });

  it('a spec operation without its handler fails generate --check with a message naming it', function () {
    const record = byShape.record();
    fs.rmSync(path.join(copy, record.handler));
    const check = run(copy, 'npx', ['tsx', 'codegen/cli.ts', '--check']);
    expect(check.status).to.equal(1);
    expect(check.stderr).to.match(new RegExp(`^error: .*${record.operationId.replace('.', '\\.')} has no handler`, 'm'));
  });
});
