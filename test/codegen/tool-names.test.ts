/**
 * Tool names from the operationIds real documents carry (issue 16): hyphens, dots, `.yml`
 * suffixes, spaces, non-Latin script, over 64 characters, two that meet in snake_case, none at
 * all — always valid, unique and stable, with a hash suffix only where names would clash — and
 * parameters named like JavaScript reserved words reaching the operation.
 */
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { generate, type GenerateResult } from '../../codegen/generate.js';
import { loadSpec } from '../../codegen/load-spec.js';
import { isValidToolName, usableOperationSlug, withHashSuffix } from '../../codegen/naming.js';
import { planSpec } from '../../codegen/plan-spec.js';
import { compileArgumentValidators } from '../../src/mcp/tools/arguments.js';
import { buildToolInput } from '../../src/mcp/tools/input.js';
import { FIXTURES, makeTempDir, readYaml, writeSpec } from './support.js';

const BAD_NAMES = path.join(FIXTURES, 'bad-names.yaml');

describe('usableOperationSlug() and withHashSuffix()', () => {
  const table: Array<{ given: string | undefined; want: string | undefined }> = [
    { given: 'get-report.by-date', want: 'get_report_by_date' },
    { given: 'resources/reports/create.yml', want: 'resources_reports_create' },
    { given: 'create.json', want: 'create' },
    { given: 'Archive Report Now', want: 'archive_report_now' },
    { given: 'Relatório Ação', want: 'relatorio_acao' },
    { given: 'レポートを共有', want: undefined },
    { given: '123-456', want: undefined },
    { given: '', want: undefined },
    { given: undefined, want: undefined },
  ];
  for (const { given, want } of table) {
    it(`reads ${JSON.stringify(given)} as ${String(want)}`, () => expect(usableOperationSlug(given)).to.equal(want));
  }

  it('suffixes a hash of the identity, keeping names valid and at most 64 characters', () => {
    const long = withHashSuffix(`finance_${'x'.repeat(70)}`, 'GET /x');
    expect(long).to.have.length(64);
    expect(isValidToolName(long)).to.equal(true);
    expect(withHashSuffix('finance_copy', 'POST /a')).to.match(/^finance_copy_[0-9a-f]{8}$/);
    expect(withHashSuffix('finance_copy', 'POST /a')).to.not.equal(withHashSuffix('finance_copy', 'POST /b'));
  });
});

describe('tool names of a document with unusable operationIds', function () {
  this.timeout(60_000);
  let result: GenerateResult;
  before(async () => { result = await generate(BAD_NAMES); }); // type-checked: the modules of odd names compile

  it('gives every operation a valid, unique name; a hash suffix only to the two that would clash', () => {
    const names = result.plan.tools.map((tool) => `${tool.operation.method} ${tool.operation.path} → ${tool.name}`);
    // hand-kept-ok: the names of the fixture test/fixtures/specs/bad-names.yaml, the subject of this test
    expect(names).to.have.members([
      'POST /reports/{id}/archive → archive_report_now',
      'POST /reports/{id}/duplicate → copy_report_76fcc4cd',
      'POST /reports/{id}/copy → copy_report_c3a956a8',
      'POST /reports/{id}/export-to-the-accounting-system-of-the-parent-company → export_report_to_the_accounting_system_of_the_parent_co_8d2712c4',
      'GET /reports/{from} → get_report_by_date',
      'GET /reports/summary → get_reports_summary',
      'POST /reports/{id}/share → post_reports_by_id_share',
      'POST /reports → resources_reports_create',
    ]);
    expect(result.plan.tools).to.not.be.empty;
    for (const tool of result.plan.tools) expect(isValidToolName(tool.name), tool.name).to.equal(true);
    expect(new Set(result.plan.tools.map((tool) => tool.name)).size).to.equal(result.plan.tools.length);
    expect(new Set(result.plan.operations.map((o) => o.module)).size).to.equal(result.plan.operations.length);
  });

  it('reports each derived or disambiguated name as a warning naming the operation', () => {
    expect(result.warnings.map((w) => `${w.rule} ${w.pointer}`)).to.have.members([
      'DERIVED_TOOL_NAME #/paths/~1reports~1{id}~1share/post/operationId',
      'DERIVED_TOOL_NAME #/paths/~1reports~1{id}~1copy/post',
      'DERIVED_TOOL_NAME #/paths/~1reports~1{id}~1duplicate/post',
    ]);
    expect(result.warnings.find((w) => w.pointer.endsWith('/operationId'))?.detail).to.equal(
      'operationId "レポートを共有" gives no usable tool name; named post_reports_by_id_share from its method and path');
  });

  it('keeps the declared operationId as the operation\'s identity, whatever its name', () => {
    const ids = result.plan.operations.map((o) => o.definition.operation.operationId);
    expect(ids).to.include.members(['レポートを共有', 'resources/reports/create.yml', 'copy.report', 'copy-report']);
  });

  it('names stay the same when the document lists its operations in another order', async () => {
    const dir = makeTempDir();
    try {
      const doc = readYaml(BAD_NAMES);
      doc.paths = Object.fromEntries(Object.entries(doc.paths as Record<string, unknown>).reverse());
      const reversed = planSpec(await loadSpec(writeSpec(dir, 'reversed.yaml', doc)));
      const byPath = (tools: typeof reversed.tools) => Object.fromEntries(tools.map((t) => [`${t.operation.method} ${t.operation.path}`, t.name]));
      expect(byPath(reversed.tools)).to.deep.equal(byPath(result.plan.tools));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('passes parameters named from, default, function and private (and body fields class, new, constructor) to the operation', () => {
    const tools = result.plan.tools;
    const report = tools.find((tool) => tool.name === 'get_report_by_date')!;
    const args = { from: '2026-01-31', default: true, function: 'sum', private: 'yes' };
    expect(compileArgumentValidators(tools).get(report.name)?.(args)).to.equal(null);
    const { input } = buildToolInput(report, args);
    expect(input.path).to.deep.equal({ from: '2026-01-31' });
    expect(input.query).to.deep.include({ default: true, function: 'sum' });
    const create = tools.find((tool) => tool.name === 'resources_reports_create')!;
    const body = { class: 'A', new: true, constructor: 'x' };
    expect(compileArgumentValidators(tools).get(create.name)?.(body)).to.equal(null);
    expect(buildToolInput(create, body).input.body).to.deep.equal(body);
  });
});
