/**
 * approvals.list / .get / .approve / .reject (docs/security.md#money-controls): the approval
 * requests of money moves above the workspace's threshold. Reading them is a tool; approving and
 * rejecting are REST only (`x-mcp.exclude`) — the rules are src/api/money/approvals.ts's.
 */
import { defineOperations } from '../define-operations.js';
import { listRecords, readListSpec } from '../list.js';
import { readBody } from '../records.js';
import { approvalListDefinition, decideApprovalRequest, readApprovalRequest } from '../money/approvals.js';

export const handlers = defineOperations({
  'approvals.list': async (ctx, input) => ({
    body: await listRecords(ctx, input.list, readListSpec(ctx), await approvalListDefinition(ctx)),
  }),
  'approvals.get': async (ctx, input) => readApprovalRequest(ctx, input.path['id'] ?? ''),
  'approvals.approve': async (ctx, input) => decideApprovalRequest(ctx, input.path['id'] ?? '', { kind: 'approve' }),
  'approvals.reject': async (ctx, input) => {
    const reason = readBody(input.body)['reason'];
    return decideApprovalRequest(ctx, input.path['id'] ?? '', { kind: 'reject', reason: typeof reason === 'string' ? reason : null });
  },
});
