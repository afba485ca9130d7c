/**
 * Every result names its workspace (issue 27, item 2; docs/protocol.md#tools), over every active
 * demo member and every view (docs/protocol.md#views), on the database of the run (SQLite, or
 * PostgreSQL with DATABASE_URL):
 * - a sample call of every tool the member's `tools/list` shows in the view (arguments derived
 *   from the spec as the REST coverage requests are, destructive ones confirmed): every success of
 *   a workspace-scoped tool carries `_meta["app.kobana.finance/workspace"] = {id, name}` and the
 *   second text block `Workspace: "<name>" (<id>).`, the first block staying the endpoint's JSON —
 *   also when the member named no workspace and the only one was chosen, and on an idempotent
 *   replay; REST answers carry `X-Workspace-Id`;
 * - every active member lists their own workspaces (tool, resource and REST), whatever
 *   `finance.*` scope the token carries and without any panel permission;
 * - the instructions of `initialize` and `server/discover` never name a tool absent from that
 *   member's `tools/list` in that view.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { routes, tools } from '../../generated/registry.gen.js';
import type { RouteDefinition, ToolDefinition } from '../../src/runtime/types.js';
import { DEMO } from '../../src/seed/ids.js';
import { DEMO_MEMBERS } from '../../src/seed/identity.js';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { createTaker, deriveRequest, type Take } from '../api/support/coverage-requests.js';
import { accept, FORM } from '../confirmation/support.js';
import { MODERN, modernMeta, postMcp } from './support/wire.js';

const WORKSPACE_META = 'app.kobana.finance/workspace';
const MATRIZ = DEMO.workspaces.matriz;
const ACTIVE = DEMO_MEMBERS.filter((member) => member.status === 'active');
/** The token each member calls with: the admin may write, bruno reads what his permissions allow. */
const SCOPE: Readonly<Record<string, string>> = { 'ana@demo.test': 'finance.all.write', 'bruno@demo.test': 'finance.all' };
const TOOLSETS = [...new Set(tools.flatMap((tool) => tool.toolsets))].sort();
/** Every view a client can be configured with: none, read-only, each toolset, each toolset read-only. */
const VIEWS: readonly string[] = ['', '?read_only=true', ...TOOLSETS.map((t) => `?toolsets=${t}`), ...TOOLSETS.map((t) => `?toolsets=${t}&read_only=true`)];
/** Views whose tools are all called (a toolset read-only shows only tools its toolset's view calls). */
const CALLED_VIEWS: readonly string[] = VIEWS.filter((view) => !view.includes('&'));

type Result = Record<string, unknown> & { content?: { type: string; text: string }[]; _meta?: Record<string, unknown> };

const workspaceLine = (id: string): string => `Workspace: ${JSON.stringify(DEMO.workspaceNames.get(id))} (${id}).`;

const routeOf = (tool: ToolDefinition): RouteDefinition => {
  const route = routes.find((r) => r.operation.operationId === tool.operation.operationId);
  if (!route) throw new Error(`no route for ${tool.operation.operationId}`);
  return route;
};

describe('every result names its workspace, for every active member and view', function () {
  this.timeout(600_000);
  let api: RestApp;
  let take: Take;
  const tokens = new Map<string, string>();
  let nextId = 1;

  before(async function () {
    api = await startRestApp();
    take = await createTaker(api, MATRIZ);
    for (const member of ACTIVE) tokens.set(member.email, await api.app.mintToken({ person: member.email, scope: SCOPE[member.email]! }));
  });
  after(async () => api?.close());

  async function rpc(token: string, view: string, method: string, params: Record<string, unknown>, modern = true): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (modern) {
      Object.assign(headers, { 'mcp-protocol-version': MODERN, 'mcp-method': method });
      if (method === 'tools/call') headers['mcp-name'] = String(params['name']);
      if (method === 'resources/read') headers['mcp-name'] = String(params['uri']);
    }
    const body = { jsonrpc: '2.0', id: nextId++, method, params: modern ? { ...params, _meta: modernMeta({ 'io.modelcontextprotocol/clientCapabilities': FORM }) } : params };
    const response = await postMcp(`${api.app.url}/mcp${view}`, body, headers);
    const json = response.json as { result?: Record<string, unknown>; error?: unknown };
    expect(json?.result, `${method} ${view}: ${response.text}`).to.be.an('object');
    return json.result!;
  }

  async function listNames(token: string, view: string): Promise<string[]> {
    const result = await rpc(token, view, 'tools/list', {});
    return (result['tools'] as { name: string }[]).map((tool) => tool.name);
  }

  /** One call, a confirmation question accepted. */
  async function call(token: string, view: string, name: string, args: Record<string, unknown>): Promise<Result> {
    const first = await rpc(token, view, 'tools/call', { name, arguments: args });
    if (first['resultType'] !== 'input_required') return first;
    return rpc(token, view, 'tools/call', { name, arguments: args, requestState: first['requestState'], inputResponses: accept() });
  }

  /** A success of a workspace-scoped tool names `workspaceId`; one of workspaces.list names none. */
  function expectNamed(tool: ToolDefinition, result: Result, workspaceId: string): void {
    const content = result.content ?? [];
    expect(() => JSON.parse(content[0]!.text), `${tool.name}: the first block is the endpoint's JSON`).to.not.throw();
    if (!tool.operation.workspaceScoped) {
      expect(result._meta?.[WORKSPACE_META], tool.name).to.equal(undefined);
      expect(content.map((block) => block.text).join('\n'), tool.name).to.not.match(/^Workspace: /m);
      return;
    }
    expect(content[1], `${tool.name}: ${JSON.stringify(result)}`).to.deep.equal({ type: 'text', text: workspaceLine(workspaceId) });
    expect(result._meta?.[WORKSPACE_META], tool.name).to.deep.equal({ id: workspaceId, name: DEMO.workspaceNames.get(workspaceId) });
  }

  for (const member of ACTIVE) {
    // A member with one workspace names none: the only one is chosen, and the result must say which.
    const named = member.workspaceIds.length > 1;
    describe(`${member.email} (${SCOPE[member.email]})`, function () {
      it('every successful result names its workspace, in every view that shows tools', async function () {
        const token = tokens.get(member.email)!;
        const shownByView = await Promise.all(CALLED_VIEWS.map((view) => listNames(token, view)));
        const withTools = CALLED_VIEWS.filter((_, index) => shownByView[index]!.length > 0);
        expect(withTools, 'the view without settings shows tools').to.include('');
        for (const view of withTools) {
          const shown = shownByView[CALLED_VIEWS.indexOf(view)]!;
          const called = tools.filter((tool) => shown.includes(tool.name));
          expect(called.length, view).to.equal(shown.length);
          const refused: string[] = [];
          for (const tool of called) {
            const request = await deriveRequest(routeOf(tool), take);
            const workspace = tool.operation.workspaceScoped && named ? { workspace_id: MATRIZ } : {};
            const result = await call(token, view, tool.name, { ...workspace, ...request.params, ...(request.body ?? {}) });
            if (result['isError'] === true) {
              // A business refusal of a derived request (a record still in use), as the typed-results test allows.
              const code = (JSON.parse(result.content![0]!.text) as { error: { code: string } }).error.code;
              expect(['CONFLICT', 'UNPROCESSABLE_ENTITY'], `${view} ${tool.name}: ${result.content![0]!.text}`).to.include(code);
              refused.push(tool.name);
              continue;
            }
            expectNamed(tool, result, MATRIZ);
          }
          expect(refused.length, `${view}: ${refused.join(', ')}`).to.be.at.most(2);
        }
      });

      it('lists their own workspaces whatever finance.* scope the token carries (tool, resource, REST)', async function () {
        const own = [...member.workspaceIds].sort();
        for (const scope of ['finance.all', 'finance.payables', 'finance.security']) {
          const token = await api.app.mintToken({ person: member.email, scope });
          expect(await listNames(token, ''), scope).to.include('finance_workspaces_list');
          const listed = await call(token, '', 'finance_workspaces_list', {});
          expect(listed['isError'], JSON.stringify(listed)).to.equal(undefined);
          const rows = (JSON.parse(listed.content![0]!.text) as { data: { id: string; name: string }[] }).data;
          expect(rows.map((row) => row.id).sort(), scope).to.deep.equal(own);
          for (const row of rows) expect(row.name).to.equal(DEMO.workspaceNames.get(row.id));
          const read = await rpc(token, '', 'resources/read', { uri: 'kobana://finance/workspaces' });
          const document = JSON.parse((read['contents'] as { text: string }[])[0]!.text) as { workspaces: { id: string }[] };
          expect(document.workspaces.map((w) => w.id).sort(), scope).to.deep.equal(own);
          const rest = await api.call('GET', '/v1/workspaces', { token: await api.token(member.email === DEMO.emails.ana ? 'ana' : 'bruno', scope) });
          expect(rest.status, JSON.stringify(rest.body)).to.equal(200);
          expect((rest.body.data as { id: string }[]).map((row) => row.id).sort(), scope).to.deep.equal(own);
          expect(rest.headers.get('x-workspace-id'), 'workspaces.list runs in no workspace').to.equal(null);
        }
      });

      it('instructions never name a tool absent from tools/list, in any view (initialize and server/discover)', async function () {
        const token = tokens.get(member.email)!;
        expect(VIEWS.length).to.be.greaterThan(2);
        for (const view of VIEWS) {
          const shown = new Set(await listNames(token, view));
          const discovered = await rpc(token, view, 'server/discover', {});
          const initialized = await rpc(token, view, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'workspace-named', version: '1' } }, false);
          expect(initialized['instructions'], view).to.equal(discovered['instructions']);
          const text = String(discovered['instructions']);
          expect(text, view).to.match(/server itself asks the person/);
          const mentioned: string[] = text.match(/\bfinance_[a-z0-9_]+/g) ?? [];
          // Every view shows some tool here, and the instructions name the workspaces tool only when it is shown.
          expect(mentioned.includes('finance_workspaces_list'), view).to.equal(shown.has('finance_workspaces_list'));
          for (const name of mentioned) expect(shown.has(name), `${view}: the instructions name ${name}`).to.equal(true);
        }
      });
    });
  }

  it('a replayed idempotent result still names its workspace, before the replay note', async function () {
    const tool = tools.find((t) => t.name === 'finance_categories_create')!;
    expect(tool.inputSchema['properties']).to.have.property('idempotency_key');
    const args = { workspace_id: DEMO.workspaces.filial, name: `Named ${randomUUID()}`, type: 'debit', idempotency_key: `named-${randomUUID()}` };
    const token = tokens.get(DEMO.emails.ana)!;
    const first = await call(token, '', tool.name, args);
    const again = await call(token, '', tool.name, args);
    expectNamed(tool, first, DEMO.workspaces.filial);
    expectNamed(tool, again, DEMO.workspaces.filial);
    expect(again.content![0]!.text).to.equal(first.content![0]!.text);
    expect(again.content![2]!.text).to.match(/^Replayed: /);
    expect(again._meta?.['app.kobana.finance/idempotency-replayed']).to.equal(true);
  });

  it('REST answers of workspace-scoped operations carry X-Workspace-Id', async function () {
    const bruno = await api.token('bruno', 'finance.all');
    const implicit = await api.call('GET', '/v1/payables?limit=1', { token: bruno });
    expect(implicit.status, JSON.stringify(implicit.body)).to.equal(200);
    expect(implicit.headers.get('x-workspace-id'), 'the only workspace, chosen').to.equal(MATRIZ);
    const chosen = await api.call('GET', '/v1/accounts?limit=1', { workspace: DEMO.workspaces.filial });
    expect(chosen.status).to.equal(200);
    expect(chosen.headers.get('x-workspace-id')).to.equal(DEMO.workspaces.filial);
  });
});
