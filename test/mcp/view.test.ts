/**
 * readToolView() (src/mcp/view.ts): how the URL and the headers combine into one request's view,
 * and what is refused. The end-to-end behaviour through the SDK client is views.test.ts.
 */
import { expect } from 'chai';
import { JsonRpcError } from '../../src/mcp/json-rpc.js';
import { DEFAULT_VIEW, readToolView, type QueryReader, type ToolView } from '../../src/mcp/view.js';

const KNOWN = new Set(['payables', 'receivables', 'taxes', 'people']);

function read(query: QueryReader, headers: Record<string, string> = {}): ToolView {
  return readToolView(query, (name) => headers[name], KNOWN);
}

function refusal(query: QueryReader, headers: Record<string, string> = {}): JsonRpcError {
  try {
    read(query, headers);
  } catch (error) {
    if (error instanceof JsonRpcError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('readToolView()', function () {
  it('is the default view when nothing is asked (empty values included)', function () {
    expect(read({})).to.equal(DEFAULT_VIEW);
    expect(read({ toolsets: '', read_only: 'false', schema: 'canonical' }, { 'x-mcp-toolsets': ' , ' })).to.equal(DEFAULT_VIEW);
  });

  it('reads toolsets from a comma list, repeated names and the header; URL and header intersect', function () {
    expect([...read({ toolsets: 'payables, receivables' }).toolsets!]).to.deep.equal(['payables', 'receivables']);
    expect([...read({ toolsets: ['payables', 'taxes'] }).toolsets!]).to.deep.equal(['payables', 'taxes']);
    expect([...read({}, { 'x-mcp-toolsets': 'people' }).toolsets!]).to.deep.equal(['people']);
    expect([...read({ toolsets: 'payables,taxes' }, { 'x-mcp-toolsets': 'taxes,people' }).toolsets!]).to.deep.equal(['taxes']);
    expect([...read({ toolsets: 'payables' }, { 'x-mcp-toolsets': 'people' }).toolsets!]).to.deep.equal([]);
  });

  it('turns read-only on when either source says true (true/1, any case)', function () {
    expect(read({ read_only: 'TRUE' }).readOnly).to.equal(true);
    expect(read({ read_only: 'false' }, { 'x-mcp-readonly': '1' }).readOnly).to.equal(true);
    expect(read({ read_only: '0' }).readOnly).to.equal(false);
  });

  it('reads the schema form from either source; the same form twice is fine', function () {
    expect(read({ schema: 'OpenAI' }).schemaProfile).to.equal('openai');
    expect(read({}, { 'x-mcp-schema': 'gemini' }).schemaProfile).to.equal('gemini');
    expect(read({ schema: 'gemini' }, { 'x-mcp-schema': 'gemini' }).schemaProfile).to.equal('gemini');
  });

  it('refuses unknown values with -32602 on HTTP 400, naming what is accepted', function () {
    const unknown = refusal({ toolsets: 'payables,nope' });
    expect([unknown.code, unknown.httpStatus, unknown.message]).to.deep.equal([-32602, 400, 'Unknown toolset: nope']);
    expect(unknown.data).to.deep.equal({ accepted: { toolsets: ['payables', 'people', 'receivables', 'taxes'] } });
    expect(refusal({}, { 'x-mcp-toolsets': 'x'.repeat(500) }).message).to.equal(`Unknown toolset: ${'x'.repeat(40)}`);
    expect(refusal({ read_only: 'yes' }).message).to.equal('Read-only must be true or false');
    expect(refusal({ schema: 'claude' }).data).to.deep.equal({ accepted: { schema: ['canonical', 'openai', 'gemini'] } });
    expect(refusal({ schema: 'openai' }, { 'x-mcp-schema': 'gemini' }).message).to.equal('Conflicting schema forms in the URL and headers');
  });
});
