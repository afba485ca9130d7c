/**
 * The change report against what a hostile or odd document, or an odd base, can do to it (review of
 * issue 28.6): spec texts cannot forge Markdown in a pull-request comment, an alias cannot launder an
 * unrelated removal, an acknowledgement counts only against a base that can show it is new, values
 * are compared as JSON, a malformed or future review copy is "no review copy", shared definitions are
 * compared once, and the classes of outputs and defaults.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compareSurfaces } from '../../codegen/surface/diff.js';
import { formatReport } from '../../codegen/surface/format.js';
import { diffSchemas } from '../../codegen/surface/schema-diff.js';
import { REVIEW_FILE, TOOLS_LIST_FILE } from '../../codegen/surface/review.js';
import { readSurface, type ListedTool, type Surface } from '../../codegen/surface/surface.js';
import { makeTempDir, readYaml, REPO_ROOT, runCli, SURFACE_DIFF_CLI, writeSpec } from './support.js';
import { BEFORE, changeLines, generatedFiles, surfaceOf, variant } from './surface-support.js';

const tool = (name: string, outputSchema: object, inputSchema: object = { type: 'object' }): ListedTool => ({ name, description: 'd', inputSchema, outputSchema } as ListedTool);
const side = (label: string, tools: readonly ListedTool[], review?: unknown): ReturnType<typeof readSurface> =>
  readSurface(label, JSON.stringify(tools), review === undefined ? undefined : JSON.stringify(review));

/** The cells of a GFM table row as cmark-gfm splits it: at every `|` not escaped by a backslash. */
function cells(row: string): string[] {
  const found: string[] = [];
  let current = '';
  for (let i = 0; i < row.length; i += 1) {
    if (row[i] === '\\' && i + 1 < row.length) { current += row.slice(i, i + 2); i += 1; } else if (row[i] === '|') { found.push(current); current = ''; } else current += row[i];
  }
  return [...found, current].slice(1, -1);
}

describe('tool-surface change report: hardening', function () {
  this.timeout(60_000);

  it('Markdown: a name or text of the spec stays inside its table cell and forges no heading, image, link or mention', () => {
    const hostile = 'x\n\n## All clear\n![p](https://e.example/p.png) [click](https://e.example) @octocat a\\|b';
    const output = (extra: object) => ({ type: 'object', properties: { keep: { type: 'string', description: 'old' }, ...extra } });
    const base = side('base', [tool('t', output({ ids: { anyOf: [{ type: 'string' }, { type: 'object' }] } }))]);
    const head = side('head', [tool('t', { ...output({ [hostile]: { type: 'string' } }), properties: { keep: { type: 'string', description: hostile }, [hostile]: { type: 'string' }, ids: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } })]);
    const markdown = formatReport(compareSurfaces(base, head), 'markdown');
    const rows = markdown.split('\n').filter((line) => line.startsWith('| `t`'));
    expect(rows.length, markdown).to.be.greaterThan(2);
    for (const row of rows) expect(cells(row), row).to.have.length(4);
    expect(markdown).to.not.match(/^#+ All clear/m);
    const prose = markdown.replace(/`[^`\n]*`/g, '');
    expect(prose, 'outside code spans').to.contain('click').and.not.match(/(^|[^\\])!?\[(p|click)\]\(/);
    expect(prose).to.not.match(/@octocat/);
    expect(rows.some((row) => row.includes('`ids\\|2`')), 'a union path keeps its `|`, escaped').to.equal(true);
  });
});

describe('tool-surface change report: hardening (fixture documents)', function () {
  this.timeout(60_000);
  let base: Surface;
  before(async () => { base = await surfaceOf(BEFORE); });

  it('an alias handing a removed tool\'s name to another operation is breaking, not a compatible rename', async () => {
    const retarget = (name: string) => variant((doc) => {
      delete doc.paths['/things/{id}/notes/{note}'];
      doc.paths['/reports'].get['x-mcp'] = { name, aliases: [{ name: 'things_note_delete', until: '2099-01-31' }] };
    });
    for (const name of ['reports_summary', 'reports_get']) {
      const report = compareSurfaces(base, await surfaceOf(retarget(name)));
      expect(changeLines(report).filter((line) => line.includes('things_note_delete')), name).to.deep.equal(['breaking things_note_delete  alias_retargeted']);
      expect(report.breaking.find((c) => c.tool === 'things_note_delete')!.detail).to.equal(`now answered as ${name} (reports.get), not things.notes.delete`);
    }
  });
});

describe('tool-surface change report: union members', function () {
  this.timeout(60_000);
  const union = (...members: object[]) => ({ type: 'object', properties: { ref: { anyOf: members } } });

  it('pairs members by the types they accept before their position: a reordered union is no change, a change is named at the base\'s member', () => {
    expect(diffSchemas('input', 't', union({ type: 'string' }, { type: 'integer' }), union({ type: 'integer' }, { type: 'string' }))).to.deep.equal([]);
    const described = diffSchemas('input', 't', union({ type: 'string' }, { type: 'integer' }), union({ type: 'integer', description: 'n' }, { type: 'string' }));
    expect(described.map((c) => [c.path, c.kind])).to.deep.equal([['ref|2', 'argument_description']]);
    const objects = (...names: string[]) => union(...names.map((name) => ({ type: 'object', properties: { [name]: { type: 'string' } } })));
    expect(diffSchemas('input', 't', objects('a', 'b'), objects('a', 'c')).map((c) => [c.path, c.kind]), 'same types: by position').to.deep.equal([['ref|2.b', 'argument_renamed']]);
  });

  it('compares the validation bounds of reordered members with their partner (review copy)', async () => {
    const member = { string: { type: 'string', maxLength: 10 }, integer: { type: 'integer', minimum: 0 } };
    const withUnion = (order: Array<keyof typeof member>, maxLength = 10) => variant((doc) => {
      doc.paths['/things'].post.requestBody.content['application/json'].schema.properties.ref = { anyOf: order.map((type) => (type === 'string' ? { ...member.string, maxLength } : member[type])) };
    });
    const base = await surfaceOf(withUnion(['string', 'integer']));
    expect(base.tools.get('things_create')!.review!.bounds).to.have.property('ref|1');
    expect(changeLines(compareSurfaces(base, await surfaceOf(withUnion(['integer', 'string']))))).to.deep.equal([]);
    expect(changeLines(compareSurfaces(base, await surfaceOf(withUnion(['integer', 'string'], 5))))).to.deep.equal(['breaking things_create ref|1 bound_tightened']);
  });
});

describe('tool-surface change report: acknowledgements against a base without a review copy', function () {
  this.timeout(60_000);

  it('counts no x-mcp.breaking as new, so a break stays unacknowledged, and says acknowledgements were not checked', async () => {
    const old = readSurface('old', (await generatedFiles(BEFORE)).list, undefined);
    const acknowledged = await surfaceOf(variant((doc) => {
      doc.paths['/things/{id}/archive'].post['x-mcp'] = { name: 'things_archive', breaking: { since: '2', reason: 'r' }, annotations: { destructiveHint: true } };
    }));
    const report = compareSurfaces(old, acknowledged);
    expect(changeLines(report)).to.deep.equal(['breaking things_archive  became_destructive']);
    expect(report.unchecked).to.include('acknowledgements (x-mcp.breaking)');
  });
});

describe('tool-surface change report: schema comparison', () => {
  const field = (schema: object) => ({ type: 'object', properties: { v: schema } });
  const kinds = (role: 'input' | 'output', was: object, is: object) => diffSchemas(role, 't', field(was), field(is)).map((c) => `${c.kind} ${c.detail}`);

  it('tells enum values apart as JSON: [1, 2] → ["1", "2"] is a change', () => {
    expect(kinds('input', { enum: [1, 2] }, { enum: ['1', '2'] })).to.deep.equal(['enum_value_removed 1, 2', 'enum_value_added 1, 2']);
    expect(kinds('input', { const: true }, { const: 'true' })).to.deep.equal(['enum_value_removed true', 'enum_value_added true']);
    expect(kinds('output', { enum: [1, 2] }, { enum: ['1', '2'] })).to.have.length(2);
    expect(kinds('input', { enum: ['a', 'b'] }, { enum: ['b', 'a'] }), 'the order of values is no change').to.deep.equal([]);
  });

  it('outputs: a field always returned that may now be left out breaks a caller relying on it', () => {
    // Listed output schemas keep `required` only on the result wrapper (src/runtime/output-schema.ts): that one is what this guards.
    const result = (required: string[]) => ({ type: 'object', properties: { result: { type: 'object' } }, required });
    expect(diffSchemas('output', 't', result(['result']), result([])).map((c) => `${c.class} ${c.path} ${c.kind}`)).to.deep.equal(['breaking result output_field_optional']);
    expect(diffSchemas('output', 't', result([]), result(['result']))).to.deep.equal([]);
  });

  it('outputs: an enum value added is breaking (callers may not know it), one removed compatible; any value where an enum was is breaking', () => {
    const classes = (was: object, is: object) => diffSchemas('output', 't', field(was), field(is)).map((c) => `${c.class} ${c.kind}`);
    expect(classes({ enum: ['a'] }, { enum: ['a', 'b'] })).to.deep.equal(['breaking output_value_added']);
    expect(classes({ enum: ['a', 'b'] }, { enum: ['a'] })).to.deep.equal(['compatible output_value_removed']);
    expect(classes({ enum: ['a'] }, {})).to.deep.equal(['breaking output_value_added']);
    expect(classes({}, { const: 'a' })).to.deep.equal(['compatible output_value_removed']);
  });

  it('an argument\'s default changed is breaking: a call leaving it out now does something else', () => {
    expect(diffSchemas('input', 't', field({ type: 'string', default: 'open' }), field({ type: 'string', default: 'all' })).map((c) => `${c.class} ${c.kind}`)).to.deep.equal(['breaking default_changed']);
  });

  it('compares a definition shared along many paths once, at the first path reaching it (not once per path)', () => {
    // d0 → d1 → … → d16, each through two fields: 2^16 paths reach d16.
    const chain = (leaf: string) => {
      const defs: Record<string, object> = { d16: { type: 'object', properties: { sum: { type: leaf } } } };
      for (let i = 15; i >= 0; i -= 1) defs[`d${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/d${i + 1}` }, b: { $ref: `#/$defs/d${i + 1}` } } };
      return { $ref: '#/$defs/d0', $defs: defs };
    };
    const changes = diffSchemas('output', 't', chain('number'), chain('string'));
    expect(changes.map((c) => [c.path, c.kind])).to.deep.equal([[`${'a.'.repeat(16)}sum`, 'output_type_changed']]);
  });
});

describe('tool-surface change report: the review copy read', function () {
  this.timeout(60_000);

  it('reads a review copy of another version, or a malformed one, as no review copy (listed as unchecked), never a crash', async () => {
    const { list, review } = await generatedFiles(BEFORE);
    const copy = JSON.parse(review) as { version: number; tools: Array<Record<string, unknown>> };
    expect(copy.tools).to.not.be.empty;
    const withoutScopes = { ...copy, tools: copy.tools.map(({ scopes: _scopes, ...tool }) => tool) };
    const cases: Array<[string, unknown]> = [['a future version', { ...copy, version: copy.version + 1 }], ['no version', { ...copy, version: undefined }],
      ['a tool without scopes', withoutScopes], ['a tool list that is not a list', { ...copy, tools: {} }], ['not an object', [1]]];
    const head = await surfaceOf(BEFORE);
    for (const [title, value] of cases) {
      const base = readSurface('old', list, JSON.stringify(value));
      expect(base.hasReview, title).to.equal(false);
      const report = compareSurfaces(base, head);
      expect(report.unchecked, title).to.include('scopes');
      expect(changeLines(report), title).to.deep.equal([]);
    }
    expect(readSurface('same', list, review).hasReview, 'the copy as written is read').to.equal(true);
  });
});

describe('tool-surface change report: the base of generate and surface:diff', function () {
  this.timeout(180_000);
  let repo: string;
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.test', '-c', 'user.name=t', ...args], { encoding: 'utf8' });
  const generate = (...extra: string[]) => runCli(['--spec', path.join(repo, 'spec.yaml'), '--out', path.join(repo, 'generated'), '--no-type-check', ...extra]);
  const surfaceDiff = (...args: string[]) => runCli([...args, '--out', path.join(repo, 'generated')], SURFACE_DIFF_CLI);
  const dropTags = () => {
    const doc = readYaml(BEFORE);
    delete doc.paths['/things'].post.requestBody.content['application/json'].schema.properties.tags;
    writeSpec(repo, 'spec.yaml', doc);
  };
  beforeEach(() => {
    repo = makeTempDir('kobana-surface-base-');
    git('init', '-q', '-b', 'work');
    writeSpec(repo, 'spec.yaml', readYaml(BEFORE));
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('an explicit --base whose tools list or review copy cannot be read is an error (exit 1, one line), for generate and surface:diff', () => {
    writeFileSync(path.join(repo, 'README'), 'x');
    git('add', '-A'); git('commit', '-qm', 'nothing generated');
    expect(generate().status).to.equal(0);
    for (const run of [generate('--check', '--base', 'HEAD'), surfaceDiff('HEAD')]) {
      expect([run.status, run.stderr.trim().split('\n').filter((line) => line.startsWith('error: '))]).to.deep.equal([1, [`error: HEAD has no ${path.join(repo, 'generated')}/${TOOLS_LIST_FILE}`]]);
    }
    rmSync(path.join(repo, 'generated', REVIEW_FILE));
    git('add', '-A'); git('commit', '-qm', 'no review copy');
    expect(generate().status).to.equal(0);
    for (const run of [generate('--check', '--base', 'HEAD'), surfaceDiff('HEAD')]) {
      expect(run.status, run.stdout).to.equal(1);
      expect(run.stderr).to.match(new RegExp(`^error: HEAD \\([0-9a-f]{7}\\) has no readable .*/${REVIEW_FILE.replace(/\./g, '\\.')} \\(missing, of another version or malformed\\)$`, 'm'));
    }
  });

  it('without a merge base with main, compares with the copy on disk and says so; plain generate reports too, against the copy it overwrites', () => {
    expect(generate().status).to.equal(0);
    git('add', '-A'); git('commit', '-qm', 'base');
    dropTags();
    const written = generate();
    expect(written.status, written.stderr).to.equal(0);
    expect(written.stdout).to.match(/^generated \d+ tools/);
    expect(written.stdout).to.contain(`tool surface, ${path.join(repo, 'generated')} on disk (no merge base with main or origin/main found) → generated now: 1 breaking`)
      .and.contain('things_create tags: argument removed');
    const checked = generate('--check');
    expect(checked.status).to.equal(0);
    expect(checked.stdout).to.contain('(no merge base with main or origin/main found) → generated now: no changes');
  });
});
