/**
 * The promise of docs/adding-an-endpoint.md, checked on a temporary copy of the repository: the
 * page's blocks (a spec fragment and one handler module per operation) are applied as written,
 * `npm run generate` runs, and then
 * - nothing but the spec, the two handler modules and generated/ changed (`git status` of the copy);
 * - the generic suites, run inside the copy, cover the new operations: tools/list (admin, and the
 *   per-person list), every documented REST status, the confirmation question from the spec's
 *   `x-kobana-confirm`, the derived coverage requests, the invariants over every generated tool;
 * - without its handler module, `generate --check` fails naming the operation.
 */
import { expect } from 'chai';
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = process.cwd();
const DOC = 'docs/adding-an-endpoint.md';
const READ = { operationId: 'payables.summary', tool: 'finance_payables_summary' };
const WRITE = { operationId: 'receivables.write_off', tool: 'finance_receivables_write_off' };

interface Block { readonly lang: string; readonly target: string; readonly text: string }

/** The fenced blocks of the page whose info string names a target: ```yaml openapi/v1.yaml under paths: */
function docBlocks(): Block[] {
  const blocks: Block[] = [];
  const fence = /^```(\w+) (\S+)[^\n]*\n([\s\S]*?)^```$/gm;
  for (const match of fs.readFileSync(path.join(ROOT, DOC), 'utf8').matchAll(fence)) {
    blocks.push({ lang: match[1] as string, target: match[2] as string, text: match[3] as string });
  }
  return blocks;
}

function run(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
}

/** The work tree as it is (tracked and untracked, not ignored) in a fresh git repository, node_modules linked. */
function copyRepository(into: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0').filter((file) => file !== '' && fs.existsSync(path.join(ROOT, file)));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(into, file));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(into, 'node_modules'), 'dir');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=test@example.invalid', '-c', 'user.name=test', ...args], { cwd: into, stdio: 'ignore' });
  git('init', '-q');
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
  this.timeout(240_000);
  let copy: string;
  let handlerFiles: string[];

  before(function () {
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'kobana-add-endpoint-'));
    copyRepository(copy);
    const blocks = docBlocks();
    const fragment = blocks.find((block) => block.lang === 'yaml' && block.target === 'openapi/v1.yaml');
    const handlers = blocks.filter((block) => block.lang === 'ts' && block.target.startsWith('src/api/operations/'));
    expect(fragment, 'the page shows the spec fragment').to.not.equal(undefined);
    expect(handlers.map((block) => block.target), 'the page shows one handler module per operation').to.have.length(2);
    const specPath = path.join(copy, 'openapi/v1.yaml');
    const spec = fs.readFileSync(specPath, 'utf8');
    expect(spec).to.match(/^paths:\n/m);
    fs.writeFileSync(specPath, spec.replace(/^paths:\n/m, `paths:\n${fragment?.text ?? ''}`));
    for (const block of handlers) fs.writeFileSync(path.join(copy, block.target), block.text);
    handlerFiles = handlers.map((block) => block.target).sort();
    const generated = run(copy, 'npx', ['tsx', 'codegen/cli.ts']);
    expect(generated.status, `npm run generate: ${generated.stderr}`).to.equal(0);
  });
  after(function () {
    if (copy) fs.rmSync(copy, { recursive: true, force: true });
  });

  it('edits nothing but the spec, the two handler modules and generated/', function () {
    const changed = changedFiles(copy);
    expect(changed.filter((file) => !file.startsWith('generated/')), 'edited outside generated/').to.deep.equal(['openapi/v1.yaml', ...handlerFiles].sort());
    expect(changed, 'the new operation modules').to.include.members(['generated/operations/payables_summary.gen.ts', 'generated/operations/receivables_write_off.gen.ts']);
  });

  it('the generic suites cover both operations: tools/list, REST statuses, the spec\'s confirmation question, derived requests', function () {
    const grep = [READ.operationId, WRITE.operationId, READ.tool, WRITE.tool, 'shows the admin', 'limited member', 'derived for exactly the routes', 'classifies destructive', 'generated/registry.gen.ts']
      .map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
    const files = ['test/api/coverage.test.ts', 'test/mcp/tools.test.ts', 'test/api/error-codes-all-routes.test.ts', 'test/confirmation/registry.test.ts', 'test/codegen/registry.test.ts',
      'test/api/permission-matrix.test.ts'];
    const mocha = run(copy, 'npx', ['mocha', '--no-config', '--node-option', 'import=tsx', '--require', 'test/helpers/root-hooks.ts', '--extension', 'ts',
      '--timeout', '60000', '--exit', '--reporter', 'json', '--grep', grep, ...files]);
    const report = JSON.parse(mocha.stdout.slice(mocha.stdout.indexOf('{'))) as MochaReport;
    expect(report.failures.map((f) => `${f.fullTitle}: ${f.err.message}`), 'failures in the copy').to.deep.equal([]);
    const titles = report.passes.map((p) => p.fullTitle);
    const covering = (text: string) => titles.filter((title) => title.includes(text));
    // Every documented status of the two REST routes (success, 400, 401, 403, [404], 429).
    expect(covering(`${READ.operationId} (GET /v1/payables/summary)`), 'REST statuses of the read').to.have.length.greaterThanOrEqual(4);
    expect(covering(`${WRITE.operationId} (POST /v1/receivables/{id}/write-off)`), 'REST statuses of the write-off').to.have.length.greaterThanOrEqual(5);
    expect(covering(`${READ.operationId}: 429`)).to.have.length(1);
    expect(covering(`${WRITE.operationId}: 429`)).to.have.length(1);
    // The write-off is destructive: asked with the spec's sentence over MCP, run once on acceptance.
    expect(covering(WRITE.tool), 'confirmation of the write-off').to.have.length(2);
    expect(covering(READ.tool), 'the read is not destructive').to.deep.equal([]);
    // tools/list as generated (both tools included), bruno's derived list (the read included), derived requests, classification.
    for (const text of ['shows the admin', 'limited member', 'derived for exactly the routes', 'classifies destructive']) expect(covering(text), text).to.have.length(1);
    // The permission matrix refuses the write-off to a caller missing what its x-kobana-touches declares.
    expect(titles.filter((title) => title.startsWith('permission matrix') && title.includes(`${WRITE.operationId}: `)), 'permission matrix').to.have.length(1);
    // The invariants over every generated tool hold with the two new ones (no per-tool file to add).
    expect(covering('generated/registry.gen.ts'), 'registry invariants').to.have.length.greaterThanOrEqual(10);
    expect(mocha.status, mocha.stderr.slice(-2000)).to.equal(0);
    const registry = fs.readFileSync(path.join(copy, 'generated/registry.gen.ts'), 'utf8');
    expect(registry).to.include('./operations/payables_summary.gen.js').and.include('./operations/receivables_write_off.gen.js');
    const operation = fs.readFileSync(path.join(copy, 'generated/operations/receivables_write_off.gen.ts'), 'utf8');
    expect(operation).to.match(/"destructive": true/).and.include('Write off receivable {description} of {amount:brl}?');
  });

  it('a spec operation without its handler fails generate --check with a message naming it', function () {
    fs.rmSync(path.join(copy, handlerFiles.find((file) => file.includes('summary')) as string));
    const check = run(copy, 'npx', ['tsx', 'codegen/cli.ts', '--check']);
    expect(check.status).to.equal(1);
    expect(check.stderr).to.match(new RegExp(`^error: .*${READ.operationId.replace('.', '\\.')} has no handler`, 'm'));
  });
});
