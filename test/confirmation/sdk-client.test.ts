/**
 * End to end with the real `@modelcontextprotocol/client` (v2, 2026-07-28): its multi-round
 * driver answers our `input_required` through the registered `elicitation/create` handler and
 * resends with `inputResponses` + `requestState`. Accept settles the payable; decline leaves it.
 */
import { expect } from 'chai';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DEMO } from '../../src/seed/ids.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { ALL_WRITE, countSettlements, pickPendingPayable, readTitle, settleArgs } from './support.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';

interface Asked { message: string; schema: unknown }

async function connect(app: TestApp, token: string, answer: () => Record<string, unknown>, asked: Asked[]): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: connectionRetryingFetch() });
  const client = new Client(
    { name: 'kobana-confirmation-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as { message: string; requestedSchema?: unknown };
    asked.push({ message: params.message, schema: params.requestedSchema });
    return answer() as never;
  });
  await client.connect(transport);
  return client;
}

describe('finance_payables_settle through @modelcontextprotocol/client with an elicitation/create handler', function () {
  this.timeout(30_000);
  let app: TestApp;
  let token: string;
  const used = new Set<string>();

  before(async function () {
    app = await startTestApp();
    token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
  });
  after(async function () {
    await app?.close();
  });

  it('settles the payable once when the person accepts', async function () {
    const id = await pickPendingPayable(app.services.db, used);
    const asked: Asked[] = [];
    const client = await connect(app, token, () => ({ action: 'accept', content: { confirm: true } }), asked);
    try {
      const result = await client.callTool({ name: 'finance_payables_settle', arguments: settleArgs(id) });
      expect(result.isError, JSON.stringify(result)).to.not.equal(true);
      expect(asked).to.have.length(1);
      expect(asked[0]?.message).to.match(/^Settle payable ".+" of R\$ [\d.]+,\d{2} to ".+" from account ".+", paying R\$ [\d.]+,\d{2} on \d{4}-\d{2}-\d{2} \(interest R\$ [\d.]+,\d{2}, discount R\$ [\d.]+,\d{2}\)\?$/);
      expect(asked[0]?.schema).to.deep.include({ type: 'object', required: ['confirm'] });
      expect((await readTitle(app.services.db, id))?.status).to.equal('paid');
      expect(await countSettlements(app.services.db, id)).to.equal(1);
    } finally {
      await client.close();
    }
  });

  it('leaves the payable pending when the person declines, with USER_DECLINED as the tool error', async function () {
    const id = await pickPendingPayable(app.services.db, used);
    const before = await readTitle(app.services.db, id);
    const asked: Asked[] = [];
    const client = await connect(app, token, () => ({ action: 'decline' }), asked);
    try {
      const result = await client.callTool({ name: 'finance_payables_settle', arguments: settleArgs(id) });
      expect(result.isError).to.equal(true);
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
      expect(JSON.parse(text)).to.have.nested.property('error.code', 'USER_DECLINED');
      expect(asked).to.have.length(1);
      expect(await readTitle(app.services.db, id)).to.deep.equal(before);
      expect(await countSettlements(app.services.db, id)).to.equal(0);
    } finally {
      await client.close();
    }
  });

  it('answers confirmation_required to a modern client that declares no elicitation', async function () {
    const id = await pickPendingPayable(app.services.db, used);
    const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: connectionRetryingFetch() });
    const client = new Client({ name: 'kobana-confirmation-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'finance_payables_settle', arguments: { ...settleArgs(id), workspace_id: DEMO.workspaces.matriz } });
      const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
      expect(JSON.parse(text)).to.have.nested.property('error.code', 'confirmation_required');
      expect((await readTitle(app.services.db, id))?.status).to.equal('pending');
    } finally {
      await client.close();
    }
  });
});
