/**
 * The agent guide names only tools that exist (issue 8 "Done when"): every `finance_…` token in
 * kobana://finance/guide must be a tool of generated/registry.gen.ts.
 */
import { expect } from 'chai';
import { tools } from '../../../../generated/registry.gen.js';
import { GUIDE_MARKDOWN } from '../../../../src/mcp/features/resources/guide.js';

describe('kobana://finance/guide', function () {
  it('names only tools of the generated registry', function () {
    const names = new Set(tools.map((tool) => tool.name));
    const named = [...new Set(GUIDE_MARKDOWN.match(/finance_[a-z_]+/g) ?? [])];
    expect(named.length).to.be.greaterThan(10);
    expect(named.filter((name) => !names.has(name))).to.deep.equal([]);
  });

  it('names the list tool of every resource with a list operation', function () {
    const lists = tools.filter((tool) => tool.name.endsWith('_list')).map((tool) => tool.name);
    expect(lists.filter((name) => !GUIDE_MARKDOWN.includes(name))).to.deep.equal([]);
  });
});
