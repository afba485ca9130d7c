/**
 * The confirmation seam (src/mcp/tools/confirmation/confirmation.ts): a replacement confirmation is called only for
 * destructive tools after every check and can answer `input_required` (nothing written), but it
 * cannot let the call proceed: only src/mcp/tools/confirmation/confirmation.ts makes the proof `execute` demands,
 * so a look-alike proof is refused with confirmation_required. Real services, second router.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { tools, resourceTemplates } from '../../generated/registry.gen.js';
import { DEMO } from '../../src/seed/ids.js';
import type { ConfirmationProof } from '../../src/api/service.js';
import type { ConfirmationRequest, DestructiveCallConfirmation } from '../../src/mcp/tools/confirmation/types.js';
import { createMcpRouter } from '../../src/mcp/router.js';
import { ALL_WRITE, startTestApp, type TestApp } from './support/app.js';
import { modernRequest, postMcp } from './support/wire.js';

describe('confirmation seam', function () {
  let app: TestApp;
  let server: http.Server;
  let url: string;
  const seen: ConfirmationRequest[] = [];

  const confirm: DestructiveCallConfirmation = {
    verify: async (request) => {
      seen.push(request);
      if (request.params['requestState'] !== 'sealed') return undefined;
      const lookAlike: ConfirmationProof = { consumeInTransaction: async () => {} };
      return lookAlike;
    },
    ask: async (request) => {
      seen.push(request);
      return { resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create', params: { mode: 'form', message: 'Delete?' } } }, requestState: 'sealed' };
    },
  };

  before(async function () {
    app = await startTestApp();
    const s = app.services;
    const router = createMcpRouter({ config: s.config, logger: s.logger, metrics: s.metrics, operations: s.operations, tools, resourceTemplates, auth: s.auth, limits: s.limits, db: s.db, confirm });
    const koa = new Koa();
    koa.use(router.routes());
    server = http.createServer(koa.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  after(async function () {
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
  });

  it('asks with input_required, writes nothing, and cannot run the tool with a proof it made itself', async function () {
    const row = await app.services.db.selectFrom('titles').select('id')
      .where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable').where('status', '=', 'pending').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    const args = { workspace_id: DEMO.workspaces.matriz, id: row.id };
    const first = modernRequest(1, 'tools/call', { name: 'finance_payables_delete', arguments: args });
    const asked = await postMcp(url, first.body, { ...first.headers, authorization: `Bearer ${token}` });
    expect(asked.status).to.equal(200);
    const result = (asked.json as { result: Record<string, unknown> }).result;
    expect(result['resultType']).to.equal('input_required');
    expect(result['requestState']).to.equal('sealed');
    expect(result['_meta']).to.have.property('io.modelcontextprotocol/serverInfo');
    expect(seen[0]?.prepared.workspaceId).to.equal(DEMO.workspaces.matriz);
    expect(seen[0]?.era.version).to.equal('2026-07-28');
    expect(seen[0]?.clientCapabilities).to.deep.equal({});
    const kept = await app.services.db.selectFrom('titles').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).where('id', '=', row.id).executeTakeFirst();
    expect(kept?.id).to.equal(row.id);

    const resend = modernRequest(2, 'tools/call', { name: 'finance_payables_delete', arguments: args, requestState: 'sealed', inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } });
    const done = await postMcp(url, resend.body, { ...resend.headers, authorization: `Bearer ${token}` });
    const doneResult = (done.json as { result: Record<string, unknown> }).result;
    expect(doneResult['isError'], JSON.stringify(doneResult)).to.equal(true);
    expect(JSON.parse((doneResult['content'] as { text: string }[])[0]!.text).error.code).to.equal('confirmation_required');
    const still = await app.services.db.selectFrom('titles').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).where('id', '=', row.id).executeTakeFirst();
    expect(still?.id).to.equal(row.id);
  });

  it('is not called for read-only tools', async function () {
    const before = seen.length;
    const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
    const request = modernRequest(3, 'tools/call', { name: 'finance_payables_list', arguments: { workspace_id: DEMO.workspaces.matriz, limit: 1 } });
    const response = await postMcp(url, request.body, { ...request.headers, authorization: `Bearer ${token}` });
    expect(response.status).to.equal(200);
    expect(seen.length).to.equal(before);
  });
});
