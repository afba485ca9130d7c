/**
 * The payee allowlist end to end (issue 29, item 2; docs/security.md#payee-allowlist): with
 * `payee_allowlist.required_on: ["mcp"]` set through the Seguridad REST update, an MCP settle to
 * a payee whose destinations nobody approved is refused before any confirmation is asked, naming
 * the destination; approved over REST it is asked and runs; editing the payee's Pix key blocks it
 * again, also between the question and the answer (the check in the write's transaction); REST is
 * not held to it. The allowlist is never reachable with an OAuth token nor listed as a tool.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startRestApp, type RestApp } from '../support/rest-app.js';
import { makeCnpj } from '../support/documents.js';
import { loadFixtures } from '../rules/support.js';
import { DEMO } from '../../helpers/index.js';
import { accept, ALL_WRITE, callTool, countNonces, countSettlements, expectInputRequired, expectSuccess, readTitle, settleArgs, type CallAnswer } from '../../confirmation/support.js';
import { modernRequest, postMcp } from '../../mcp/support/wire.js';

const M = DEMO.workspaces.matriz;

interface ToolError { code: string; message: string; details: Record<string, unknown> }

function toolError(answer: CallAnswer): ToolError {
  const result = answer.body.result;
  expect(result?.['isError'], JSON.stringify(answer.body)).to.equal(true);
  const text = (result?.['content'] as { text: string }[])[0]?.text ?? '';
  return (JSON.parse(text) as { error: ToolError }).error;
}

describe('payee allowlist end to end: MCP settles held to the approved destinations', function () {
  this.timeout(60_000);
  let api: RestApp;
  let mcpToken: string;
  let accountId: string;

  before(async () => {
    api = await startRestApp();
    mcpToken = await api.app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    accountId = (await loadFixtures(api.app.services.db, M)).accountId;
    const res = await api.call('PATCH', '/v1/security-settings', { workspace: M, body: { money_controls: { payee_allowlist: { required_on: ['mcp'] } } } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
  after(async () => { await api?.close(); });

  async function createPayee(body: Record<string, unknown>): Promise<string> {
    const res = await api.call('POST', '/v1/people', { workspace: M, body: { name: `Favorecido ${randomUUID().slice(0, 8)}`, kind: 'juridical', is_supplier: true, ...body } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id;
  }
  async function createPayable(personId: string): Promise<string> {
    const res = await api.call('POST', '/v1/payables', { workspace: M, body: { description: `Allowlist ${randomUUID()}`, amount: '150.00', due_date: '2026-03-09', financial_account_id: accountId, person_id: personId } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id;
  }
  const settleOverMcp = (id: string, options: Parameters<typeof callTool>[4] = {}) => callTool(api.url, mcpToken, 'finance_payables_settle', settleArgs(id), options);
  /** As a person approves: the values read from the person just before, for each kind. */
  const approve = async (personId: string, kinds: string[]) => {
    const person = await api.call('GET', `/v1/people/${personId}`, { workspace: M });
    expect(person.status, JSON.stringify(person.body)).to.equal(200);
    const bank = person.body.bank_account as { bank_code: string; agency: string; account_number: string } | null;
    const values: Record<string, string | null> = {
      document_number: person.body.document_number, pix_key: person.body.pix_key, bank_account: bank ? `${bank.bank_code}/${bank.agency}/${bank.account_number}` : null,
    };
    const expected = Object.fromEntries(kinds.map((kind) => [kind, values[kind]]));
    const res = await api.call('POST', '/v1/payee-allowlist', { workspace: M, body: { person_id: personId, kinds, expected } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };
  async function expectNothingWritten(id: string): Promise<void> {
    expect(await readTitle(api.app.services.db, id)).to.deep.include({ status: 'pending' });
    expect(await countSettlements(api.app.services.db, id)).to.equal(0);
  }

  it('refuses before asking, names the destination; once approved over REST it asks and settles', async () => {
    const document = makeCnpj();
    const payee = await createPayee({ document_number: document, pix_key: 'contas@favorecido.test' });
    const payable = await createPayable(payee);

    const refused = toolError(await settleOverMcp(payable));
    expect(refused.code).to.equal('SECURITY_BLOCKED');
    expect(refused.details).to.deep.equal({
      channel: 'mcp', action: 'move_money', reason: 'payee_not_allowlisted', person_id: payee,
      destination: { kind: 'document_number', value_hint: document.slice(-4) },
    });
    expect(refused.message).to.include('document number').and.not.include(document);
    expect(await countNonces(api.app.services.db)).to.equal(0);
    await expectNothingWritten(payable);

    await approve(payee, ['document_number']);
    const pix = toolError(await settleOverMcp(payable));
    expect(pix.details['destination']).to.deep.equal({ kind: 'pix_key', value_hint: 'test' });
    expect(pix.message).to.include('Pix key');

    await approve(payee, ['pix_key']);
    const { requestState } = expectInputRequired(await settleOverMcp(payable));
    expect(expectSuccess(await settleOverMcp(payable, { requestState, inputResponses: accept() }))['status']).to.equal('paid');
    expect(await countSettlements(api.app.services.db, payable)).to.equal(1);
  });

  it('editing the payee\'s Pix key blocks it again, also when the edit lands between the question and the answer', async () => {
    const payee = await createPayee({ pix_key: 'pagamentos@favorecido.test' });
    await approve(payee, ['pix_key']);
    const first = await createPayable(payee);
    const { requestState } = expectInputRequired(await settleOverMcp(first));
    // The person confirmed what was allowed; the key changed before the answer arrived.
    const edit = await api.call('PATCH', `/v1/people/${payee}`, { workspace: M, body: { pix_key: '+5511912345678' } });
    expect(edit.status, JSON.stringify(edit.body)).to.equal(200);
    const late = toolError(await settleOverMcp(first, { requestState, inputResponses: accept() }));
    expect(late).to.deep.include({ code: 'SECURITY_BLOCKED' });
    expect(late.details['destination']).to.deep.equal({ kind: 'pix_key', value_hint: '5678' });
    await expectNothingWritten(first);

    const second = await createPayable(payee);
    expect(toolError(await settleOverMcp(second)).details['reason']).to.equal('payee_not_allowlisted');
    await approve(payee, ['pix_key']);
    expectInputRequired(await settleOverMcp(second));
  });

  it('refuses a payee with no payment destination, and leaves REST unaffected when only mcp is required', async () => {
    const bare = await createPayee({});
    const payable = await createPayable(bare);
    const refused = toolError(await settleOverMcp(payable));
    expect(refused.details).to.deep.include({ reason: 'payee_has_no_destination', person_id: bare, destination: null });
    await expectNothingWritten(payable);
    const rest = await api.call('POST', `/v1/payables/${payable}/settle`, { workspace: M, body: { payment_date: '2026-03-09' } });
    expect(rest.status, JSON.stringify(rest.body)).to.equal(200);
    expect(rest.body.status).to.equal('paid');
  });

  it('an OAuth token cannot reach the allowlist, and no allowlist tool is in tools/list', async () => {
    const oauth = await api.app.mintToken({ person: DEMO.emails.ana, type: 'oauth', scope: 'finance.all', aud: 'api' });
    const list = await api.call('GET', '/v1/payee-allowlist', { workspace: M, token: oauth });
    expect(list.body.error?.code).to.equal('insufficient_scope');
    const { body, headers } = modernRequest(1, 'tools/list');
    const response = await postMcp(`${api.url}/mcp`, body, { authorization: `Bearer ${mcpToken}`, ...headers });
    const names = (response.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(names).to.include('finance_payables_settle').and.include('finance_people_update');
    expect(names.filter((name) => name.includes('allowlist') || name.includes('security'))).to.deep.equal([]);
  });
});
