/**
 * Spending limits over MCP (issue 29, items 1 and 5): a move over a limit is refused before any
 * confirmation is asked (advisory), and again inside the transaction when the allowance went
 * between the question and the confirmed retry (authoritative; the confirmation is not spent).
 * What an agent may know: an OAuth token neither reads nor changes the configuration (limits,
 * allowlist, thresholds) — not over REST, not as a tool, not through the activity log — and reads
 * its own remaining allowance.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DEMO } from '../../../src/seed/ids.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import {
  accept, callTool, countNonces, expectInputRequired, expectSuccess, expectToolError, pickPendingPayable, readTitle, settleArgs,
} from '../../confirmation/support.js';

const WS = DEMO.workspaces.matriz;

describe('money controls over MCP, and what an agent may know', function () {
  this.timeout(60_000);
  let app: TestApp;
  let personal: string;
  let oauth: string;
  const used = new Set<string>();

  before(async () => {
    app = await startTestApp();
    personal = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write' });
    oauth = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all', type: 'oauth' });
  });
  after(async () => app?.close());
  afterEach(async () => {
    await seguridad('PATCH', { money_controls: { limits: [] } });
    await app.services.db.deleteFrom('money_moves').where('workspace_id', '=', WS).execute();
  });

  async function rest(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${app.url}${path}`, {
      method, headers: { authorization: `Bearer ${token}`, 'x-workspace-id': WS, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() };
  }
  async function seguridad(method: string, body?: unknown): Promise<{ status: number; body: any }> {
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.security.write', aud: 'api' });
    const res = await rest(token, method, '/v1/security-settings', body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res;
  }
  async function amountOf(id: string): Promise<number> {
    const row = await app.services.db.selectFrom('titles').select('amount_cents').where('workspace_id', '=', WS).where('id', '=', id).executeTakeFirstOrThrow();
    return Number(row.amount_cents);
  }

  it('refuses a move over a limit before the person is asked, with the details', async () => {
    const id = await pickPendingPayable(app.services.db, used);
    const cents = await amountOf(id);
    await seguridad('PATCH', { money_controls: { limits: [{ window: 'move', amount: ((cents - 1) / 100).toFixed(2), channels: ['mcp'] }] } });
    const nonces = await countNonces(app.services.db);
    const answer = await callTool(app.url, personal, 'finance_payables_settle', settleArgs(id));
    expectToolError(answer, 'LIMIT_EXCEEDED');
    const text = ((answer.body.result?.['content'] as { text: string }[])[0] as { text: string }).text;
    expect(JSON.parse(text).error.details).to.deep.equal({
      limit: ((cents - 1) / 100).toFixed(2), window: 'move', used: null, requested: (cents / 100).toFixed(2), resets_at: null,
    });
    expect((await readTitle(app.services.db, id))?.status).to.equal('pending');
    expect(await countNonces(app.services.db)).to.equal(nonces);
    // The same limit on REST only does not apply to MCP: the person is asked.
    await seguridad('PATCH', { money_controls: { limits: [{ window: 'move', amount: '0.01', channels: ['api'] }] } });
    expectInputRequired(await callTool(app.url, personal, 'finance_payables_settle', settleArgs(id)));
  });

  it('refuses a move over the 24-hour total and over the hourly count before the person is asked', async () => {
    const [first, second, third] = [await pickPendingPayable(app.services.db, used), await pickPendingPayable(app.services.db, used), await pickPendingPayable(app.services.db, used)];
    const asked = expectInputRequired(await callTool(app.url, personal, 'finance_payables_settle', settleArgs(first)));
    expect(expectSuccess(await callTool(app.url, personal, 'finance_payables_settle', settleArgs(first), { requestState: asked.requestState, inputResponses: accept() }))['status']).to.equal('paid');
    const paid = await amountOf(first);
    const nonces = await countNonces(app.services.db);
    await seguridad('PATCH', { money_controls: { limits: [{ window: '1h', count: 1, channels: ['mcp'] }] } });
    const hourly = await callTool(app.url, personal, 'finance_payables_settle', settleArgs(second));
    expectToolError(hourly, 'LIMIT_EXCEEDED');
    expect(JSON.parse(((hourly.body.result?.['content'] as { text: string }[])[0] as { text: string }).text).error.details).to.include({ window: '1h', limit: 1, used: 1, requested: 1 });
    await seguridad('PATCH', { money_controls: { limits: [{ window: '24h', amount: ((paid + 1) / 100).toFixed(2), channels: ['mcp'] }] } });
    const daily = await callTool(app.url, personal, 'finance_payables_settle', settleArgs(third));
    expectToolError(daily, 'LIMIT_EXCEEDED');
    expect(JSON.parse(((daily.body.result?.['content'] as { text: string }[])[0] as { text: string }).text).error.details).to.include({ window: '24h', used: (paid / 100).toFixed(2) });
    expect(await countNonces(app.services.db), 'no confirmation was asked or spent').to.equal(nonces);
    expect((await readTitle(app.services.db, second))?.status).to.equal('pending');
    expect((await readTitle(app.services.db, third))?.status).to.equal('pending');
  });

  it('refuses the confirmed retry inside the transaction when the allowance went meanwhile, and keeps the confirmation unspent', async () => {
    const [first, second] = [await pickPendingPayable(app.services.db, used), await pickPendingPayable(app.services.db, used)];
    const total = await amountOf(first) + await amountOf(second);
    // Room for either move, not both.
    await seguridad('PATCH', { money_controls: { limits: [{ window: '24h', amount: ((total - 1) / 100).toFixed(2), channels: ['mcp'] }] } });
    const asked = expectInputRequired(await callTool(app.url, personal, 'finance_payables_settle', settleArgs(first)));
    const other = expectInputRequired(await callTool(app.url, personal, 'finance_payables_settle', settleArgs(second)));
    expect(expectSuccess(await callTool(app.url, personal, 'finance_payables_settle', settleArgs(second), { requestState: other.requestState, inputResponses: accept() }))['status']).to.equal('paid');
    const nonces = await countNonces(app.services.db);
    expectToolError(await callTool(app.url, personal, 'finance_payables_settle', settleArgs(first), { requestState: asked.requestState, inputResponses: accept() }), 'LIMIT_EXCEEDED');
    expect((await readTitle(app.services.db, first))?.status).to.equal('pending');
    expect(await countNonces(app.services.db), 'the refused write did not burn its confirmation').to.equal(nonces);
  });

  it('gives an OAuth token no way to read or change the configuration, and its own allowance', async () => {
    await seguridad('PATCH', { money_controls: { limits: [{ window: '24h', amount: '5000.00', channels: ['mcp'] }, { window: 'move', amount: '9.99', channels: ['api'] }], approvals: { thresholds: { mcp: '100.00' } } } });
    const apiOauth = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all finance.security finance.security.write', type: 'oauth', aud: 'api' }).catch(() => null);
    // The Seguridad scopes cannot be minted into an OAuth token; one without them is refused.
    expect(apiOauth).to.equal(null);
    const readOnly = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all', type: 'oauth', aud: 'api' });
    expect((await rest(readOnly, 'GET', '/v1/security-settings')).body.error.code).to.equal('insufficient_scope');
    expect((await rest(readOnly, 'PATCH', '/v1/security-settings', { money_controls: { limits: [] } })).body.error.code).to.equal('insufficient_scope');

    const list = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${oauth}`, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method: 'tools/list', params: {} }),
    });
    const names = ((await list.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(names).to.include('finance_money_allowance_get');
    expect(names.filter((name) => /security|allowlist|limit|threshold/.test(name))).to.deep.equal([]);

    const allowance = expectSuccess(await callTool(app.url, oauth, 'finance_money_allowance_get', { workspace_id: WS }));
    expect(allowance).to.deep.equal({ channel: 'mcp', limits: [{ window: '24h', limit: '5000.00', used: '0.00', remaining: '5000.00', resets_at: null }] });
    // Nothing of the threshold, nor of the REST limit, is told.
    expect(JSON.stringify(allowance)).to.not.include('100.00').and.not.include('9.99');
  });

  it('logs a configuration change with old → new, shown over REST with Seguridad access only, never over MCP', async () => {
    await seguridad('PATCH', { money_controls: { limits: [{ window: 'move', amount: '10.00' }] } });
    await seguridad('PATCH', { money_controls: { limits: [{ window: 'move', amount: '20.00' }] } });
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all finance.security', aud: 'api' });
    const entries = (await rest(token, 'GET', '/v1/activity?resource=security_settings&sort=-created_at&limit=5')).body.data as { details: any; person_id: string; channel: string }[];
    expect(entries.length).to.be.greaterThan(0);
    const latest = entries[0] as { details: any; person_id: string; channel: string };
    expect(latest).to.deep.include({ person_id: DEMO.persons.ana, channel: 'api' });
    expect(latest.details.changes).to.deep.equal([{
      field: 'money_controls.limits',
      old: [{ window: 'move', amount: '10.00', channels: ['api', 'mcp'], made_by: null, token_type: null }],
      new: [{ window: 'move', amount: '20.00', channels: ['api', 'mcp'], made_by: null, token_type: null }],
    }]);
    const withoutSeguridad = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all', aud: 'api' });
    const hidden = (await rest(withoutSeguridad, 'GET', '/v1/activity?resource=security_settings&sort=-created_at&limit=5')).body.data as { details: unknown }[];
    expect(hidden.length).to.be.greaterThan(0);
    expect(hidden.map((e) => e.details)).to.deep.equal(hidden.map(() => null));
    const viaMcp = expectSuccess(await callTool(app.url, oauth, 'finance_activity_list', { workspace_id: WS, filters: { resource: 'security_settings' }, limit: 5 }));
    const mcpEntries = viaMcp['data'] as { details: unknown }[];
    expect(mcpEntries.length).to.be.greaterThan(0);
    expect(mcpEntries.map((e) => e.details)).to.deep.equal(mcpEntries.map(() => null));
  });
});
