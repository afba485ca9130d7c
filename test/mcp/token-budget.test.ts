/**
 * The token budget of the tool surface (issue 17; README "Tool surface size"), counted with a real
 * tokenizer (gpt-tokenizer, o200k_base) over what the real app serves on tools/list:
 * - what a model is shown — each tool's name, description and JSON inputSchema, summed: at most
 *   12,000 tokens for the admin, 600 per tool, 900 per list tool;
 * - the whole tools/list response (outputSchema and annotations included): at most 30,000;
 * for the admin (every tool) and the limited member (bruno: payables and receivables, read only).
 * What the diet must not cost is checked next to it: every argument keeps a description, and
 * every enum and format of the schema the server validates with is in the one a model is shown.
 */
import { expect } from 'chai';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { tools as registryTools } from '../../generated/registry.gen.js';
import { DEMO } from '../../src/seed/ids.js';
import { ALL_READ, ALL_WRITE, startTestApp, type TestApp } from './support/app.js';
import { modernRequest, postMcp } from './support/wire.js';

type Schema = { [key: string]: unknown };
interface ListedTool { name: string; description: string; inputSchema: Schema }

const BUDGET = { modelVisible: 12_000, perTool: 600, perListTool: 900, wholeResponse: 30_000 } as const;

/** Tokens of what a client puts in a model's function list for one tool. */
function countModelVisible(tool: ListedTool): number {
  return countTokens(tool.name) + countTokens(tool.description) + countTokens(JSON.stringify(tool.inputSchema));
}

const LIST_TOOLS = new Set(registryTools.filter((tool) => Object.values(tool.args).some((target) => target.in === 'list')).map((tool) => tool.name));

describe('tool surface token budget (o200k)', function () {
  let app: TestApp;
  before(async () => { app = await startTestApp(); });
  after(async () => app?.close());

  async function listTools(token: string): Promise<{ tools: ListedTool[]; text: string }> {
    const { body, headers } = modernRequest(1, 'tools/list');
    const response = await postMcp(`${app.url}/mcp`, body, { authorization: `Bearer ${token}`, ...headers });
    expect(response.status, response.text).to.equal(200);
    const tools = (response.json as { result: { tools: ListedTool[] } }).result.tools;
    return { tools, text: response.text };
  }

  for (const who of [
    { label: 'the admin (every tool)', email: DEMO.emails.ana, scope: ALL_WRITE, minTools: 60 },
    { label: 'the limited member (bruno)', email: DEMO.emails.bruno, scope: ALL_READ, minTools: 4 },
  ]) {
    it(`holds the budgets for ${who.label}`, async function () {
      const { tools, text } = await listTools(await app.mintToken({ person: who.email, scope: who.scope }));
      expect(tools.length).to.be.at.least(who.minTools);
      const counts = tools.map((tool) => ({ name: tool.name, tokens: countModelVisible(tool) }));
      const total = counts.reduce((sum, { tokens }) => sum + tokens, 0);
      const whole = countTokens(text);
      const report = `${tools.length} tools, model-visible ${total}, whole response ${whole}; largest: ${
        [...counts].sort((a, b) => b.tokens - a.tokens).slice(0, 3).map((c) => `${c.name} ${c.tokens}`).join(', ')}`;
      expect(total, report).to.be.at.most(BUDGET.modelVisible);
      expect(whole, report).to.be.at.most(BUDGET.wholeResponse);
      for (const { name, tokens } of counts) {
        expect(tokens, name).to.be.at.most(LIST_TOOLS.has(name) ? BUDGET.perListTool : BUDGET.perTool);
      }
    });
  }

  it('says what MCP does, not what REST does (issue 17.6), and fields names the error that comes back', async function () {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    const { tools } = await listTools(token);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const argument = (tool: string, name: string) => ((byName.get(tool)!.inputSchema['properties'] as Record<string, Schema>)[name]!['description'] as string);
    // No REST query syntax (`due_date[gte]`) and no HTTP header to send, anywhere in what a model reads.
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
