import { expect } from 'chai';
import { buildToolInput } from '../../../src/mcp/tools/input.js';
import type { ToolDefinition } from '../../../src/runtime/types.js';

const operation = { operationId: 'payables.list', method: 'GET', path: '/v1/payables', scopes: [], permission: '', movesMoney: false, outflow: null, workspaceScoped: true,
  readOnly: true, destructive: false, idempotent: true, confirmation: null, changes: [], shows: [], sums: [] } as const;

function tool(args: ToolDefinition['args']): ToolDefinition {
  return {
    name: 't', title: 'T', description: '', inputSchema: {}, argumentSchema: {}, output: null, toolsets: [], operation, args, minBodyArguments: 0,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

describe('buildToolInput()', function () {
  const list = tool({
    workspace_id: { in: 'workspace' },
    limit: { in: 'list', name: 'limit' },
    cursor: { in: 'list', name: 'cursor' },
    sort_by: { in: 'list', name: 'sort' },
    fields: { in: 'list', name: 'fields' },
    filters: { in: 'list', name: 'filters' },
  });
  const list_ = { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 100 };
  const filtered: ToolDefinition = {
    ...tool({ filters: { in: 'list', name: 'filters' } }),
    argumentSchema: { type: 'object', properties: { filters: { type: 'object', properties: {
      status: list_, person_id: list_, category_id: list_,
      due_date: { type: 'object', propertyNames: { enum: ['eq', 'gte', 'lte'] }, additionalProperties: { type: 'string' } },
      amount: { type: 'object', propertyNames: { enum: ['eq', 'gte', 'lte'] }, additionalProperties: { type: 'string' } },
    } } } },
  };
  const write = tool({
    id: { in: 'path', name: 'id' },
    idempotency_key: { in: 'header', name: 'Idempotency-Key' },
    amount: { in: 'body', name: 'amount' },
    description: { in: 'body', name: 'description' },
  });

  const cases: { given: [ToolDefinition, Record<string, unknown>]; want: unknown }[] = [
    { given: [list, {}] /* no `limit`: the list's declared default applies in the api layer */, want: { input: { path: {}, query: {}, list: { filters: {} } }, workspaceArgument: undefined } },
    {
      given: [list, { workspace_id: 'w', limit: 7, cursor: 'c', sort_by: '-due_date', fields: ['amount'], filters: { status: 'pending', due_date: { gte: '2026-01-01' } } }],
      want: { input: { path: {}, query: {}, list: { limit: 7, cursor: 'c', sort: '-due_date', fields: ['amount'], filters: { status: { eq: 'pending' }, due_date: { gte: '2026-01-01' } } } }, workspaceArgument: 'w' },
    },
    {
      given: [write, { id: 'p1', idempotency_key: 'k', amount: '10.00', unknown: 1 }],
      want: { input: { path: { id: 'p1' }, query: {}, body: { amount: '10.00' }, idempotencyKey: 'k' }, workspaceArgument: undefined },
    },
    { given: [tool({ body: { in: 'body', name: '' } }), { body: [1, 2] }], want: { input: { path: {}, query: {}, body: [1, 2] }, workspaceArgument: undefined } },
    {
      // A renamed argument (src/runtime/tool-argument-names.ts) goes where the table says, next to the path parameter of the same name.
      given: [tool({ id: { in: 'path', name: 'id' }, body_id: { in: 'body', name: 'id' } }), { id: 'a1', body_id: 'r1' }],
      want: { input: { path: { id: 'a1' }, query: {}, body: { id: 'r1' } }, workspaceArgument: undefined },
    },
    {
      // Filter forms (src/runtime/tool-schema.ts): a list is `in`; a plain value, `{eq}` and `{in}` keep their meaning.
      given: [filtered, { filters: { status: ['pending', 'paid'], person_id: 'p1', category_id: { in: ['c1'] }, due_date: { gte: '2026-01-01' }, amount: '10.00' } }],
      want: {
        input: { path: {}, query: {}, list: { filters: {
          status: { in: ['pending', 'paid'] }, person_id: { eq: 'p1' }, category_id: { in: ['c1'] }, due_date: { gte: '2026-01-01' }, amount: { eq: '10.00' },
        } } },
        workspaceArgument: undefined,
      },
    },
  ];

  for (const [index, { given, want }] of cases.entries()) {
    it(`maps case ${index + 1} to the operation input`, function () {
      expect(buildToolInput(...given)).to.deep.equal(want);
    });
  }
});
