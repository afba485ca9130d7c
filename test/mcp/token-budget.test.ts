/**
 * The token budget of the tool surface (issue 17; issue 25, "a token budget that lets the API
 * grow"; docs/protocol.md#tool-surface-size), counted with a real tokenizer (gpt-tokenizer, o200k_base)
 * over what the real app serves on tools/list. What a model is shown of one tool — its name,
 * description and JSON inputSchema — is its model-visible cost.
 *
 * Only the budgets a new endpoint meets on its own fail the suite:
 * - per tool: at most 600 model-visible tokens, 900 for a list tool (for the admin and for the
 *   limited member, bruno: payables and receivables, read only);
 * - per toolset: at most 4,000 for all the tools of one `?toolsets=<tag>` view as the admin sees
 *   it (docs/protocol.md#views). The toolsets are the generated registry's, so a new resource
 *   is a new toolset with a budget of its own.
 * A failure names the tool or toolset, its cost and its cap. The totals grow with every endpoint
 * and fail nothing: the test prints, per person, the model-visible total, its average per tool and
 * the whole tools/list response (outputSchema and annotations included), and every toolset's cost.
 * What the diet must not cost is checked next to it: every argument keeps a description, and
 * every enum and format of the schema the server validates with is in the one a model is shown.
 */
import { expect } from 'chai';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { tools as registryTools } from '../../generated/registry.gen.js';
// What a client puts in a model's function list for one tool; the change report counts the same (one definition).
import { countModelVisible } from '../../codegen/surface/tokens.js';
import { DEMO } from '../../src/seed/ids.js';
import { ALL_READ, ALL_WRITE, startTestApp, type TestApp } from './support/app.js';
import { modernRequest, postMcp } from './support/wire.js';

type Schema = { [key: string]: unknown };
interface ListedTool { name: string; description: string; inputSchema: Schema }

/**
 * The caps that fail the suite; every one is met (or missed) by a new endpoint on its own. The
 * largest toolset measured 1,837 on 2026-12-02 (receivables, 9 tools): a resource can more than
 * double before its tools must get tighter or it must be split.
 */
const BUDGET = { perTool: 600, perListTool: 900, perToolset: 4_000 } as const;


const LIST_TOOLS = new Set(registryTools.filter((tool) => Object.values(tool.args).some((target) => target.in === 'list')).map((tool) => tool.name));
/** Every `?toolsets=` name, from the generated registry (no list kept here). */
const TOOLSETS = [...new Set(registryTools.flatMap((tool) => tool.toolsets))].sort();

interface Cost { readonly name: string; readonly tokens: number }

/** One line per tool over its cap: `finance_x_list: 950 tokens, cap 900 (list tool)`. */
function toolsOverBudget(costs: readonly Cost[], isList: (name: string) => boolean): string[] {
  return costs.flatMap(({ name, tokens }) => {
    const cap = isList(name) ? BUDGET.perListTool : BUDGET.perTool;
    return tokens > cap ? [`${name}: ${tokens} tokens, cap ${cap}${isList(name) ? ' (list tool)' : ''}`] : [];
  });
}

/** One line per toolset over its cap: `toolset payables: 4100 tokens over 12 tools, cap 4000`. */
function toolsetsOverBudget(toolsets: readonly (Cost & { readonly tools: number })[]): string[] {
  return toolsets.flatMap(({ name, tokens, tools }) => (tokens > BUDGET.perToolset ? [`toolset ${name}: ${tokens} tokens over ${tools} tools, cap ${BUDGET.perToolset}`] : []));
}

describe('tool surface token budget (o200k)', function () {
  let app: TestApp;
  before(async () => { app = await startTestApp(); });
  after(async () => app?.close());

  async function listTools(token: string, query = ''): Promise<{ tools: ListedTool[]; text: string }> {
    const { body, headers } = modernRequest(1, 'tools/list');
    const response = await postMcp(`${app.url}/mcp${query}`, body, { authorization: `Bearer ${token}`, ...headers });
    expect(response.status, response.text).to.equal(200);
    const tools = (response.json as { result: { tools: ListedTool[] } }).result.tools;
    return { tools, text: response.text };
  }
  const costsOf = (tools: readonly ListedTool[]): Cost[] => tools.map((tool) => ({ name: tool.name, tokens: countModelVisible(tool) }));

  for (const who of [
    { label: 'the admin (every tool)', email: DEMO.emails.ana, scope: ALL_WRITE, minTools: 60 },
    { label: 'the limited member (bruno)', email: DEMO.emails.bruno, scope: ALL_READ, minTools: 4 },
  ]) {
    it(`holds every tool of ${who.label} to its cap, and prints the totals`, async function () {
      const { tools, text } = await listTools(await app.mintToken({ person: who.email, scope: who.scope }));
      expect(tools.length).to.be.at.least(who.minTools);
      const costs = costsOf(tools);
      const total = costs.reduce((sum, { tokens }) => sum + tokens, 0);
      const largest = [...costs].sort((a, b) => b.tokens - a.tokens).slice(0, 3).map((c) => `${c.name} ${c.tokens}`).join(', ');
      console.log(`      ${who.label}: ${tools.length} tools, model-visible ${total} (average ${Math.round(total / tools.length)} per tool), whole tools/list ${countTokens(text)}; largest: ${largest}`);
      expect(toolsOverBudget(costs, (name) => LIST_TOOLS.has(name)), 'tools over their cap').to.deep.equal([]);
    });
  }

  it(`holds every toolset (?toolsets=<tag>, as the admin sees it) to ${BUDGET.perToolset} tokens, and prints each`, async function () {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    expect(TOOLSETS.length, 'toolsets in the registry').to.be.greaterThan(10);
    const toolsets: (Cost & { tools: number })[] = [];
    for (const toolset of TOOLSETS) {
      const { tools } = await listTools(token, `?toolsets=${encodeURIComponent(toolset)}`);
      expect(tools.map((tool) => tool.name).sort(), toolset).to.deep.equal(registryTools.filter((tool) => tool.toolsets.includes(toolset)).map((tool) => tool.name).sort());
      toolsets.push({ name: toolset, tools: tools.length, tokens: costsOf(tools).reduce((sum, { tokens }) => sum + tokens, 0) });
    }
    console.log(`      toolsets (cap ${BUDGET.perToolset}): ${[...toolsets].sort((a, b) => b.tokens - a.tokens).map((t) => `${t.name} ${t.tokens}/${t.tools}`).join(', ')}`);
    expect(toolsetsOverBudget(toolsets), 'toolsets over their cap').to.deep.equal([]);
  });

  it('names the tool or toolset, its cost and its cap when over budget', function () {
    const isList = (name: string) => name.endsWith('_list');
    expect(toolsOverBudget([{ name: 'finance_a_get', tokens: 600 }, { name: 'finance_a_update', tokens: 601 }, { name: 'finance_a_list', tokens: 901 }, { name: 'finance_b_list', tokens: 900 }], isList))
      .to.deep.equal(['finance_a_update: 601 tokens, cap 600', 'finance_a_list: 901 tokens, cap 900 (list tool)']);
    expect(toolsetsOverBudget([{ name: 'payables', tokens: 4_000, tools: 9 }, { name: 'receivables', tokens: 4_001, tools: 12 }]))
      .to.deep.equal(['toolset receivables: 4001 tokens over 12 tools, cap 4000']);
  });

  it('says what MCP does, not what REST does (issue 17.6), and fields names the error that comes back', async function () {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    const { tools } = await listTools(token);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const argument = (tool: string, name: string) => ((byName.get(tool)!.inputSchema['properties'] as Record<string, Schema>)[name]!['description'] as string);
    // No REST query syntax (`due_date[gte]`) and no HTTP header to send, anywhere in what a model reads.
    expect(tools).to.not.be.empty;
    for (const tool of tools) expect(JSON.stringify([tool.description, tool.inputSchema]), tool.name).to.not.match(/\w\[(gte|gt|lte|lt|in)\]|Idempotency-Key|Idempotency-Replayed/);
    expect(argument('finance_payables_create', 'idempotency_key')).to.not.match(/header/i);
    expect(argument('finance_payables_list', 'workspace_id')).to.contain('X-Workspace-Id');
    expect(byName.get('finance_attachments_download')!.description).to.match(/never its bytes|not its bytes/).and.to.contain('download_path');
    expect(argument('finance_payables_list', 'fields')).to.contain('VALIDATION_ERROR');
    const { body, headers } = modernRequest(2, 'tools/call', { name: 'finance_payables_list', arguments: { workspace_id: DEMO.workspaces.matriz, fields: ['no_such_field'] } });
    const reply = await postMcp(`${app.url}/mcp`, body, { authorization: `Bearer ${token}`, ...headers });
    const result = (reply.json as { result: { isError?: boolean; content: { text: string }[] } }).result;
    expect(result.isError).to.equal(true);
    expect(JSON.parse(result.content[0]!.text).error.code).to.equal('VALIDATION_ERROR');
  });

  it('keeps a description on every argument, and every enum and format of the validated schema visible', function () {
    for (const tool of registryTools) {
      const shown = tool.inputSchema as Schema;
      for (const [name, argument] of Object.entries((shown['properties'] ?? {}) as Record<string, Schema>)) {
        expect(argument['description'], `${tool.name}.${name}`).to.be.a('string').and.not.equal('');
      }
      compareVisible(tool.argumentSchema as Schema, shown, tool.name);
    }
  });
});

/**
 * Walks the validated schema and the shown one together: the shape, enums and formats match. The
 * one allowed difference: a decimal validated as `["string", "number"]` is shown as a string.
 */
function compareVisible(validated: Schema, shown: Schema, at: string): void {
  for (const key of ['enum', 'format', 'const', 'default']) {
    expect(shown[key], `${at} ${key}`).to.deep.equal(validated[key]);
  }
  expect(shown['type'], `${at} type`).to.deep.equal(shownDecimalType(validated['type']));
  for (const key of ['properties', 'patternProperties']) {
    const children = (validated[key] ?? {}) as Record<string, Schema>;
    expect(Object.keys((shown[key] ?? {}) as Schema), `${at} ${key}`).to.deep.equal(Object.keys(children));
    for (const [name, child] of Object.entries(children)) compareVisible(child, (shown[key] as Record<string, Schema>)[name]!, `${at}.${name}`);
  }
  for (const key of ['items', 'propertyNames', 'additionalProperties']) {
    const child = validated[key];
    if (child !== null && typeof child === 'object') compareVisible(child as Schema, shown[key] as Schema, `${at}/${key}`);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const children = (validated[key] ?? []) as Schema[];
    children.forEach((child, index) => compareVisible(child, ((shown[key] ?? []) as Schema[])[index]!, `${at}/${key}/${index}`));
  }
}

/** `["string", "number"]` → `"string"`, `["string", "number", "null"]` → `["string", "null"]`; any other type unchanged. */
function shownDecimalType(type: unknown): unknown {
  if (!Array.isArray(type) || !type.includes('string') || !type.includes('number')) return type;
  const rest = type.filter((t) => t !== 'number');
  return rest.length === 1 ? rest[0] : rest;
}
