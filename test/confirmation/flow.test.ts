/**
 * The confirmation of destructive tools over real HTTP (docs/protocol.md#confirmation-of-destructive-tools, docs/security.md#confirmation): each
 * outcome of `finance_payables_settle`, with the database checked afterwards — nothing written
 * for every refusal, exactly one settlement transaction for an accepted one.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { sql } from 'kysely';
import { sealState } from '../../src/api/confirmation/state.js';
import { digestArguments } from '../../src/api/confirmation/canonical-args.js';
import { DEMO } from '../../src/seed/ids.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import {
  ALL_WRITE, accept, callTool, countNonces, countSettlements, expectInputRequired, expectInvalidParams, expectSuccess,
  expectToolError, pickPendingPayable, readTitle, settleArgs,
} from './support.js';

describe('tools/call confirmation (finance_payables_settle)', function () {
  this.timeout(30_000);
  let app: TestApp;
  let token: string;
  const used = new Set<string>();
  /** Each test settles its own payable, so outcomes never depend on test order. */
  const nextPayable = async (): Promise<string> => pickPendingPayable(app.services.db, used);
  const settle = (id: string, options: Parameters<typeof callTool>[4] = {}) => callTool(app.url, token, 'finance_payables_settle', settleArgs(id), options);

  async function expectUntouched(id: string, version: number): Promise<void> {
    expect(await readTitle(app.services.db, id)).to.deep.equal({ status: 'pending', version });
    expect(await countSettlements(app.services.db, id)).to.equal(0);
  }

  async function sealFor(overrides: Record<string, unknown>, id: string): Promise<string> {
    const key = new Uint8Array(Buffer.from(app.services.config.confirmationKey ?? '', 'base64url'));
    const title = await readTitle(app.services.db, id);
    return sealState(key, {
      tool: 'finance_payables_settle', argsDigest: digestArguments(settleArgs(id)), personId: DEMO.persons.ana,
      organizationId: DEMO.organizationId, workspaceId: DEMO.workspaces.matriz, version: title?.version ?? 1,
      nonce: `n-${Math.random()}`, expiresAt: Math.floor(Date.now() / 1000) + 300, ...overrides,
    });
  }

  before(async function () {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
  });
  after(async function () {
    await app?.close();
  });

  it('asks with input_required naming the payable, counterparty, amount in BRL and account, and writes nothing', async function () {
    const id = await nextPayable();
    const before = await readTitle(app.services.db, id);
    const answer = await settle(id);
    expect(answer.status).to.equal(200);
    const result = answer.body.result ?? {};
    expect(result['_meta']).to.have.property('io.modelcontextprotocol/serverInfo');
    const params = (result['inputRequests'] as Record<string, { params: Record<string, unknown> }>)['confirm']?.params;
    expect(params?.['mode']).to.equal('form');
    expect(params?.['requestedSchema']).to.deep.include({ type: 'object', required: ['confirm'] });
    const { message, requestState } = expectInputRequired(answer);
    expect(message).to.match(/^Settle payable ".+" of R\$ \d{1,3}(\.\d{3})*,\d{2} to ".+" from account ".+", paying R\$ [\d.]+,\d{2} on \d{4}-\d{2}-\d{2} \(interest R\$ [\d.]+,\d{2}, discount R\$ [\d.]+,\d{2}\)\?$/);
    expect(requestState).to.be.a('string').and.match(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
    await expectUntouched(id, before?.version ?? 0);
    expect(await countNonces(app.services.db)).to.equal(0);
  });

  it('settles once on accept with confirm true, then answers the same state with confirmation_replayed', async function () {
    const id = await nextPayable();
    const { requestState } = expectInputRequired(await settle(id));
    const body = expectSuccess(await settle(id, { requestState, inputResponses: accept() }));
    expect(body['status']).to.equal('paid');
    expect(await countSettlements(app.services.db, id)).to.equal(1);
    expectToolError(await settle(id, { requestState, inputResponses: accept() }), 'confirmation_replayed');
    expect(await countSettlements(app.services.db, id)).to.equal(1);
  });

  for (const [name, responses] of [
    ['decline', { confirm: { action: 'decline' } }],
    ['cancel', { confirm: { action: 'cancel' } }],
    ['accept with confirm false', accept(false)],
    ['accept without content', { confirm: { action: 'accept' } }],
  ] as const) {
    it(`answers ${name} with USER_DECLINED and burns the state, so it cannot be accepted later`, async function () {
      const id = await nextPayable();
      const version = (await readTitle(app.services.db, id))?.version ?? 0;
      const { requestState } = expectInputRequired(await settle(id));
      expectToolError(await settle(id, { requestState, inputResponses: responses }), 'USER_DECLINED');
      await expectUntouched(id, version);
      expectToolError(await settle(id, { requestState, inputResponses: accept() }), 'confirmation_replayed');
      await expectUntouched(id, version);
    });
  }

  it('asks again (a fresh state) when the resend carries the state but no inputResponses', async function () {
    const id = await nextPayable();
    const first = expectInputRequired(await settle(id));
    const again = expectInputRequired(await settle(id, { requestState: first.requestState }));
    expect(again.requestState).to.not.equal(first.requestState);
    expectSuccess(await settle(id, { requestState: again.requestState, inputResponses: accept() }));
    expect(await countSettlements(app.services.db, id)).to.equal(1);
  });

  describe('refuses a state that is not this call\'s with -32602', function () {
    const cases: [string, (id: string, state: string) => Promise<Parameters<typeof callTool>>][] = [
      ['tampered', async (id, state) => [app.url, token, 'finance_payables_settle', settleArgs(id), { requestState: `${state.slice(0, -3)}${state.endsWith('A') ? 'BBB' : 'AAA'}`, inputResponses: accept() }]],
      ['malformed', async (id) => [app.url, token, 'finance_payables_settle', settleArgs(id), { requestState: 'not-a-state', inputResponses: accept() }]],
      ['not a string', async (id) => [app.url, token, 'finance_payables_settle', settleArgs(id), { requestState: { a: 1 }, inputResponses: accept() }]],
      ['for other arguments', async (id, state) => [app.url, token, 'finance_payables_settle', { ...settleArgs(id), payment_date: '2026-03-10' }, { requestState: state, inputResponses: accept() }]],
      ['for another tool', async (id, state) => [app.url, token, 'finance_payables_cancel', { workspace_id: DEMO.workspaces.matriz, id }, { requestState: state, inputResponses: accept() }]],
      ['expired', async (id) => [app.url, token, 'finance_payables_settle', settleArgs(id), { requestState: await sealFor({ expiresAt: Math.floor(Date.now() / 1000) - 1 }, id), inputResponses: accept() }]],
      ['for another person', async (id) => [app.url, token, 'finance_payables_settle', settleArgs(id), { requestState: await sealFor({ personId: DEMO.persons.bruno }, id), inputResponses: accept() }]],
      ['for another organization', async (id) => [app.url, token, 'finance_payables_settle', settleArgs(id), { requestState: await sealFor({ organizationId: '00000000-0000-4000-8000-0000000000ff' }, id), inputResponses: accept() }]],
      ['for another workspace', async (id) => [app.url, token, 'finance_payables_settle', settleArgs(id), { requestState: await sealFor({ workspaceId: DEMO.workspaces.filial }, id), inputResponses: accept() }]],
      ['with a malformed answer', async (id, state) => [app.url, token, 'finance_payables_settle', settleArgs(id), { requestState: state, inputResponses: { confirm: { action: 'maybe' } } }]],
      ['answers without a state', async (id) => [app.url, token, 'finance_payables_settle', settleArgs(id), { inputResponses: accept() }]],
    ];
    for (const [name, build] of cases) {
      it(`${name}: nothing written, the real state still works`, async function () {
        const id = await nextPayable();
        const version = (await readTitle(app.services.db, id))?.version ?? 0;
        const { requestState } = expectInputRequired(await settle(id));
        const answer = await callTool(...(await build(id, requestState)));
        expectInvalidParams(answer);
        expect(answer.body.error?.message).to.equal('Invalid params: requestState is not valid for this call');
        await expectUntouched(id, version);
        expectSuccess(await settle(id, { requestState, inputResponses: accept() }));
      });
    }
  });

  it('answers CONFLICT when the payable changed after the question, and runs nothing', async function () {
    const id = await nextPayable();
    const { requestState } = expectInputRequired(await settle(id));
    const nonces = await countNonces(app.services.db);
    const apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE, aud: 'api' });
    const patch = await fetch(`${app.url}/v1/payables/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${apiToken}`, 'x-workspace-id': DEMO.workspaces.matriz, 'content-type': 'application/json' },
      body: JSON.stringify({ notes: 'changed while asking' }),
    });
    expect(patch.status, await patch.text()).to.equal(200);
    const version = (await readTitle(app.services.db, id))?.version ?? 0;
    expectToolError(await settle(id, { requestState, inputResponses: accept() }), 'CONFLICT');
    await expectUntouched(id, version);
    expect(await countNonces(app.services.db)).to.equal(nonces);
  });

  it('refuses a settle its own plan refuses (a discount above the amount) before asking: no question, nothing written', async function () {
    const id = await nextPayable();
    const nonces = await countNonces(app.services.db);
    expectToolError(await callTool(app.url, token, 'finance_payables_settle', { ...settleArgs(id), discount_amount: '99999999.00' }), 'UNPROCESSABLE_ENTITY');
    expect(await countNonces(app.services.db)).to.equal(nonces);
    expect(await countSettlements(app.services.db, id)).to.equal(0);
  });

  it('refuses what the title\'s status does not allow before asking (a reopen of a pending bill, a cancel or a second settle of a paid one): the handler\'s own words, no question, nothing written', async function () {
    const id = await nextPayable();
    const args = { workspace_id: DEMO.workspaces.matriz, id };
    const reopen = await callTool(app.url, token, 'finance_payables_reopen', args);
    expectToolError(reopen, 'UNPROCESSABLE_ENTITY');
    expect(JSON.stringify(reopen.body)).to.include('Only a paid payable can be reopened.');
    const { requestState } = expectInputRequired(await settle(id));
    expectSuccess(await settle(id, { requestState, inputResponses: accept() }));
    const version = (await readTitle(app.services.db, id))?.version ?? 0;
    const asked = await countNonces(app.services.db);
    const cancel = await callTool(app.url, token, 'finance_payables_cancel', args);
    expectToolError(cancel, 'UNPROCESSABLE_ENTITY');
    expect(JSON.stringify(cancel.body)).to.include('Only a pending payable can be cancelled.');
    expectToolError(await settle(id), 'UNPROCESSABLE_ENTITY');
    expect(await countNonces(app.services.db)).to.equal(asked);
    expect((await readTitle(app.services.db, id))?.version).to.equal(version);
    expect(await countSettlements(app.services.db, id)).to.equal(1);
  });

  it('lets a business error of the operation through without burning the state', async function () {
    const id = await nextPayable();
    // An account that does not exist: the sentence names it so, the operation refuses it.
    const args = { ...settleArgs(id), financial_account_id: randomUUID() };
    const first = await callTool(app.url, token, 'finance_payables_settle', args);
    const { requestState, message } = expectInputRequired(first);
    expect(message).to.include('from an unknown account');
    const nonces = await countNonces(app.services.db);
    const retry = () => callTool(app.url, token, 'finance_payables_settle', args, { requestState, inputResponses: accept() });
    expectToolError(await retry(), 'UNPROCESSABLE_ENTITY');
    expectToolError(await retry(), 'UNPROCESSABLE_ENTITY');
    expect(await countNonces(app.services.db)).to.equal(nonces);
    expect(await countSettlements(app.services.db, id)).to.equal(0);
  });

  it('re-runs the authorization checks on the resend (a token without money scope gets insufficient_scope)', async function () {
    const id = await nextPayable();
    const version = (await readTitle(app.services.db, id))?.version ?? 0;
    const { requestState } = expectInputRequired(await settle(id));
    const weak = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.payables.write' });
    const answer = await callTool(app.url, weak, 'finance_payables_settle', settleArgs(id), { requestState, inputResponses: accept() });
    expectToolError(answer, 'insufficient_scope');
    await expectUntouched(id, version);
  });

  it('re-runs Seguridad on the resend (money moves blocked for MCP meanwhile → SECURITY_BLOCKED)', async function () {
    const id = await nextPayable();
    const version = (await readTitle(app.services.db, id))?.version ?? 0;
    const { requestState } = expectInputRequired(await settle(id));
    const admin = await app.mintToken({ person: DEMO.emails.ana, scope: `${ALL_WRITE} finance.security.write`, aud: 'api' });
    const block = (blocked: Record<string, string[]>) => fetch(`${app.url}/v1/security-settings`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${admin}`, 'x-workspace-id': DEMO.workspaces.matriz, 'content-type': 'application/json' },
      body: JSON.stringify({ blocked }),
    });
    expect((await block({ mcp: ['move_money'] })).status).to.equal(200);
    try {
      expectToolError(await settle(id, { requestState, inputResponses: accept() }), 'SECURITY_BLOCKED');
      await expectUntouched(id, version);
    } finally {
      expect((await block({ mcp: [] })).status).to.equal(200);
    }
    expectSuccess(await settle(id, { requestState, inputResponses: accept() }));
  });

  it('answers NOT_FOUND before asking when the payable is not in the workspace', async function () {
    const answer = await settle('00000000-0000-4000-8000-00000000dead');
    expectToolError(answer, 'NOT_FOUND');
  });

  it('answers confirmation_unavailable when the nonce store fails, and writes nothing', async function () {
    const id = await nextPayable();
    const version = (await readTitle(app.services.db, id))?.version ?? 0;
    const { requestState } = expectInputRequired(await settle(id));
    await sql`ALTER TABLE confirmation_nonces RENAME TO confirmation_nonces_away`.execute(app.services.db);
    try {
      expectToolError(await settle(id, { requestState, inputResponses: accept() }), 'confirmation_unavailable');
      await expectUntouched(id, version);
    } finally {
      await sql`ALTER TABLE confirmation_nonces_away RENAME TO confirmation_nonces`.execute(app.services.db);
    }
    expectSuccess(await settle(id, { requestState, inputResponses: accept() }));
    expect(await countSettlements(app.services.db, id)).to.equal(1);
  });

  it('answers confirmation_unavailable when the write transaction fails before commit, and the state stays usable', async function () {
    const id = await nextPayable();
    const version = (await readTitle(app.services.db, id))?.version ?? 0;
    const { requestState } = expectInputRequired(await settle(id));
    const nonces = await countNonces(app.services.db);
    // The settlement's second statement (its transaction row) fails after the nonce was inserted.
    await sql`ALTER TABLE transactions RENAME TO transactions_away`.execute(app.services.db);
    try {
      expectToolError(await settle(id, { requestState, inputResponses: accept() }), 'confirmation_unavailable');
    } finally {
      await sql`ALTER TABLE transactions_away RENAME TO transactions`.execute(app.services.db);
    }
    await expectUntouched(id, version);
    expect(await countNonces(app.services.db)).to.equal(nonces);
    expectSuccess(await settle(id, { requestState, inputResponses: accept() }));
    expect(await countSettlements(app.services.db, id)).to.equal(1);
  });

  describe('when the client cannot confirm', function () {
    for (const [name, capabilities] of [
      ['the 2025 era', null],
      ['the modern era without elicitation', {}],
      ['the modern era with URL elicitation only', { elicitation: { url: {} } }],
    ] as const) {
      it(`answers confirmation_required in ${name} and writes nothing`, async function () {
        const id = await nextPayable();
        const version = (await readTitle(app.services.db, id))?.version ?? 0;
        expectToolError(await settle(id, { capabilities }), 'confirmation_required');
        await expectUntouched(id, version);
      });
    }

    it('asks when elicitation is an empty object (form mode by default)', async function () {
      expectInputRequired(await settle(await nextPayable(), { capabilities: { elicitation: {} } }));
    });
  });

  it('leaves REST unchanged: POST /v1/payables/{id}/settle runs without confirmation', async function () {
    const id = await nextPayable();
    const apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE, aud: 'api' });
    const response = await fetch(`${app.url}/v1/payables/${id}/settle`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiToken}`, 'x-workspace-id': DEMO.workspaces.matriz, 'content-type': 'application/json' },
      body: JSON.stringify({ payment_date: '2026-03-09' }),
    });
    expect(response.status, await response.text()).to.equal(200);
    expect(await countSettlements(app.services.db, id)).to.equal(1);
  });

  describe('metrics (after every outcome above)', function () {
    it('counts the outcomes in mcp_confirmations_total', async function () {
      const metric = await app.services.metrics.confirmations.get();
      const byOutcome = Object.fromEntries(metric.values.map((v) => [v.labels['outcome'], v.value]));
      for (const outcome of ['requested', 'accepted', 'declined', 'cancelled', 'replayed', 'unavailable', 'conflict', 'required', 'invalid_state']) {
        expect(byOutcome[outcome], outcome).to.be.greaterThan(0);
      }
    });
  });
});
