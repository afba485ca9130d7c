/**
 * tools/list and tools/call through the real app: per-caller filtering (scope AND panel
 * permission), the authorization codes as tool errors (before argument errors), argument
 * validation, the endpoint's JSON as text, confirmation_required for destructive tools, metrics.
 */
import { expect } from 'chai';
import { tools } from '../../generated/registry.gen.js';
import { DEMO } from '../../src/seed/ids.js';
import { DEMO_MEMBERS } from '../../src/seed/identity.js';
import { buildSmallPdf } from '../api/operations/attachments-fixtures.js';
import { ALL_READ, ALL_WRITE, startTestApp, type TestApp } from './support/app.js';
import { postMcp } from './support/wire.js';

interface ToolResult { isError?: boolean; content: { type: string; text: string }[] }

describe('tools/list and tools/call', function () {
  let app: TestApp;
  let mcpUrl: string;
  let nextId = 1;

  before(async function () {
    app = await startTestApp();
    mcpUrl = `${app.url}/mcp`;
  });
  after(async () => app?.close());

  async function rpc(token: string, method: string, params: Record<string, unknown>, headers: Record<string, string> = {}) {
    const response = await postMcp(mcpUrl, { jsonrpc: '2.0', id: nextId++, method, params }, { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-06-18', ...headers });
    expect(response.status, response.text).to.equal(200);
    return response.json as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  }

  async function listNames(token: string): Promise<string[]> {
    const body = await rpc(token, 'tools/list', {});
    return (body.result?.['tools'] as { name: string }[]).map((t) => t.name);
  }

  async function call(token: string, name: string, args: Record<string, unknown>, headers: Record<string, string> = {}): Promise<{ result: ToolResult; json: Record<string, unknown> }> {
    const body = await rpc(token, 'tools/call', { name, arguments: args }, headers);
    expect(body.error, JSON.stringify(body.error)).to.equal(undefined);
    const result = body.result as unknown as ToolResult;
    // The endpoint's JSON first; then the workspace it ran in, and a note may follow (a page cut to fit, a replay); a download ends with a resource_link.
    const texts = result.content.at(-1)?.type === 'resource_link' ? result.content.slice(0, -1) : result.content;
    expect(texts.length).to.be.within(1, 4);
    expect(texts.every((block) => block.type === 'text')).to.equal(true);
    return { result, json: JSON.parse(result.content[0]?.text ?? 'null') as Record<string, unknown> };
  }

  async function callError(token: string, name: string, args: Record<string, unknown>): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
    const { result, json } = await call(token, name, args);
    expect(result.isError, JSON.stringify(json)).to.equal(true);
    return (json as { error: { code: string; message: string; details?: Record<string, unknown> } }).error;
  }

  async function firstPendingPayableId(): Promise<string> {
    const row = await app.services.db.selectFrom('titles').select('id')
      .where('workspace_id', '=', DEMO.workspaces.matriz).where('kind', '=', 'payable').where('status', '=', 'pending')
      .orderBy('id').executeTakeFirstOrThrow();
    return row.id;
  }

  describe('tools/list', function () {
    it('shows the admin with finance.all.write every tool, sorted by name, as generated', async function () {
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
      const body = await rpc(token, 'tools/list', {});
      const served = body.result?.['tools'] as Record<string, unknown>[];
      const expected = [...tools].sort((a, b) => (a.name < b.name ? -1 : 1));
      expect(served.map((t) => t['name'])).to.deep.equal(expected.map((t) => t.name));
      for (const [index, tool] of expected.entries()) {
        expect(served[index]).to.deep.equal(JSON.parse(JSON.stringify({
          name: tool.name, title: tool.title, description: tool.description, inputSchema: tool.inputSchema,
          ...(tool.output ? { outputSchema: tool.output.schema } : {}), annotations: tool.annotations,
        })));
        expect(tool.annotations.openWorldHint).to.equal(false);
      }
    });

    it('shows a read-only token only read tools', async function () {
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
      const names = await listNames(token);
      const readOnly = tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name).sort();
      expect(names).to.deep.equal(readOnly);
    });

    it('shows the limited member (bruno) exactly the tools his panel permissions allow: read tools, and the payable settles', async function () {
      const token = await app.mintToken({ person: DEMO.emails.bruno, scope: ALL_WRITE });
      const names = await listNames(token);
      // Derived from the seed and the registry, so a new operation needs no edit here.
      const granted = new Set(DEMO_MEMBERS.find((member) => member.email === DEMO.emails.bruno)?.permissions ?? []);
      // `none`: the tool needs no panel permission (finance_workspaces_list: every member lists their own workspaces).
      const expected = tools.filter((t) => granted.has(t.operation.permission) || t.operation.permission === 'none');
      expect(expected.length, 'tools bruno may use').to.be.greaterThan(0).and.lessThan(tools.length);
      // He reads; his one write permission is payables.settle (his agent asked for the demo's approval requests, src/seed/approvals.ts).
      const writes = expected.filter((t) => !(t.operation.readOnly && t.annotations.readOnlyHint));
      expect(writes.map((t) => t.name), 'bruno settles payables').to.include.members(['finance_payables_settle', 'finance_payables_settle_batch']);
      expect(writes.every((t) => t.operation.permission === 'payables.settle'), 'bruno\'s only writes are under payables.settle').to.equal(true);
      expect(names).to.deep.equal(expected.map((t) => t.name).sort());
    });

    it('shows an inactive member nothing', async function () {
      const token = await app.mintToken({ person: DEMO.emails.carla, scope: ALL_WRITE });
      expect(await listNames(token)).to.deep.equal([]);
    });

    it('answers the same bytes for the same caller twice', async function () {
      const token = await app.mintToken({ person: DEMO.emails.bruno, scope: ALL_READ });
      const first = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${token}` });
      const second = await postMcp(mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${token}` });
      expect(second.text).to.equal(first.text);
    });
  });

  describe('authorization codes as tool errors', function () {
    it('returns insufficient_scope for a hidden write tool when the token only reads', async function () {
      const token = await app.mintToken({ person: DEMO.emails.bruno, scope: ALL_READ });
      const error = await callError(token, 'finance_payables_create', {});
      expect(error.code).to.equal('insufficient_scope');
      expect(error.details?.['required']).to.be.an('array').that.includes('finance.payables.write');
    });

    it('returns insufficient_permission for a hidden tool the person may not use', async function () {
      const token = await app.mintToken({ person: DEMO.emails.bruno, scope: ALL_WRITE });
      const error = await callError(token, 'finance_accounts_list', {});
      expect(error).to.deep.include({ code: 'insufficient_permission' });
      expect(error.details).to.deep.equal({ permission: 'accounts.view' });
    });

    it('puts authorization before argument validation', async function () {
      const token = await app.mintToken({ person: DEMO.emails.bruno, scope: ALL_WRITE });
      const error = await callError(token, 'finance_accounts_list', { filters: { limit: 5 }, limit: 'many' });
      expect(error.code).to.equal('insufficient_permission');
    });

    it('returns workspace_access_denied for a workspace the person is not granted', async function () {
      const token = await app.mintToken({ person: DEMO.emails.bruno, scope: ALL_READ });
      const error = await callError(token, 'finance_payables_list', { workspace_id: DEMO.workspaces.filial });
      expect(error).to.deep.include({ code: 'workspace_access_denied' });
    });

    it('puts the workspace check before argument validation', async function () {
      const token = await app.mintToken({ person: DEMO.emails.bruno, scope: ALL_READ });
      const error = await callError(token, 'finance_payables_list', { workspace_id: DEMO.workspaces.filial, limit: 1000 });
      expect(error.code).to.equal('workspace_access_denied');
    });

    it('returns membership_inactive for an inactive member', async function () {
      const token = await app.mintToken({ person: DEMO.emails.carla, scope: ALL_READ });
      const error = await callError(token, 'finance_payables_list', {});
      expect(error.code).to.equal('membership_inactive');
    });

    it('returns workspace_required with the choices when the person reaches several workspaces', async function () {
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
      const error = await callError(token, 'finance_payables_list', {});
      expect(error.code).to.equal('workspace_required');
      expect((error.details?.['workspaces'] as { id: string }[]).map((w) => w.id).sort()).to.deep.equal([DEMO.workspaces.matriz, DEMO.workspaces.filial].sort());
    });
  });

  describe('arguments', function () {
    it('refuses an update that changes nothing, as REST does (the body\'s minProperties), and writes nothing', async function () {
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
      const account = await app.services.db.selectFrom('accounts').select(['id', 'version'])
        .where('workspace_id', '=', DEMO.workspaces.matriz).orderBy('id').executeTakeFirstOrThrow();
      const error = await callError(token, 'finance_accounts_update', { workspace_id: DEMO.workspaces.matriz, id: account.id });
      expect(error.code).to.equal('VALIDATION_ERROR');
      expect((error.details?.['issues'] as { message: string }[])[0]?.message).to.match(/^must set at least 1 of: /);
      const after = await app.services.db.selectFrom('accounts').select('version')
        .where('workspace_id', '=', DEMO.workspaces.matriz).where('id', '=', account.id).executeTakeFirstOrThrow();
      expect(Number(after.version)).to.equal(Number(account.version));
    });

    it('names limit placed inside filters as a VALIDATION_ERROR issue', async function () {
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
      const error = await callError(token, 'finance_payables_list', { workspace_id: DEMO.workspaces.matriz, filters: { status: 'pending', limit: 5, sort_by: 'due_date' } });
      expect(error.code).to.equal('VALIDATION_ERROR');
      const issues = error.details?.['issues'] as { path: string; message: string }[];
      expect(issues.map((i) => i.path)).to.include.members(['filters.limit', 'filters.sort_by']);
      expect(issues.find((i) => i.path === 'filters.limit')?.message).to.match(/named argument/);
    });

    it('reports an out-of-range limit and an unknown argument without echoing values', async function () {
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
      const error = await callError(token, 'finance_payables_list', { workspace_id: DEMO.workspaces.matriz, limit: 1000, colour: 'SECRET-VALUE' });
      expect(error.code).to.equal('VALIDATION_ERROR');
      const issues = error.details?.['issues'] as { path: string }[];
      expect(issues.map((i) => i.path)).to.include.members(['limit', 'colour']);
      expect(JSON.stringify(error)).not.to.include('SECRET-VALUE');
    });

    it('uses the connection default workspace (X-Workspace-Id) when workspace_id is absent', async function () {
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
      const { result } = await call(token, 'finance_payables_list', { limit: 1 }, { 'x-workspace-id': DEMO.workspaces.matriz });
      expect(result.isError).to.equal(undefined);
    });
  });

  describe('results', function () {
    it('returns the same JSON as GET /v1/payables/{id} as the text content', async function () {
      const id = await firstPendingPayableId();
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
      const apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ, aud: 'api' });
      const { result, json } = await call(token, 'finance_payables_get', { workspace_id: DEMO.workspaces.matriz, id });
      expect(result.isError).to.equal(undefined);
      const rest = await fetch(`${app.url}/v1/payables/${id}`, { headers: { authorization: `Bearer ${apiToken}`, 'x-workspace-id': DEMO.workspaces.matriz } });
      expect(rest.status).to.equal(200);
      expect(json).to.deep.equal(await rest.json());
    });

    it('marks an Idempotency-Key replay in _meta, as REST does with Idempotency-Replayed', async function () {
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
      const key = `mcp-replay-${Date.now()}`;
      const args = { workspace_id: DEMO.workspaces.matriz, name: key, default_rate: '2', idempotency_key: key };
      const first = await call(token, 'finance_taxes_create', args);
      const again = await call(token, 'finance_taxes_create', args);
      expect(first.result.isError, JSON.stringify(first.json)).to.equal(undefined);
      const workspace = { 'app.kobana.finance/workspace': { id: DEMO.workspaces.matriz, name: 'Matriz' } };
      expect((first.result as { _meta?: unknown })._meta).to.deep.equal(workspace);
      expect((again.result as { _meta?: unknown })._meta).to.deep.equal({ ...workspace, 'app.kobana.finance/idempotency-replayed': true });
      expect(again.json).to.deep.equal(first.json);
      // Said where a model reads it too, not only in _meta: after the block naming the workspace.
      expect(first.result.content).to.have.length(2);
      expect(again.result.content[1]?.text).to.equal(first.result.content[1]?.text);
      expect(again.result.content[2]?.text).to.match(/^Replayed: /);
      const rows = await app.services.db.selectFrom('taxes').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).where('name', '=', key).execute();
      expect(rows).to.have.length(1);
    });

    it('returns NOT_FOUND as a tool error for a record of another workspace', async function () {
      const id = await firstPendingPayableId();
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
      const error = await callError(token, 'finance_payables_get', { workspace_id: DEMO.workspaces.filial, id });
      expect(error.code).to.equal('NOT_FOUND');
    });

    it('answers a destructive tool with confirmation_required and changes nothing', async function () {
      const id = await firstPendingPayableId();
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
      const error = await callError(token, 'finance_payables_delete', { workspace_id: DEMO.workspaces.matriz, id });
      expect(error.code).to.equal('confirmation_required');
      const still = await app.services.db.selectFrom('titles').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).where('id', '=', id).executeTakeFirst();
      expect(still?.id).to.equal(id);
    });

    it('answers SECURITY_BLOCKED before asking for confirmation', async function () {
      const apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: `${ALL_WRITE} finance.security.write`, aud: 'api' });
      const patch = await fetch(`${app.url}/v1/security-settings`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${apiToken}`, 'x-workspace-id': DEMO.workspaces.filial, 'content-type': 'application/json' },
        body: JSON.stringify({ blocked: { mcp: ['delete'] } }),
      });
      expect(patch.status, await patch.text()).to.equal(200);
      const row = await app.services.db.selectFrom('titles').select('id')
        .where('workspace_id', '=', DEMO.workspaces.filial).where('kind', '=', 'payable').orderBy('id').executeTakeFirstOrThrow();
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
      const error = await callError(token, 'finance_payables_delete', { workspace_id: DEMO.workspaces.filial, id: row.id });
      expect(error.code).to.equal('SECURITY_BLOCKED');
    });

    it('checks authorization before asking for confirmation', async function () {
      const id = await firstPendingPayableId();
      const token = await app.mintToken({ person: DEMO.emails.bruno, scope: ALL_WRITE });
      const error = await callError(token, 'finance_payables_delete', { id });
      expect(error.code).to.equal('insufficient_permission');
    });

    it('returns file metadata, not bytes, for finance_attachments_download', async function () {
      const apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE, aud: 'api' });
      const pdf = buildSmallPdf('mcp download');
      const upload = await fetch(`${app.url}/v1/attachments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiToken}`, 'x-workspace-id': DEMO.workspaces.matriz, 'content-type': 'application/json', 'idempotency-key': 'mcp-download-1' },
        body: JSON.stringify({ file_name: 'nota.pdf', content_type: 'application/pdf', content_base64: pdf.toString('base64') }),
      });
      expect(upload.status).to.equal(201);
      const { id } = (await upload.json()) as { id: string };
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
      const { result, json } = await call(token, 'finance_attachments_download', { workspace_id: DEMO.workspaces.matriz, id });
      expect(result.isError).to.equal(undefined);
      expect(Object.keys(json).sort()).to.deep.equal(['content_type', 'download_path', 'download_url', 'download_url_expires_at', 'file_name', 'id', 'note', 'sha256', 'size']);
      expect(json).to.include({ id, content_type: 'application/pdf', size: pdf.length, file_name: 'nota.pdf' });
      expect(json['download_path']).to.be.a('string').and.include(id);
      expect(json['download_url']).to.be.a('string').and.include(`${app.url}/downloads/attachments/${id}?link=`);
      expect(result.content.at(-1)).to.deep.include({ type: 'resource_link', uri: `kobana://finance/attachments/${id}` });
      expect(result.content[0]?.text).not.to.include(pdf.toString('base64').slice(0, 40));
    });

    it('counts calls by tool and status in the metrics', async function () {
      const id = await firstPendingPayableId();
      const token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_READ });
      await call(token, 'finance_payables_get', { workspace_id: DEMO.workspaces.matriz, id });
      const text = await app.services.metrics.registry.metrics();
      expect(text).to.match(/mcp_tool_calls_total\{tool="finance_payables_get",status="ok"\} \d+/);
      expect(text).to.match(/mcp_tool_call_duration_seconds_count\{tool="finance_payables_get",status="ok"\} \d+/);
    });
  });
});
