/**
 * parseResourceUri(), matchTemplate() and buildCategoryTree(): the pure parts of resources.
 */
import { expect } from 'chai';
import { buildCategoryTree } from '../../../../src/mcp/features/resources/fixed.js';
import { matchTemplate, parseResourceUri } from '../../../../src/mcp/features/resources/uri.js';
import { resourceTemplates } from '../../../../generated/registry.gen.js';

describe('parseResourceUri()', function () {
  const cases = [
    { given: 'kobana://finance/guide', want: { segments: ['guide'], workspaceId: undefined } },
    { given: 'kobana://finance/payables/abc?workspace_id=w1', want: { segments: ['payables', 'abc'], workspaceId: 'w1' } },
    { given: 'kobana://finance/payables/a%20b', want: { segments: ['payables', 'a b'], workspaceId: undefined } },
    { given: 'kobana://finance/payables/abc?workspace_id=w1&workspace_id=w2', want: null },
    { given: 'kobana://finance/payables/abc?limit=1', want: null },
    { given: 'kobana://finance/payables/abc?workspace_id=', want: null },
    { given: 'kobana://finance/payables//abc', want: null },
    { given: 'kobana://finance/payables/%E0%A4%A', want: null },
    { given: 'kobana://other/payables/abc', want: null },
    { given: 'kobana://finance/payables/abc#x', want: null },
  ];
  for (const { given, want } of cases) {
    it(`parses ${given}`, function () {
      expect(parseResourceUri(given)).to.deep.equal(want);
    });
  }
});

describe('matchTemplate()', function () {
  it('matches each generated template and nothing deeper', function () {
    for (const template of resourceTemplates) {
      const uri = template.uriTemplate.replace('{id}', 'X1');
      const match = matchTemplate(resourceTemplates, parseResourceUri(uri) ?? { segments: [], workspaceId: undefined });
      expect(match?.template).to.equal(template);
      expect(match?.id).to.equal('X1');
    }
    expect(matchTemplate(resourceTemplates, { segments: ['payables', 'x', 'settle'], workspaceId: undefined })).to.equal(null);
  });
});

describe('buildCategoryTree()', function () {
  it('nests children under parents, sorts by name and keeps orphans as roots', function () {
    const tree = buildCategoryTree([
      { id: 'c', name: 'Rent', type: 'debit', level: 2, parent_id: 'a' },
      { id: 'a', name: 'Expenses', type: 'debit', level: 1, parent_id: null },
      { id: 'b', name: 'Banking', type: 'debit', level: 2, parent_id: 'a' },
      { id: 'd', name: 'Orphan', type: 'credit', level: 2, parent_id: 'gone' },
    ]);
    expect(tree.map((node) => node.id)).to.deep.equal(['a', 'd']);
    expect(tree[0]?.children.map((node) => node.name)).to.deep.equal(['Banking', 'Rent']);
  });
});
