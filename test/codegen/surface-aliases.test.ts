/**
 * `x-mcp.aliases` and `x-mcp.breaking` at build time (issue 28.6): an alias is carried to the
 * operation module (`toolAliases`) and the review copy, never to tools-list.gen.json; a bad alias or
 * acknowledgement is an error naming file#pointer; an alias past its `until` (against today in UTC,
 * or the date given) is an EXPIRED_ALIAS warning and, under --strict, fails the run.
 */
import { expect } from 'chai';
import { CodegenError } from '../../codegen/errors.js';
import { generate } from '../../codegen/generate.js';
import { loadSpec } from '../../codegen/load-spec.js';
import { planSpec } from '../../codegen/plan-spec.js';
import { utcToday } from '../../codegen/surface/aliases.js';
import type { Doc } from './support.js';
import { runCli } from './support.js';
import { generatedFiles, variant } from './surface-support.js';

const ALIASED = '/reports';
const withAliases = (aliases: unknown, extra: Doc = {}) => variant((doc) => { doc.paths[ALIASED].get['x-mcp'] = { name: 'reports_summary', aliases, ...extra }; });

async function planError(file: string): Promise<CodegenError> {
  try {
    planSpec(await loadSpec(file));
  } catch (error) {
    if (error instanceof CodegenError) return error;
    throw error;
  }
  throw new Error('expected a CodegenError');
}

describe('x-mcp.aliases and x-mcp.breaking (generator)', function () {
  this.timeout(60_000);

  it('keeps an alias on the operation and in the review copy, out of tools/list', async () => {
    const file = withAliases([{ name: 'reports_get', until: '2099-12-31' }]);
    const plan = planSpec(await loadSpec(file));
    const tool = plan.tools.find((each) => each.name === 'reports_summary')!;
    expect(tool.aliases).to.deep.equal([{ name: 'reports_get', until: '2099-12-31' }]);
    expect(plan.operations.find((each) => each.definition.toolName === 'reports_summary')!.definition.toolAliases).to.deep.equal([{ name: 'reports_get', until: '2099-12-31' }]);
    const { list, review } = await generatedFiles(file);
    expect(list).to.not.contain('reports_get');
    expect(JSON.parse(review).tools.find((each: { name: string }) => each.name === 'reports_summary').aliases).to.deep.equal([{ name: 'reports_get', until: '2099-12-31' }]);
    // An operation without aliases has no toolAliases key: the generated modules of our contract do not change.
    expect(plan.operations.filter((each) => each.definition.toolName !== 'reports_summary').every((each) => !('toolAliases' in each.definition))).to.equal(true);
  });

  const refused: Array<[string, () => string, string, string]> = [
    ['an alias that is not a tool name', () => withAliases([{ name: 'Reports-Get', until: '2099-12-31' }]), 'INVALID_NAME', '/x-mcp/aliases/0/name'],
    ['an alias that is another tool\'s name', () => withAliases([{ name: 'things_get', until: '2099-12-31' }]), 'NAME_CLASH', '/x-mcp/aliases/0/name'],
    ['an alias declared twice', () => withAliases([{ name: 'reports_get', until: '2099-12-31' }, { name: 'reports_get', until: '2099-12-31' }]), 'NAME_CLASH', '/x-mcp/aliases/1/name'],
    ['an until that is not a date', () => withAliases([{ name: 'reports_get', until: '2099-02-30' }]), 'INVALID_EXTENSION', '/x-mcp/aliases/0/until'],
    ['aliases that are not a list', () => withAliases({ name: 'reports_get' }), 'INVALID_EXTENSION', '/x-mcp/aliases'],
    ['an alias on an excluded operation', () => withAliases([{ name: 'reports_get', until: '2099-12-31' }], { exclude: true }), 'INVALID_EXTENSION', '/x-mcp/aliases/0/name'],
    ['a breaking acknowledgement without a reason', () => variant((doc) => { doc.paths['/things/{id}'].get['x-mcp'].breaking = { since: '2' }; }), 'INVALID_EXTENSION', '/x-mcp/breaking'],
    ['a breaking acknowledgement with another key', () => variant((doc) => { doc.paths['/things/{id}'].get['x-mcp'].breaking = { since: '2', reason: 'r', ticket: 'X-1' }; }), 'INVALID_EXTENSION', '/x-mcp/breaking'],
  ];
  for (const [title, make, code, pointer] of refused) {
    it(`refuses ${title}, naming file#pointer`, async () => {
      const file = make();
      const error = await planError(file);
      expect(error.code).to.equal(code);
      expect(error.file).to.equal(file);
      expect(error.pointer).to.match(new RegExp(`^#/paths/.+${pointer.replace(/\//g, '\\/')}$`));
    });
  }

  it('warns of an alias past its until (EXPIRED_ALIAS), the day after and not on the day', async () => {
    const spec = await loadSpec(withAliases([{ name: 'reports_get', until: '2030-06-30' }]));
    expect(planSpec(spec, { today: '2030-06-30' }).warnings.filter((w) => w.rule === 'EXPIRED_ALIAS')).to.deep.equal([]);
    const [warning, ...more] = planSpec(spec, { today: '2030-07-01' }).warnings.filter((w) => w.rule === 'EXPIRED_ALIAS');
    expect(more).to.deep.equal([]);
    expect(warning!.pointer).to.equal('#/paths/~1reports/get/x-mcp/aliases/0');
    expect(warning!.detail).to.equal('alias reports_get of reports_summary was answered until 2030-06-30 (today is 2030-07-01, UTC); remove it');
    expect(utcToday(Date.UTC(2030, 6, 1, 23, 59))).to.equal('2030-07-01');
  });

  it('fails generate --strict on an expired alias (in process with a given date, and from the command line)', async () => {
    const file = withAliases([{ name: 'reports_get', until: '2030-06-30' }]);
    const error = await generate(file, { strict: true, typeCheck: false, today: '2030-07-01' }).then(() => undefined, (caught: unknown) => caught);
    // One problem is thrown as itself, several as an AggregateError (codegen/generate.ts check).
    expect(error).to.be.instanceOf(CodegenError);
    expect([error as CodegenError].map((each) => each.detail)).to.deep.equal(['alias reports_get of reports_summary was answered until 2030-06-30 (today is 2030-07-01, UTC); remove it [EXPIRED_ALIAS; not allowed with --strict]']);
    const expired = withAliases([{ name: 'reports_get', until: '2000-01-01' }]);
    const run = runCli(['--spec', expired, '--out', `${expired}.out`, '--no-type-check', '--strict']);
    expect(run.status).to.equal(1);
    expect(run.stderr).to.contain('x-mcp/aliases/0: alias reports_get of reports_summary was answered until 2000-01-01').and.contain('[EXPIRED_ALIAS; not allowed with --strict]');
    const lenient = runCli(['--spec', expired, '--out', `${expired}.out`, '--no-type-check']);
    expect(lenient.status, lenient.stderr).to.equal(0);
    expect(lenient.stderr).to.contain('warning: ').and.contain('[EXPIRED_ALIAS]');
  });
});
