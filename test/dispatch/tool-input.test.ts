import { expect } from 'chai';
import { buildToolInput } from '../../src/dispatch/tool-input.js';
import type { ToolDefinition } from '../../src/runtime/types.js';

const operation = { operationId: 'payables.list', method: 'GET', path: '/v1/payables', scopes: [], permission: '', movesMoney: false, workspaceScoped: true,
  readOnly: true, destructive: false, idempotent: true, confirmation: null } as const;

function tool(args: ToolDefinition['args']): ToolDefinition {
  return {
    name: 't', title: 'T', description: '', inputSchema: {}, operation, args, minBodyArguments: 0,
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
  const write = tool({
    id: { in: 'path', name: 'id' },
    idempotency_key: { in: 'header', name: 'Idempotency-Key' },
    amount: { in: 'body', name: 'amount' },
    description: { in: 'body', name: 'description' },
  });

  const cases: { given: [ToolDefinition, Record<string, unknown>]; want: unknown }[] = [
    { given: [list, {}], want: { input: { path: {}, query: {}, list: { limit: 25, filters: {} } }, workspaceArgument: undefined } },
    {
      given: [list, { workspace_id: 'w', limit: 7, cursor: 'c', sort_by: '-due_date', fields: ['amount'], filters: { status: 'pending', due_date: { gte: '2026-01-01' } } }],
      want: { input: { path: {}, query: {}, list: { limit: 7, cursor: 'c', sort: '-due_date', fields: ['amount'], filters: { status: { eq: 'pending' }, due_date: { gte: '2026-01-01' } } } }, workspaceArgument: 'w' },
    },
    {
      given: [write, { id: 'p1', idempotency_key: 'k', amount: '10.00', unknown: 1 }],
      want: { input: { path: { id: 'p1' }, query: {}, body: { amount: '10.00' }, idempotencyKey: 'k' }, workspaceArgument: undefined },
    },
    { given: [tool({ body: { in: 'body', name: '' } }), { body: [1, 2] }], want: { input: { path: {}, query: {}, body: [1, 2] }, workspaceArgument: undefined } },
  ];

  for (const [index, { given, want }] of cases.entries()) {
    it(`maps case ${index + 1} to the operation input`, function () {
      expect(buildToolInput(...given)).to.deep.equal(want);
    });
  }
});
