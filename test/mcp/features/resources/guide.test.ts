/**
 * The agent guide names only tools that exist (issue 8 "Done when"): every `finance_…` token in
 * kobana://finance/guide must be a tool of generated/registry.gen.ts; and every list tool is in
 * it, written into the prose or added by `guideMarkdown` — so a new endpoint needs no edit here.
 */
import { expect } from 'chai';
import { tools } from '../../../../generated/registry.gen.js';
import { guideMarkdown } from '../../../../src/mcp/features/resources/guide.js';

describe('kobana://finance/guide', function () {
  const names = tools.map((tool) => tool.name);
  const guide = guideMarkdown(names);

  it('names only tools of the generated registry', function () {
    const known = new Set(names);
    const named = [...new Set(guide.match(/finance_[a-z_]+/g) ?? [])];
    expect(named.length).to.be.greaterThan(10);
    expect(named.filter((name) => !known.has(name))).to.deep.equal([]);
  });

  it('names the list tool of every resource with a list operation', function () {
    const lists = names.filter((name) => name.endsWith('_list'));
    expect(lists.filter((name) => !guide.includes(name))).to.deep.equal([]);
  });

  it('adds a list tool the prose does not name as a row of the question table', function () {
    const withNew = guideMarkdown([...names, 'finance_budgets_list']);
    expect(withNew).to.match(/\n\| Other records \| `finance_budgets_list` \|\n/);
    expect(withNew.indexOf('finance_budgets_list')).to.be.lessThan(withNew.indexOf('## Workspaces'));
  });
});
