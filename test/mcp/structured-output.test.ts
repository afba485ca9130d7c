/**
 * Typed results over the whole registry (docs/protocol.md#typed-results): every tool whose
 * operation answers JSON has an `outputSchema` (type "object"), and a sample call of every tool
 * — arguments derived from the spec as the REST coverage requests are, destructive ones
 * confirmed — yields `structuredContent` that validates against it (ajv) and equals the text
 * block. Errors carry only the envelope text (no structuredContent); 2025-03-26 gets no structuredContent at all.
 */
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { countTokens } from 'gpt-tokenizer';
import addFormats from 'ajv-formats';
import { routes, tools } from '../../generated/registry.gen.js';
import { operations } from '../../generated/registry.gen.js';
import type { RouteDefinition, ToolDefinition } from '../../src/runtime/types.js';
import { DEMO } from '../../src/seed/ids.js';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { createTaker, deriveRequest, type Take } from '../api/support/coverage-requests.js';
import { accept, callTool, type CallAnswer } from '../confirmation/support.js';
import { postMcp } from './support/wire.js';

const MATRIZ = DEMO.workspaces.matriz;

function compile(schema: object): (value: unknown) => string | null {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  const validate = ajv.compile(schema);
  return (value) => (validate(value) ? null : ajv.errorsText(validate.errors));
}

/** Keywords an output schema leaves out to stay compact, wherever they appear as keywords (not as property names). */
function proseKeywords(schema: unknown, found: string[] = []): string[] {
  if (Array.isArray(schema)) schema.forEach((member) => proseKeywords(member, found));
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return found;
  for (const [key, value] of Object.entries(schema)) {
    if (['examples', 'description', 'default', 'pattern', 'title', 'minLength', 'maxLength'].includes(key)) found.push(key);
    if (key === 'properties' || key === '$defs') Object.values(value as object).forEach((member) => proseKeywords(member, found));
    else if (key !== 'enum' && key !== 'const') proseKeywords(value, found);
  }
  return found;
}

const routeOf = (tool: ToolDefinition): RouteDefinition => {
  const route = routes.find((r) => r.operation.operationId === tool.operation.operationId);
  if (!route) throw new Error(`no route for ${tool.operation.operationId}`);
  return route;
};

describe('typed results: outputSchema and structuredContent for every tool', function () {
  this.timeout(120_000);
  let api: RestApp;
  let take: Take;
  let token: string;
  let readToken: string;
  before(async function () {
    api = await startRestApp();
    take = await createTaker(api, MATRIZ);
    token = await api.app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
    readToken = await api.app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all' });
  });
  after(async () => api?.close());

  it('every tool whose operation answers JSON or a file has an object outputSchema that compiles; the others none', function () {
    for (const tool of tools) {
      const definition = operations.find((d) => d.operation.operationId === tool.operation.operationId)!;
      const kind = definition.successResponse.kind;
      if (kind === 'none') {
        expect(tool.output, tool.name).to.equal(null);
        continue;
      }
      expect(tool.output, tool.name).to.not.equal(null);
      expect(tool.output!.schema['type'], tool.name).to.equal('object');
      const { description, ...rest } = tool.output!.schema;
      expect(proseKeywords(rest), tool.name).to.deep.equal([]);
      if (tool.output!.sameAs !== null) {
        // A pointer at the GET tool that describes the record in full: short, and that tool exists.
        expect(description, tool.name).to.match(new RegExp(`^The record, as ${tool.output!.sameAs} returns it`));
        const getter = tools.find((t) => t.name === tool.output!.sameAs);
        expect(getter?.operation.method, tool.name).to.equal('GET');
        expect(getter?.output?.sameAs, tool.name).to.equal(null);
      } else {
        expect(description, tool.name).to.equal(undefined);
      }
      expect(() => compile(tool.output!.schema), tool.name).to.not.throw();
    }
    expect(tools.filter((tool) => tool.output !== null).length).to.be.greaterThan(tools.length / 2);
  });

  // A budget a new endpoint meets on its own (issue 25, Build 6): each outputSchema within 600 o200k
  // tokens (the largest today, a list's, is ~390); the whole list's total is printed, not failed on,
  // so the API can grow by endpoints that each meet their cap.
  it('keeps each outputSchema within 600 o200k tokens, and prints the total', function () {
    const counts = tools.filter((tool) => tool.output).map((tool) => ({ name: tool.name, tokens: countTokens(JSON.stringify(tool.output!.schema)) }));
    expect(counts.length).to.be.greaterThan(0);
    const total = counts.reduce((sum, { tokens }) => sum + tokens, 0);
    console.log(`      outputSchemas: ${counts.length} tools, ${total} o200k tokens in all; largest ${Math.max(...counts.map((c) => c.tokens))}`);
    for (const { name, tokens } of counts) expect(tokens, `${name}: ${tokens} tokens, cap 600 (outputSchema)`).to.be.at.most(600);
  });

  describe('a sample call of every tool', function () {
    /** Tools whose derived request the API refused (their error shape was checked instead). */
    const refused: string[] = [];

    /** Calls in the modern era with form elicitation; a confirmation question is accepted. */
    async function run(tool: ToolDefinition, args: Record<string, unknown>): Promise<CallAnswer> {
      const first = await callTool(api.app.url, token, tool.name, args);
      const result = first.body.result;
      if (result?.['resultType'] !== 'input_required') return first;
      return callTool(api.app.url, token, tool.name, args, { requestState: result['requestState'], inputResponses: accept() });
    }

    for (const tool of tools) {
      it(tool.name, async function () {
        const request = await deriveRequest(routeOf(tool), take);
        const args = { ...(tool.operation.workspaceScoped ? { workspace_id: MATRIZ } : {}), ...request.params, ...(request.body ?? {}) };
        const answer = await run(tool, args);
        const result = answer.body.result!;
        expect(result, JSON.stringify(answer.body)).to.not.equal(undefined);
        const content = result['content'] as { type: string; text: string }[];
        const structured = result['structuredContent'] as Record<string, unknown> | undefined;
        if (result['isError'] === true) {
          // A business refusal of a derived request (a record still in use): the error shape.
          const envelope = JSON.parse(content[0]!.text) as { error: { code: string; message: string; details?: object } };
          expect(['CONFLICT', 'UNPROCESSABLE_ENTITY'], `${tool.name}: ${content[0]!.text}`).to.include(envelope.error.code);
          expect(result).to.not.have.property('structuredContent');
          refused.push(tool.name);
          return;
        }
        if (tool.output === null) {
          expect(structured, tool.name).to.equal(undefined);
          return;
        }
        expect(structured, `${tool.name}: ${JSON.stringify(result)}`).to.be.an('object');
        expect(compile(tool.output.schema)(structured), tool.name).to.equal(null);
        if (tool.output.sameAs !== null) {
          // The full schema of the GET tool it points at validates it too.
          const getter = tools.find((t) => t.name === tool.output!.sameAs)!;
          expect(compile(getter.output!.schema)(structured), `${tool.name} as ${getter.name}`).to.equal(null);
        }
        const text = JSON.parse(content[0]!.text) as unknown;
        expect(structured).to.deep.equal(tool.output.wrapped ? { result: text } : text);
      });
    }

    it('validated the success of all but a few tools (refusals of a derived request are rare)', function () {
      expect(refused.length, refused.join(', ')).to.be.at.most(2);
    });
  });

  describe('by era and for errors', function () {
    async function legacyCall(version: string, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
      const response = await postMcp(`${api.app.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
        { authorization: `Bearer ${readToken}`, 'mcp-protocol-version': version });
      return (response.json as { result: Record<string, unknown> }).result;
    }

    it('2025-06-18 gets structuredContent; 2025-03-26 gets only the text', async function () {
      const args = { workspace_id: MATRIZ, limit: 2 };
      const typed = await legacyCall('2025-06-18', 'finance_accounts_list', args);
      expect((typed['structuredContent'] as { data: unknown[] }).data).to.have.length(2);
      const plain = await legacyCall('2025-03-26', 'finance_accounts_list', args);
      expect(plain).to.not.have.property('structuredContent');
      expect(JSON.parse((plain['content'] as { text: string }[])[0]!.text)).to.deep.equal(typed['structuredContent']);
    });

    it('a tool error is isError with the envelope as its only text and no structuredContent, in every era', async function () {
      const result = await legacyCall('2025-06-18', 'finance_payables_get', { workspace_id: MATRIZ, id: '00000000-0000-4000-8000-00000000dead' });
      expect(result['isError']).to.equal(true);
      expect(result['content']).to.have.length(1);
      expect(JSON.parse((result['content'] as { text: string }[])[0]!.text)).to.deep.equal({ error: { code: 'NOT_FOUND', message: 'Payable not found.' } });
      expect(result).to.not.have.property('structuredContent');
      const invalid = await legacyCall('2025-06-18', 'finance_payables_list', { workspace_id: MATRIZ, limit: 1000 });
      const envelope = JSON.parse((invalid['content'] as { text: string }[])[0]!.text) as { error: { code: string; details: { issues?: unknown[] } } };
      expect(envelope.error.code).to.equal('VALIDATION_ERROR');
      expect(envelope.error.details.issues).to.be.an('array').that.is.not.empty;
      expect(invalid).to.not.have.property('structuredContent');
      expect((await legacyCall('2025-03-26', 'finance_payables_get', { workspace_id: MATRIZ, id: '00000000-0000-4000-8000-00000000dead' }))).to.not.have.property('structuredContent');
    });
  });
});
