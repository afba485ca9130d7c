/**
 * Batches with one confirmation (issue 29, item 4) through the real `@modelcontextprotocol/client`
 * (v2, 2026-07-28): settling 30 payables is one `tools/call`, one `elicitation/create` and one
 * resend — "una tool destructiva … solo se ejecuta con la confirmación del servidor" once for the
 * whole batch; a batch that cannot run is refused before the person is asked; a title changed
 * after the question makes the answer stale. SQLite and, with DATABASE_URL, PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DEMO } from '../../src/seed/ids.js';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { loadFixtures, type Fixtures } from '../api/rules/support.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';
import { accept, ALL_WRITE, callTool, countSettlements, expectInputRequired, expectToolError, readTitle } from './support.js';

const M = DEMO.workspaces.matriz;

interface Session { readonly client: Client; readonly asked: string[]; readonly toolCalls: () => number }

describe('batch tools through @modelcontextprotocol/client: one confirmation for the whole batch', function () {
  this.timeout(60_000);
  let api: RestApp;
  let f: Fixtures;
  let token: string;
  let vendorName: string;

  before(async function () {
    api = await startRestApp();
    f = await loadFixtures(api.app.services.db, M);
    token = await api.app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    vendorName = (await api.app.services.db.selectFrom('people').select('name').where('workspace_id', '=', M).where('id', '=', f.vendorId).executeTakeFirstOrThrow()).name;
  });
  after(async function () {
    await api?.close();
  });

  /** A client that accepts every confirmation, recording each question and counting the tools/call requests it sends. */
  async function connect(answer: Record<string, unknown> = { action: 'accept', content: { confirm: true } }): Promise<Session> {
    const asked: string[] = [];
    let calls = 0;
    const inner = connectionRetryingFetch();
    const counting: typeof fetch = async (input, init) => {
      if (typeof init?.body === 'string' && (JSON.parse(init.body) as { method?: string }).method === 'tools/call') calls += 1;
      return inner(input, init);
    };
    const transport = new StreamableHTTPClientTransport(new URL(`${api.app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: counting });
    const client = new Client({ name: 'kobana-batch-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return answer as never;
    });
    await client.connect(transport);
    return { client, asked, toolCalls: () => calls };
  }

  async function newAccount(name: string): Promise<string> {
    const res = await api.call('POST', '/v1/accounts', { workspace: M, body: { name, type: 'checking' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.id as string;
  }
  async function createPayables(amounts: readonly string[], accountId: string, name = (i: number) => `Conta ${i}`): Promise<string[]> {
    const ids: string[] = [];
    for (const [i, amount] of amounts.entries()) {
      const res = await api.call('POST', '/v1/payables', {
        workspace: M, body: { description: name(i), amount, due_date: '2026-03-10', financial_account_id: accountId, person_id: f.vendorId, category_id: f.debitCategoryId },
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      ids.push(res.body.id as string);
    }
    return ids;
  }
  const toolError = (result: Awaited<ReturnType<Client['callTool']>>) =>
    (JSON.parse((result.content as { text: string }[])[0]?.text ?? '{}') as { error: { code: string; details?: { failed?: { index: number; id: string; code: string }[] } } }).error;

  it('settles 30 payables after one confirmation round trip: all paid, one settlement each, the balance moved by the total', async function () {
    const account = await newAccount(`Lote ${randomUUID().slice(0, 8)}`);
    // 29 small bills and the rent; the three largest are named in the question.
    const amounts = [...Array.from({ length: 29 }, (_, i) => `${100 + i}.00`), '5000.00'];
    const ids = await createPayables(amounts, account, (i) => (i === 29 ? 'Aluguel' : `Conta ${i}`));
    const session = await connect();
    try {
      const result = await session.client.callTool({
        name: 'finance_payables_settle_batch',
        arguments: { workspace_id: M, items: ids.map((id) => ({ id, payment_date: '2026-03-09' })) },
      });
      expect(result.isError, JSON.stringify(result)).to.not.equal(true);
      // One question, one resend: the first call and the answered one.
      expect(session.asked).to.have.length(1);
      expect(session.toolCalls()).to.equal(2);
      const accountName = (await api.call('GET', `/v1/accounts/${account}`, { workspace: M })).body.name as string;
      expect(session.asked[0]).to.equal(
        `Settle 30 payables totalling R$ 8.306,00 from account "${accountName}" on 2026-03-09 (largest: "Aluguel" R$ 5.000,00 to "${vendorName}", "Conta 28" R$ 128,00 to "${vendorName}", "Conta 27" R$ 127,00 to "${vendorName}")?`,
      );
      const report = result.structuredContent as { count: number; total: string; items: { id: string; status: string; transaction_id: string }[] };
      expect(report.count).to.equal(30);
      expect(report.total).to.equal('8306.00');
      expect(report.items.map((i) => i.id)).to.deep.equal(ids);
      expect(ids).to.have.length(30);
      for (const id of ids) {
        expect((await readTitle(api.app.services.db, id))?.status).to.equal('paid');
        expect(await countSettlements(api.app.services.db, id)).to.equal(1);
      }
      expect(new Set(report.items.map((i) => i.transaction_id)).size).to.equal(30);
      expect((await api.call('GET', `/v1/accounts/${account}`, { workspace: M })).body.balance).to.equal('-8306.00');
    } finally {
      await session.client.close();
    }
  });

  it('refuses a batch with a paid title before asking anyone, naming it, and writes nothing', async function () {
    const account = await newAccount(`Lote ${randomUUID().slice(0, 8)}`);
    const ids = await createPayables(['10.00', '20.00', '30.00'], account);
    expect((await api.call('POST', `/v1/payables/${ids[1]}/settle`, { workspace: M, body: { payment_date: '2026-03-01' } })).status).to.equal(200);
    const session = await connect();
    try {
      const result = await session.client.callTool({ name: 'finance_payables_settle_batch', arguments: { workspace_id: M, items: ids.map((id) => ({ id, payment_date: '2026-03-09' })) } });
      expect(result.isError).to.equal(true);
      const error = toolError(result);
      expect(error.code).to.equal('UNPROCESSABLE_ENTITY');
      expect(error.details?.failed).to.deep.equal([{ index: 1, id: ids[1], code: 'UNPROCESSABLE_ENTITY', message: 'Only a pending payable can be settled.' }]);
      expect(session.asked).to.deep.equal([]);
      expect((await readTitle(api.app.services.db, ids[0] as string))?.status).to.equal('pending');
      expect(await countSettlements(api.app.services.db, ids[0] as string)).to.equal(0);
    } finally {
      await session.client.close();
    }
  });

  it('refuses a batch with one title over the per-move cap with LIMIT_EXCEEDED before asking anyone', async function () {
    const account = await newAccount(`Lote ${randomUUID().slice(0, 8)}`);
    const ids = await createPayables(['10.00', '900.00'], account);
    const set = (money_controls: unknown) => api.call('PATCH', '/v1/security-settings', { workspace: M, body: { money_controls } });
    expect((await set({ limits: [{ window: 'move', amount: '500.00', channels: ['mcp'] }] })).status).to.equal(200);
    const session = await connect();
    try {
      const result = await session.client.callTool({ name: 'finance_payables_settle_batch', arguments: { workspace_id: M, items: ids.map((id) => ({ id, payment_date: '2026-03-09' })) } });
      expect(result.isError).to.equal(true);
      expect(toolError(result).code).to.equal('LIMIT_EXCEEDED');
      expect(session.asked).to.deep.equal([]);
      expect((await readTitle(api.app.services.db, ids[0] as string))?.status).to.equal('pending');
    } finally {
      await session.client.close();
      expect((await set({ limits: [] })).status).to.equal(200);
    }
  });

  it('cancels a batch after one confirmation stating the count, total and items', async function () {
    const account = await newAccount(`Lote ${randomUUID().slice(0, 8)}`);
    const ids = await createPayables(['10.00', '25.50'], account);
    const session = await connect();
    try {
      const result = await session.client.callTool({ name: 'finance_payables_cancel_batch', arguments: { workspace_id: M, ids } });
      expect(result.isError, JSON.stringify(result)).to.not.equal(true);
      expect(session.asked).to.deep.equal([`Cancel 2 payables totalling R$ 35,50 ("Conta 1" R$ 25,50 to "${vendorName}", "Conta 0" R$ 10,00 to "${vendorName}")?`]);
      expect(session.toolCalls()).to.equal(2);
      expect((await readTitle(api.app.services.db, ids[0] as string))?.status).to.equal('cancelled');
      expect((await readTitle(api.app.services.db, ids[1] as string))?.status).to.equal('cancelled');
    } finally {
      await session.client.close();
    }
  });

  it('refuses the answer with CONFLICT when a title of the batch changed after the question, settling none', async function () {
    const account = await newAccount(`Lote ${randomUUID().slice(0, 8)}`);
    const ids = await createPayables(['10.00', '20.00'], account);
    const args = { workspace_id: M, items: ids.map((id) => ({ id, payment_date: '2026-03-09' })) };
    const { requestState } = expectInputRequired(await callTool(api.app.url, token, 'finance_payables_settle_batch', args));
    // The second bill's amount is edited while the person reads the question.
    expect((await api.call('PATCH', `/v1/payables/${ids[1]}`, { workspace: M, body: { amount: '2000.00' } })).status).to.equal(200);
    expectToolError(await callTool(api.app.url, token, 'finance_payables_settle_batch', args, { requestState, inputResponses: accept() }), 'CONFLICT');
    expect((await readTitle(api.app.services.db, ids[0] as string))?.status).to.equal('pending');
    expect(await countSettlements(api.app.services.db, ids[0] as string)).to.equal(0);
  });
});
