/**
 * Confirmation is enforced by `execute` itself (defence in depth, docs/security.md#confirmation), not only by
 * the dispatcher reading `destructiveHint`: a destructive call on the `mcp` channel runs only
 * with a ConfirmationProof made by src/mcp/tools/confirmation/confirmation.ts, consumed in the write's transaction;
 * without one `execute` answers `needs_confirmation` and runs nothing.
 */
import { expect } from 'chai';
import { tools } from '../../generated/registry.gen.js';
import type { Caller } from '../../src/api/context.js';
import { ApiError } from '../../src/api/errors.js';
import { claimConfirmationIssuer, type ConfirmationProof, type ExecuteDone, type ExecuteRequest, type ExecuteResult, type PreparedCall } from '../../src/api/service.js';
import { buildToolInput } from '../../src/mcp/tools/input.js';
import { createConfirmation } from './support.js';
import type { ToolDefinition } from '../../src/runtime/types.js';
import { DEMO } from '../../src/seed/ids.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { FORM, countNonces, countSettlements, pickPendingPayable, readTitle, settleArgs } from './support.js';

const M = DEMO.workspaces.matriz;

function findTool(name: string): ToolDefinition {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

function callerOn(channel: Caller['channel']): Caller {
  return {
    personId: DEMO.persons.ana,
    organizationId: DEMO.organizationId,
    scopes: new Set(['finance.all.write']),
    tokenType: 'personal',
    channel,
    membership: { status: 'active', isAdmin: true, permissions: new Set(), workspaceIds: [M, DEMO.workspaces.filial], workspaceNames: DEMO.workspaceNames },
  };
}

/** The request the dispatcher would build for `tool` with `args`, minus any confirmation. */
function requestFor(tool: ToolDefinition, args: Record<string, unknown>, channel: Caller['channel'] = 'mcp'): ExecuteRequest {
  return { operationId: tool.operation.operationId, caller: callerOn(channel), workspace: { argument: M }, input: buildToolInput(tool, args).input };
}

function done(result: ExecuteResult): ExecuteDone {
  if (result.kind !== 'done') throw new Error(`expected done, got ${result.kind}`);
  return result;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return error instanceof ApiError ? error.code : `Error: ${(error as Error).message}`;
  }
}

describe('execute() runs no destructive MCP call without a confirmation proof', function () {
  this.timeout(30_000);
  let app: TestApp;
  const used = new Set<string>();
  const settle = findTool('finance_payables_settle');
  const remove = findTool('finance_payables_delete');

  before(async function () {
    app = await startTestApp();
  });
  after(async function () {
    await app?.close();
  });

  it('answers finance_payables_settle needs_confirmation and writes nothing', async function () {
    const id = await pickPendingPayable(app.services.db, used);
    const before = await readTitle(app.services.db, id);
    const result = await app.services.operations.execute(requestFor(settle, settleArgs(id)));
    expect(result.kind).to.equal('needs_confirmation');
    if (result.kind === 'needs_confirmation') expect(result.prepared).to.include({ workspaceId: M, operation: settle.operation });
    expect(await readTitle(app.services.db, id)).to.deep.equal(before);
    expect(await countSettlements(app.services.db, id)).to.equal(0);
  });

  it('answers finance_payables_delete needs_confirmation and keeps the payable', async function () {
    const id = await pickPendingPayable(app.services.db, used);
    expect((await app.services.operations.execute(requestFor(remove, { workspace_id: M, id }))).kind).to.equal('needs_confirmation');
    expect(await readTitle(app.services.db, id)).to.not.equal(undefined);
  });

  it('refuses a look-alike proof without calling it', async function () {
    const id = await pickPendingPayable(app.services.db, used);
    let called = false;
    const lookAlike: ConfirmationProof = { consumeInTransaction: async () => { called = true; } };
    const request = { ...requestFor(settle, settleArgs(id)), hooks: { beforeExecute: async () => lookAlike } };
    expect(await codeOf(app.services.operations.execute(request))).to.equal('confirmation_required');
    expect(called).to.equal(false);
    expect(await countSettlements(app.services.db, id)).to.equal(0);
  });

  it('refuses a look-alike proof on a non-destructive call too', async function () {
    const create = findTool('finance_taxes_create');
    const lookAlike: ConfirmationProof = { consumeInTransaction: async () => {} };
    const request = { ...requestFor(create, { workspace_id: M, name: `look-alike-${Date.now()}`, default_rate: '2' }), hooks: { beforeExecute: async () => lookAlike } };
    expect(await codeOf(app.services.operations.execute(request))).to.equal('confirmation_required');
  });

  it('runs non-destructive MCP writes and destructive REST calls without a proof', async function () {
    const create = findTool('finance_taxes_create');
    const created = done(await app.services.operations.execute(requestFor(create, { workspace_id: M, name: `no-proof-${Date.now()}`, default_rate: '2' })));
    expect(created.output.outcome).to.equal('created');
    const id = await pickPendingPayable(app.services.db, used);
    const settled = done(await app.services.operations.execute(requestFor(settle, settleArgs(id), 'api')));
    expect(settled.output.body).to.include({ id });
    expect(await countSettlements(app.services.db, id)).to.equal(1);
  });

  it('reads destructiveness from the one generated field the destructiveHint is rendered from', function () {
    expect(tools).to.not.be.empty;
    for (const tool of tools) expect(tool.operation.destructive, tool.name).to.equal(tool.annotations.destructiveHint);
  });

  it('hands out the proof issuer once: src/mcp/tools/confirmation/confirmation.ts already holds it', function () {
    expect(() => claimConfirmationIssuer()).to.throw(/already claimed/);
  });

  describe('a real proof', () => {
    const era = { modern: true, version: '2026-07-28', clientCapabilities: FORM } as const;

    /** Asks, then accepts: the proof src/mcp/tools/confirmation/confirmation.ts issues for this very `prepared` call. */
    async function confirmFor(prepared: PreparedCall, args: Record<string, unknown>): Promise<ConfirmationProof> {
      const confirm = createConfirmation({ config: app.services.config, db: app.services.db });
      const base = { era, clientCapabilities: FORM, tool: settle, args, prepared };
      const asked = await confirm.ask({ ...base, params: { name: settle.name, arguments: args } });
      const proof = await confirm.verify({
        ...base,
        params: { name: settle.name, arguments: args, requestState: asked['requestState'], inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } },
      });
      if (proof === undefined) throw new Error('expected a proof');
      return proof;
    }

    it('serves only the call it was issued for: another call with it is refused and burns nothing', async function () {
      const first = await pickPendingPayable(app.services.db, used);
      const second = await pickPendingPayable(app.services.db, used);
      let proof: ConfirmationProof | undefined;
      // Obtain the proof for `first`, then stop that call before it writes.
      const stopped = await codeOf(app.services.operations.execute({
        ...requestFor(settle, settleArgs(first)),
        hooks: { beforeExecute: async (prepared) => { proof = await confirmFor(prepared, settleArgs(first)); throw new ApiError('CONFLICT', 'stop here'); } },
      }));
      expect(stopped).to.equal('CONFLICT');
      const nonces = await countNonces(app.services.db);
      for (const id of [second, first]) {
        const reused = await codeOf(app.services.operations.execute({ ...requestFor(settle, settleArgs(id)), hooks: { beforeExecute: async () => proof } }));
        expect(reused, id).to.equal('confirmation_required');
        expect(await countSettlements(app.services.db, id)).to.equal(0);
      }
      expect(await countNonces(app.services.db)).to.equal(nonces);
    });

    it('runs the call it was issued for once, consuming its nonce with the write', async function () {
      const id = await pickPendingPayable(app.services.db, used);
      const nonces = await countNonces(app.services.db);
      const result = done(await app.services.operations.execute({
        ...requestFor(settle, settleArgs(id)),
        hooks: { beforeExecute: async (prepared) => confirmFor(prepared, settleArgs(id)) },
      }));
      expect(result.output.body).to.include({ id });
      expect(await countSettlements(app.services.db, id)).to.equal(1);
      expect(await countNonces(app.services.db)).to.equal(nonces + 1);
    });
  });
});
