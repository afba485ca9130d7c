/**
 * Inputs of one operation that would get the same argument name (issue 16.2): the generator
 * renames the later one `<location>_<name>` (src/runtime/tool-argument-names.ts), records where it
 * goes in the tool's argument map, and says its source in its description. One fixture operation
 * per kind (test/fixtures/specs/collisions.yaml), and the renamed arguments of one dispatched end
 * to end: the real /mcp router, argument validation and dispatcher, with an operation service
 * that records the operation input it is handed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import pino from 'pino';
import { generate } from '../../codegen/generate.js';
import { canReach } from '../../src/api/authorize.js';
import type { ExecuteRequest, OperationService } from '../../src/api/service.js';
import type { Config } from '../../src/config.js';
import type { Limits } from '../../src/http/limits.js';
import { createMcpRouter } from '../../src/mcp/router.js';
import type { ToolDefinition } from '../../src/runtime/types.js';
import { fakeCallers } from '../mcp/support/fake-stack.js';
import { modernRequest, postMcp } from '../mcp/support/wire.js';
import { FIXTURES } from './support.js';

type Schema = Record<string, any>; // assertions dig into generated JSON

const COLLISIONS_SPEC = path.join(FIXTURES, 'collisions.yaml');

describe('argument name collisions are renamed, recorded and mapped back', function () {
  this.timeout(60_000);
  let tools: readonly ToolDefinition[];
  before(async () => { tools = (await generate(COLLISIONS_SPEC, { typeCheck: false })).plan.tools; });
  const toolOf = (name: string): ToolDefinition => {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool;
  };
  const shownOf = (name: string, argument: string): Schema => (toolOf(name).inputSchema as Schema).properties[argument];

  // Each case: the tool's whole argument map (the record of every rename) and what the renamed argument says.
  const cases: { kind: string; tool: string; args: ToolDefinition['args']; renamed: Record<string, string>; required?: string[] }[] = [
    {
      kind: 'path parameter vs body field: the body field becomes body_<name>',
      tool: 'finance_attachments_link',
      args: { workspace_id: { in: 'workspace' }, id: { in: 'path', name: 'id' }, body_id: { in: 'body', name: 'id' }, parent_type: { in: 'body', name: 'parent_type' } },
      renamed: { body_id: 'Body field id. The record to link.' },
      required: ['id', 'body_id', 'parent_type'],
    },
    {
      kind: 'query parameter vs body field',
      tool: 'finance_things_search',
      args: { workspace_id: { in: 'workspace' }, status: { in: 'query', name: 'status' }, body_status: { in: 'body', name: 'status' } },
      renamed: { body_status: 'Body field status. Status of the things.' },
    },
    {
      kind: 'header parameter vs body field, and a body field vs the workspace argument',
      tool: 'finance_things_create',
      args: {
        workspace_id: { in: 'workspace' }, x_trace: { in: 'header', name: 'X-Trace' },
        body_x_trace: { in: 'body', name: 'x_trace' }, body_workspace_id: { in: 'body', name: 'workspace_id' },
      },
      renamed: { body_x_trace: 'Body field x_trace. Trace text stored on the thing.', body_workspace_id: 'Body field workspace_id. A foreign system\'s workspace.' },
      required: ['body_x_trace'],
    },
    {
      kind: 'query parameter vs a list argument, and two query parameters with one snake_case name',
      tool: 'finance_things_list',
      args: {
        workspace_id: { in: 'workspace' }, query_sort_by: { in: 'query', name: 'sort_by' }, page_size: { in: 'query', name: 'pageSize' },
        query_page_size: { in: 'query', name: 'page_size' }, limit: { in: 'list', name: 'limit' }, sort_by: { in: 'list', name: 'sort' },
      },
      renamed: { query_sort_by: 'Query parameter sort_by. Legacy sort column.', query_page_size: 'Query parameter page_size. Page size (snake_case).' },
    },
    {
      kind: 'path parameter vs query parameter (a cookie parameter is never an argument)',
      tool: 'finance_things_history',
      args: { workspace_id: { in: 'workspace' }, id: { in: 'path', name: 'id' }, query_id: { in: 'query', name: 'id' } },
      renamed: { query_id: 'Query parameter id. Version id.' },
      required: ['id'],
    },
    {
      kind: 'a rename whose first choice another field has: body_<name>_2',
      tool: 'finance_things_copy',
      args: { workspace_id: { in: 'workspace' }, id: { in: 'path', name: 'id' }, body_id_2: { in: 'body', name: 'id' }, body_id: { in: 'body', name: 'body_id' } },
      renamed: { body_id_2: 'Body field id. Id of the copy.' },
      required: ['id'],
    },
  ];

  for (const { kind, tool: name, args, renamed, required } of cases) {
    it(kind, () => {
      const tool = toolOf(name);
      expect(tool.args).to.deep.equal(args);
      // The argument map, the shown schema and the validated schema name the same arguments, in the same order.
      expect(Object.keys((tool.inputSchema as Schema).properties)).to.deep.equal(Object.keys(args));
      expect(Object.keys((tool.argumentSchema as Schema).properties)).to.deep.equal(Object.keys(args));
      expect(renamed).to.not.be.empty;
      for (const [argument, description] of Object.entries(renamed)) expect(shownOf(name, argument).description).to.equal(description);
      expect((tool.inputSchema as Schema).required).to.deep.equal(required);
    });
  }

  it('names the arguments the same way on every run (deterministic)', async () => {
    const again = (await generate(COLLISIONS_SPEC, { typeCheck: false })).plan.tools;
    expect(JSON.stringify(again.map((t) => [t.name, t.args, t.inputSchema]))).to.equal(JSON.stringify(tools.map((t) => [t.name, t.args, t.inputSchema])));
  });

  describe('end to end: tools/call with renamed arguments', () => {
    let server: http.Server;
    let url: string;
    const executed: ExecuteRequest[] = [];

    before(async () => {
      // Stands in for the Finance API behind the dispatcher: runs the argument check where execute does, records the input.
      const operations: OperationService = {
        canReach,
        async authorize() { return null; },
        async execute(request) {
          request.checkArguments?.();
          executed.push(request);
          return { kind: 'done', output: { body: { ok: true } }, replayed: false };
        },
      };
      const limits: Limits = {
        budget: { async consume() { return { limit: 1, remaining: 1, resetSeconds: 1 }; } },
        async consumeProtocol() {},
        async assertAuthAllowed() {},
        async recordAuthFailure() {},
        async consumeRegistration() {},
        async close() {},
      };
      const router = createMcpRouter({
        config: { allowedOrigins: [] } as unknown as Config, logger: pino({ level: 'silent' }), operations, tools, resourceTemplates: [], limits,
        db: undefined as never,
        auth: {
          bearer: () => async (ctx, next) => {
            Object.assign(ctx.state, { caller: fakeCallers['admin'], connectionWorkspaceId: undefined });
            await next();
          },
        },
      });
      const app = new Koa();
      app.use(router.routes());
      server = http.createServer(app.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    async function callTool(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; text: string }> {
      const { body, headers } = modernRequest(1, 'tools/call', { name, arguments: args });
      const response = await postMcp(url, body, { authorization: 'Bearer admin', ...headers });
      expect(response.status, response.text).to.equal(200);
      const result = (response.json as { result: { isError?: boolean; content: { text: string }[] } }).result;
      return { ...(result.isError ? { isError: true } : {}), text: result.content[0]!.text };
    }

    it('maps body_id back to the body field id, next to the path parameter id', async () => {
      executed.length = 0;
      const attachment = '11111111-1111-4111-8111-111111111111';
      const record = '22222222-2222-4222-8222-222222222222';
      const result = await callTool('finance_attachments_link', { id: attachment, body_id: record, parent_type: 'payable' });
      expect(result.isError, result.text).to.equal(undefined);
      expect(executed).to.have.length(1);
      expect(executed[0]!.operationId).to.equal('attachments.link');
      expect(executed[0]!.input).to.deep.equal({ path: { id: attachment }, query: {}, body: { id: record, parent_type: 'payable' } });
    });

    it('maps the header, body and workspace-named body field each to its own place', async () => {
      executed.length = 0;
      const result = await callTool('finance_things_create', { x_trace: 'abc', body_x_trace: 'stored', body_workspace_id: 'ext-7' });
      expect(result.isError, result.text).to.equal(undefined);
      expect(executed[0]!.workspace.argument).to.equal(undefined);
      expect(executed[0]!.input.body).to.deep.equal({ x_trace: 'stored', workspace_id: 'ext-7' });
    });

    it('validates a renamed argument under its tool name: a wrong value and a missing one name body_id', async () => {
      executed.length = 0;
      const wrong = await callTool('finance_attachments_link', { id: '11111111-1111-4111-8111-111111111111', body_id: 'not-a-uuid', parent_type: 'payable' });
      expect(wrong.isError).to.equal(true);
      expect(JSON.parse(wrong.text).error.code).to.equal('VALIDATION_ERROR');
      expect(JSON.stringify(JSON.parse(wrong.text).error.details)).to.contain('body_id');
      const missing = await callTool('finance_attachments_link', { id: '11111111-1111-4111-8111-111111111111', parent_type: 'payable' });
      expect(missing.isError).to.equal(true);
      expect(JSON.stringify(JSON.parse(missing.text).error.details)).to.contain('body_id');
      expect(executed).to.have.length(0);
    });
  });
});
