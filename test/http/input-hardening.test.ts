/**
 * Input hardening at the edge of both surfaces (issue 13 findings 2 and 3), on SQLite and on
 * PostgreSQL (CI runs this file again with DATABASE_URL):
 * - a REST list filter named like an Object.prototype member (`constructor`) is BAD_REQUEST
 *   naming the parameter, and writes nothing onto the process-wide `Object`;
 * - a NUL character or an unpaired surrogate anywhere an operation reads text (JSON body, query
 *   value, list filter, MCP tool arguments) is VALIDATION_ERROR — never a 500 / -32603 — and a
 *   workspace hint carrying one is the surface's bad request.
 */
import { expect } from 'chai';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { makeCnpj } from '../api/support/documents.js';
import { postMcp } from '../mcp/support/wire.js';
import { DEMO } from '../helpers/index.js';

const M = DEMO.workspaces.matriz;
const NUL = '\u0000';
const LONE_SURROGATE = '\ud800';

interface ToolOutcome { isError?: boolean; code?: string; issues?: { path: string }[] }

describe('input hardening at the edge (REST and MCP)', function () {
  let api: RestApp;
  let mcpToken: string;
  let nextId = 1;

  before(async function () {
    api = await startRestApp();
    mcpToken = await api.app.mintToken({ person: 'ana@demo.test', scope: 'finance.all.write' });
  });
  after(async () => { await api?.close(); });

  async function callTool(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    const response = await postMcp(`${api.app.url}/mcp`, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }, {
      authorization: `Bearer ${mcpToken}`, 'mcp-protocol-version': '2025-06-18',
    });
    expect(response.status, response.text).to.equal(200);
    const body = response.json as { error?: { code: number }; result?: { isError?: boolean; content: { text: string }[] } };
    expect(body.error, 'a JSON-RPC error (e.g. -32603) instead of a tool result').to.equal(undefined);
    const parsed = JSON.parse(body.result?.content[0]?.text ?? '{}') as { error?: { code: string; details?: { issues?: { path: string }[] } } };
    return { isError: body.result?.isError, code: parsed.error?.code, issues: parsed.error?.details?.issues };
  }

  describe('list filters named like Object.prototype members (finding 2)', function () {
    const objectNames = Object.getOwnPropertyNames(Object).sort();
    const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();

    afterEach(function () {
      // Whatever happened in the request, the process-wide Object must be as it was.
      expect(({}).constructor).to.equal(Object);
      expect(Object.getOwnPropertyNames(Object).sort()).to.deep.equal(objectNames);
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).to.deep.equal(prototypeNames);
    });

    for (const query of ['constructor=x', 'constructor[in]=a,b', 'constructor[gte]=1']) {
      it(`answers ${query} with 400 BAD_REQUEST naming the parameter, Object untouched`, async function () {
        const res = await api.call('GET', `/v1/payables?${query}`, { workspace: M });
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error.code).to.equal('BAD_REQUEST');
        expect(res.body.error.message).to.contain(query.split('=')[0]);
        expect(res.body.error.details?.parameter).to.equal(query.split('=')[0]);
      });
    }

    it('answers `__proto__` filters with BAD_REQUEST (not named: not a filter-shaped name)', async function () {
      for (const query of ['__proto__=x', '__proto__[eq]=x']) {
        const res = await api.call('GET', `/v1/payables?${query}`, { workspace: M });
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error.code).to.equal('BAD_REQUEST');
      }
    });

    it('answers a filter the list does not declare with BAD_REQUEST naming it', async function () {
      const res = await api.call('GET', '/v1/accounts?colour=red', { workspace: M });
      expect(res.status).to.equal(400);
      expect(res.body.error).to.include({ code: 'BAD_REQUEST' });
      expect(res.body.error.details).to.deep.equal({ parameter: 'colour' });
    });

    it('still lists with declared filters', async function () {
      const res = await api.call('GET', '/v1/payables?status=pending&due_date[gte]=2000-01-01&limit=1', { workspace: M });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });

    it('answers an MCP filters object with `constructor` or `__proto__` as a tool error, Object untouched', async function () {
      for (const filters of [{ constructor: 'x' }, JSON.parse('{"__proto__": {"eq": "x"}}') as Record<string, unknown>]) {
        const outcome = await callTool('finance_payables_list', { workspace_id: M, filters });
        expect(outcome.isError).to.equal(true);
        expect(outcome.code).to.be.oneOf(['VALIDATION_ERROR', 'BAD_REQUEST']);
      }
    });
  });

  describe('NUL and unpaired surrogates (finding 3)', function () {
    function expectUnsafe(res: { status: number; body: { error: { code: string; details?: { issues?: { path: string }[] } } } }, path: string) {
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.error.code).to.equal('VALIDATION_ERROR');
      expect(res.body.error.details?.issues?.map((i) => i.path)).to.deep.equal([path]);
    }

    it('refuses a JSON body string with NUL or a lone surrogate (REST)', async function () {
      expectUnsafe(await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj: makeCnpj(), name: `Acme${NUL}` } }), 'name');
      expectUnsafe(await api.call('POST', '/v1/companies', { workspace: M, body: { cnpj: makeCnpj(), name: `Acme${LONE_SURROGATE}` } }), 'name');
      const stored = await api.app.services.db.selectFrom('companies').select('id')
        .where('workspace_id', '=', M).where('name', 'like', 'Acme%').execute();
      expect(stored).to.have.length(0);
    });

    it('refuses a NUL in a nested body value and in an object key', async function () {
      const raw = '{"cnpj":"11222333000181","name":"x","trade_name":"ok","\\u0000":1}';
      expectUnsafe(await api.call('POST', '/v1/companies', { workspace: M, raw, contentType: 'application/json' }), '(key)');
    });

    it('refuses a NUL in a query filter value (REST)', async function () {
      expectUnsafe(await api.call('GET', '/v1/people?name=%00', { workspace: M }), 'filters.name.eq');
      expectUnsafe(await api.call('GET', '/v1/payables?document_number=a%00b', { workspace: M }), 'filters.document_number.eq');
    });

    it('refuses a NUL in a path segment (REST)', async function () {
      expectUnsafe(await api.call('GET', '/v1/companies/%00', { workspace: M }), 'id');
    });

    it('answers a workspace hint with NUL as the surface\'s bad request, before authentication reads it', async function () {
      const rest = await api.call('GET', '/v1/accounts?workspace_id=%00');
      expect(rest.status, JSON.stringify(rest.body)).to.equal(400);
      expect(rest.body.error.code).to.equal('BAD_REQUEST');
      const mcp = await postMcp(`${api.app.url}/mcp?workspace_id=%00`, { jsonrpc: '2.0', id: nextId++, method: 'tools/list', params: {} }, {
        authorization: `Bearer ${mcpToken}`, 'mcp-protocol-version': '2025-06-18',
      });
      expect(mcp.status, mcp.text).to.equal(400);
      expect((mcp.json as { error: { code: number } }).error.code).to.equal(-32600);
    });

    it('answers MCP tool arguments with NUL or a lone surrogate with a VALIDATION_ERROR tool result, not -32603', async function () {
      const created = await callTool('finance_companies_create', { workspace_id: M, cnpj: makeCnpj(), name: `Acme${NUL}` });
      expect(created).to.deep.include({ isError: true, code: 'VALIDATION_ERROR' });
      expect(created.issues?.map((i) => i.path)).to.deep.equal(['name']);
      const surrogate = await callTool('finance_companies_create', { workspace_id: M, cnpj: makeCnpj(), name: `Acme${LONE_SURROGATE}` });
      expect(surrogate).to.deep.include({ isError: true, code: 'VALIDATION_ERROR' });
      const listed = await callTool('finance_people_list', { workspace_id: M, filters: { name: `a${NUL}` } });
      expect(listed).to.deep.include({ isError: true, code: 'VALIDATION_ERROR' });
      expect(listed.issues?.map((i) => i.path)).to.deep.equal(['filters.name.eq']);
    });
  });
});
