/**
 * The change report's outputs and commands (issue 28.6): the Markdown and JSON reports of
 * test/fixtures/surface/before.yaml → after.yaml against committed snapshots (report.md, report.json;
 * `SURFACE_SNAPSHOTS=update npx mocha test/codegen/surface-report.test.ts` rewrites them after a
 * deliberate change of the report), the precise meaning of a tightened bound and a narrowed type,
 * `--fail-on breaking` of `npm run surface:diff` and of `generate --check` (its base the merge base
 * with main, in a scratch git repository), a base without a review copy, and the review copy of
 * our own contract.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compareBounds } from '../../codegen/surface/bounds-diff.js';
import { compareSurfaces } from '../../codegen/surface/diff.js';
import { formatReport } from '../../codegen/surface/format.js';
import { REVIEW_FILE, TOOLS_LIST_FILE } from '../../codegen/surface/review.js';
import { diffSchemas } from '../../codegen/surface/schema-diff.js';
import { readSurface } from '../../codegen/surface/surface.js';
import { countModelVisible } from '../../codegen/surface/tokens.js';
import { makeTempDir, readYaml, REPO_ROOT, runCli, SURFACE_DIFF_CLI, writeSpec } from './support.js';
import { AFTER, BEFORE, changeLines, generatedFiles, surfaceOf, SURFACE_FIXTURES, variant } from './surface-support.js';

function snapshot(name: string, actual: string): void {
  const file = path.join(SURFACE_FIXTURES, name);
  if (process.env['SURFACE_SNAPSHOTS'] === 'update') writeFileSync(file, actual);
  expect(actual, `${name} (SURFACE_SNAPSHOTS=update rewrites it)`).to.equal(readFileSync(file, 'utf8'));
}

/** Writes the two files of `spec` into `dir` (what `generate` writes there). */
async function writeSide(dir: string, spec: string, options: { review?: boolean } = {}): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const { list, review } = await generatedFiles(spec);
  writeFileSync(path.join(dir, TOOLS_LIST_FILE), list);
  if (options.review !== false) writeFileSync(path.join(dir, REVIEW_FILE), review);
  return dir;
}

const surfaceDiff = (args: readonly string[]) => runCli(args, SURFACE_DIFF_CLI);

describe('tool-surface change report: outputs and commands', function () {
  this.timeout(120_000);
  let scratch: string;
  before(() => { scratch = makeTempDir('kobana-surface-report-'); });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it('writes the Markdown and JSON reports of before.yaml → after.yaml as committed', async () => {
    const report = compareSurfaces(await surfaceOf(BEFORE), await surfaceOf(AFTER));
    expect(report.breaking.length, 'the fixture breaks things').to.be.greaterThan(10);
    snapshot('report.md', formatReport(report, 'markdown'));
    snapshot('report.json', formatReport(report, 'json'));
    expect(JSON.parse(formatReport(report, 'json'))).to.deep.equal(JSON.parse(JSON.stringify(report)));
    expect(formatReport(report, 'text')).to.match(/^tool surface, before\.yaml → after\.yaml: 20 breaking \(1 acknowledged\), 7 compatible, 2 text/);
  });

  it('lists a declared rename as compatible and its old name as deprecated', async () => {
    const report = compareSurfaces(await surfaceOf(BEFORE), await surfaceOf(AFTER));
    expect(report.compatible.filter((c) => c.kind === 'tool_renamed_with_alias').map((c) => [c.tool, c.detail]))
      .to.deep.equal([['exports_download', 'was exports_get; the old name is answered until 2099-12-31']]);
    expect(report.deprecated).to.deep.equal([{ tool: 'exports_download', alias: 'exports_get', until: '2099-12-31' }]);
    expect(JSON.parse((await generatedFiles(AFTER)).list).map((tool: { name: string }) => tool.name)).to.not.include('exports_get');
  });

  describe('bounds: tightened refuses a value the base accepted, widened the reverse', () => {
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
      ['minLength up', { minLength: 1 }, { minLength: 2 }, 'tightened'],
      ['minLength down', { minLength: 2 }, { minLength: 1 }, 'widened'],
      ['minLength new', {}, { minLength: 1 }, 'tightened'],
      ['maxLength down', { maxLength: 10 }, { maxLength: 9 }, 'tightened'],
      ['maxLength gone', { maxLength: 10 }, {}, 'widened'],
      ['minItems up', { minItems: 0 }, { minItems: 1 }, 'tightened'],
      ['maxItems up', { maxItems: 5 }, { maxItems: 6 }, 'widened'],
      ['minProperties up', { minProperties: 1 }, { minProperties: 2 }, 'tightened'],
      ['maxProperties down', { maxProperties: 3 }, { maxProperties: 2 }, 'tightened'],
      ['minimum up', { minimum: 0 }, { minimum: 1 }, 'tightened'],
      ['maximum down', { maximum: 10 }, { maximum: 9.5 }, 'tightened'],
      ['maximum up', { maximum: 10 }, { maximum: 11 }, 'widened'],
      ['minimum made exclusive', { minimum: 0 }, { exclusiveMinimum: 0 }, 'tightened'],
      ['exclusiveMinimum made inclusive', { exclusiveMinimum: 0 }, { minimum: 0 }, 'widened'],
      ['maximum made exclusive', { maximum: 10 }, { exclusiveMaximum: 10 }, 'tightened'],
      ['the stronger of minimum and exclusiveMinimum counts', { minimum: 0, exclusiveMinimum: 5 }, { minimum: 5 }, 'widened'],
      ['exclusiveMinimum below minimum is no change of the limit', { minimum: 5 }, { minimum: 5, exclusiveMinimum: 1 }, 'none'],
      ['pattern new', {}, { pattern: '^a' }, 'tightened'],
      ['pattern changed', { pattern: '^a' }, { pattern: '^b' }, 'tightened'],
      ['pattern gone', { pattern: '^a' }, {}, 'widened'],
      ['multipleOf finer', { multipleOf: 0.01 }, { multipleOf: 0.001 }, 'widened'],
      ['multipleOf coarser', { multipleOf: 0.01 }, { multipleOf: 0.05 }, 'tightened'],
      ['uniqueItems on', {}, { uniqueItems: true }, 'tightened'],
      ['uniqueItems off', { uniqueItems: true }, { uniqueItems: false }, 'widened'],
      ['a span shorter (x-kobana-bounds)', { 'maxDays from..to': 366 }, { 'maxDays from..to': 31 }, 'tightened'],
      ['a data bound higher (x-kobana-bounds)', { maxLines: 1000 }, { maxLines: 5000 }, 'widened'],
    ];
    for (const [title, was, is, expected] of cases) {
      it(`${title}: ${expected}`, () => {
        const found = compareBounds(was, is).map(([direction]) => direction);
        expect(found).to.deep.equal(expected === 'none' ? [] : [expected]);
      });
    }
  });

  it('formats: a format new or changed is a tightened bound of an argument, a type change of an output', () => {
    const input = (format?: string) => ({ type: 'object', properties: { at: { type: 'string', ...(format ? { format } : {}) } } });
    expect(diffSchemas('input', 't', input(), input('date')).map((c) => c.kind)).to.deep.equal(['bound_tightened']);
    expect(diffSchemas('input', 't', input('date'), input('date-time')).map((c) => c.kind)).to.deep.equal(['bound_tightened']);
    expect(diffSchemas('input', 't', input('date'), input()).map((c) => c.kind)).to.deep.equal(['bound_widened']);
    expect(diffSchemas('output', 't', input('date'), input()).map((c) => c.kind)).to.deep.equal(['output_type_changed']);
  });

  it('types: a union member removed narrows, an integer widened to a number widens, and shared output shapes ($defs) are followed', () => {
    const union = (...members: object[]) => ({ type: 'object', properties: { ids: { anyOf: members } } });
    expect(diffSchemas('input', 't', union({ type: 'string' }, { type: 'array', items: { type: 'string' } }), union({ type: 'string' })).map((c) => [c.path, c.kind]))
      .to.deep.equal([['ids', 'type_narrowed']]);
    const objects = union({ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'string' } } });
    expect(diffSchemas('input', 't', objects, union({ type: 'object', properties: { a: { type: 'string' } } })).map((c) => [c.path, c.kind]))
      .to.deep.equal([['ids|2', 'type_narrowed']]);
    const number = (type: string) => ({ type: 'object', properties: { n: { type } } });
    expect(diffSchemas('input', 't', number('integer'), number('number')).map((c) => c.kind)).to.deep.equal(['type_widened']);
    const shared = (type: string) => ({ type: 'object', properties: { a: { $ref: '#/$defs/totals' }, b: { $ref: '#/$defs/totals' } }, $defs: { totals: { type: 'object', properties: { sum: { type } } } } });
    // Compared once, at the first path reaching it (codegen/surface/schema-diff.ts).
    expect(diffSchemas('output', 't', shared('number'), shared('string')).map((c) => [c.path, c.kind])).to.deep.equal([['a.sum', 'output_type_changed']]);
  });

  it('compares a base without a review copy on tools-list.gen.json, saying which classes it could not check', async () => {
    const base = readSurface('old', (await generatedFiles(BEFORE)).list, undefined);
    const report = compareSurfaces(base, await surfaceOf(AFTER));
    expect(report.unchecked).to.include.members(['scopes', 'permission', 'moving money', 'validation bounds']);
    const lines = changeLines(report);
    expect(lines).to.include('breaking things_create tags argument_removed').and.include('breaking things_preview  no_longer_read_only');
    expect(lines.some((line) => line.includes('scope_added') || line.includes('moves_money') || line.includes('bound_'))).to.equal(false);
    expect(report.tokens.toolsets.every((toolset) => toolset.before === null)).to.equal(true);
    expect(formatReport(report, 'text')).to.contain('not checked (no readable tools-review.gen.json on one side: missing, of another version or malformed): scopes, permission');
  });

  it('surface:diff --fail-on breaking exits 1 on an unacknowledged break and 0 once x-mcp.breaking acknowledges it', async () => {
    const base = await writeSide(path.join(scratch, 'base'), BEFORE);
    const destructive = (doc: Record<string, any>) => { doc.paths['/things/{id}/archive'].post['x-mcp'].annotations = { destructiveHint: true }; };
    const broken = await writeSide(path.join(scratch, 'broken'), variant(destructive));
    const acknowledged = await writeSide(path.join(scratch, 'acknowledged'), variant((doc) => {
      destructive(doc);
      doc.paths['/things/{id}/archive'].post['x-mcp'].breaking = { since: '2', reason: 'Archiving deletes attachments now.' };
    }));
    const failing = surfaceDiff([base, broken, '--fail-on', 'breaking']);
    expect(failing.status, failing.stderr).to.equal(1);
    expect(failing.stdout).to.contain('things_archive: became destructive');
    expect(failing.stderr).to.contain('unacknowledged breaking changes');
    const passing = surfaceDiff([path.join(base, REVIEW_FILE), path.join(acknowledged, TOOLS_LIST_FILE), '--fail-on', 'breaking', '--format', 'json']);
    expect(passing.status, passing.stderr).to.equal(0);
    const report = JSON.parse(passing.stdout);
    expect(report.breaking).to.deep.equal([]);
    expect(report.acknowledged.map((c: { kind: string; acknowledgement: unknown }) => [c.kind, c.acknowledgement])).to.deep.equal([['became_destructive', { since: '2', reason: 'Archiving deletes attachments now.' }]]);
    expect(surfaceDiff([base, broken]).status, 'without --fail-on the report fails nothing').to.equal(0);
    const unknown = surfaceDiff([base, broken, '--format', 'yaml']);
    expect([unknown.status, unknown.stderr]).to.deep.equal([1, 'error: --format must be one of text, markdown, json, not "yaml"\n']);
  });

  it('generate --check reports against the merge base with main and fails on --fail-on breaking until the break is acknowledged', async () => {
    const repo = path.join(scratch, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.test', '-c', 'user.name=t', ...args], { encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    const spec = writeSpec(repo, 'spec.yaml', readYaml(BEFORE));
    const out = path.join(repo, 'generated');
    const generate = (...extra: string[]) => runCli(['--spec', spec, '--out', out, '--no-type-check', ...extra]);
    expect(generate().status).to.equal(0);
    git('add', '-A'); git('commit', '-qm', 'base');
    git('checkout', '-qb', 'change');
    const doc = readYaml(BEFORE);
    delete doc.paths['/things'].post.requestBody.content['application/json'].schema.properties.tags;
    writeSpec(repo, 'spec.yaml', doc);
    expect(generate().status).to.equal(0);
    git('commit', '-qam', 'drop tags');
    const failing = generate('--check', '--fail-on', 'breaking');
    expect(failing.status, failing.stderr).to.equal(1);
    expect(failing.stdout).to.match(/^tool surface, merge base with main \([0-9a-f]{7}\) → generated now: 1 breaking, 0 compatible, 0 text/);
    expect(failing.stdout).to.contain('things_create tags: argument removed').and.contain(`${out} is up to date`);
    doc.paths['/things'].post['x-mcp'].breaking = { since: '2', reason: 'tags moved to labels.' };
    writeSpec(repo, 'spec.yaml', doc);
    expect(generate().status).to.equal(0);
    const markdown = path.join(scratch, 'surface.md');
    const passing = generate('--check', '--fail-on', 'breaking', '--format', 'markdown', '--report-file', markdown);
    expect(passing.status, passing.stdout + passing.stderr).to.equal(0);
    expect(readFileSync(markdown, 'utf8')).to.contain('#### Breaking, acknowledged (`x-mcp.breaking`)').and.contain('tags moved to labels.');
    const named = generate('--check', '--base', 'main');
    expect(named.stdout).to.match(/^tool surface, main \([0-9a-f]{7}\) → generated now: 1 breaking \(1 acknowledged\), 0 compatible, 0 text/);
  });

  it('counts the tokens of our own contract\'s review copy as tools/list shows them (one definition, codegen/surface/tokens.ts)', () => {
    const listed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'generated', TOOLS_LIST_FILE), 'utf8')) as Array<{ name: string; description: string; inputSchema: unknown }>;
    const review = JSON.parse(readFileSync(path.join(REPO_ROOT, 'generated', REVIEW_FILE), 'utf8')) as { tools: Array<{ name: string; tokens: number }> };
    expect(listed).to.not.be.empty;
    expect(review.tools.map((tool) => tool.name)).to.deep.equal(listed.map((tool) => tool.name));
    const tokens = new Map(review.tools.map((tool) => [tool.name, tool.tokens]));
    for (const tool of listed) expect(tokens.get(tool.name), tool.name).to.equal(countModelVisible(tool));
  });
});
