/**
 * resources/list, resources/templates/list and resources/read over real HTTP with real tokens,
 * in the three eras: what each caller sees, era shaping, in-process reads with the operation's
 * checks, and not-found per era (docs/protocol.md#modern-era-2026-07-28, docs/protocol.md#2025-era).
 */
import { expect } from 'chai';
import { DEMO, ERAS, callMcp, expectResult, resourceTemplates, startResourceStack, type ResourceStack } from './support.js';

interface Listed { uri?: string; uriTemplate?: string; name: string; title?: string; mimeType?: string }

describe('MCP resources', function () {
  let stack: ResourceStack;
  let ana: string;
  let bruno: string;
  let matrizPayableId: string;
  let filialPayableId: string;

  before(async function () {
    stack = await startResourceStack();
    ana = await stack.token('ana');
    bruno = await stack.token('bruno');
    const pick = async (workspaceId: string) => (await stack.app.services.db.selectFrom('titles').select('id')
      .where('workspace_id', '=', workspaceId).where('kind', '=', 'payable').orderBy('id').executeTakeFirstOrThrow()).id;
    matrizPayableId = await pick(DEMO.workspaces.matriz);
    filialPayableId = await pick(DEMO.workspaces.filial);
  });
  after(async () => stack?.close());

  describe('resources/list', function () {
    for (const era of ERAS) {
      it(`lists the workspaces, the chart of accounts and the guide to ana (${era})`, async function () {
        const result = await expectResult(stack.mcpUrl, ana, era, 'resources/list');
        const resources = result['resources'] as Listed[];
        expect(resources.map((r) => r.uri)).to.deep.equal([
          'kobana://finance/workspaces', 'kobana://finance/chart-of-accounts', 'kobana://finance/guide',
        ]);
        for (const resource of resources) {
          if (era === '2025-03-26') expect(resource).not.to.have.property('title');
          else expect(resource.title).to.be.a('string');
        }
        if (era === '2026-07-28') {
          expect(result).to.include({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
        } else {
          expect(result).not.to.have.any.keys('resultType', 'ttlMs', 'cacheScope');
        }
      });
    }

    it('lists bruno, who may not read categories, his workspaces and the guide (every member may list their workspaces)', async function () {
      const result = await expectResult(stack.mcpUrl, bruno, '2026-07-28', 'resources/list');
      expect((result['resources'] as Listed[]).map((r) => r.uri)).to.deep.equal(['kobana://finance/workspaces', 'kobana://finance/guide']);
    });

    it('lists only the guide to carla, an inactive member, and reads nothing else for her', async function () {
      const carla = await stack.token('carla');
      const listed = await expectResult(stack.mcpUrl, carla, '2025-06-18', 'resources/list');
      expect((listed['resources'] as Listed[]).map((r) => r.uri)).to.deep.equal(['kobana://finance/guide']);
      const templates = await expectResult(stack.mcpUrl, carla, '2025-06-18', 'resources/templates/list');
      expect(templates['resourceTemplates']).to.deep.equal([]);
      const uri = `kobana://finance/payables/${matrizPayableId}?workspace_id=${DEMO.workspaces.matriz}`;
      const reply = await callMcp(stack.mcpUrl, carla, '2025-06-18', 'resources/read', { uri });
      expect(reply.error?.code).to.equal(-32602);
      expect((reply.error?.data?.['error'] as { code: string }).code).to.equal('membership_inactive');
    });

    it('hides the chart of accounts from a token without a categories scope', async function () {
      const token = await stack.token('ana', 'finance.payables finance.workspaces');
      const result = await expectResult(stack.mcpUrl, token, '2025-06-18', 'resources/list');
      expect((result['resources'] as Listed[]).map((r) => r.uri)).to.deep.equal(['kobana://finance/workspaces', 'kobana://finance/guide']);
    });
  });

  describe('resources/templates/list', function () {
    for (const era of ERAS) {
      it(`lists one template per GET /v1/<resource>/{id} to ana, in URI order (${era})`, async function () {
        const result = await expectResult(stack.mcpUrl, ana, era, 'resources/templates/list');
        const templates = result['resourceTemplates'] as Listed[];
        const uris = templates.map((t) => t.uriTemplate);
        expect(uris).to.have.length(resourceTemplates.length).and.to.include('kobana://finance/payables/{id}');
        expect(uris).to.deep.equal([...uris].sort());
        for (const template of templates) {
          expect(template.mimeType).to.equal('application/json');
          if (era === '2025-03-26') expect(template).not.to.have.property('title');
          else expect(template.title).to.be.a('string').and.not.equal('');
        }
        if (era === '2026-07-28') expect(result).to.include({ ttlMs: 0, cacheScope: 'private' });
      });
    }

    it('lists only the payables and receivables templates to bruno', async function () {
      const result = await expectResult(stack.mcpUrl, bruno, '2025-06-18', 'resources/templates/list');
      expect((result['resourceTemplates'] as Listed[]).map((t) => t.uriTemplate)).to.deep.equal([
        'kobana://finance/payables/{id}', 'kobana://finance/receivables/{id}',
      ]);
    });
  });

  describe('resources/read', function () {
    for (const era of ERAS) {
      it(`reads a payable through its template with ?workspace_id= (${era})`, async function () {
        const uri = `kobana://finance/payables/${matrizPayableId}?workspace_id=${DEMO.workspaces.matriz}`;
        const result = await expectResult(stack.mcpUrl, ana, era, 'resources/read', { uri });
        const contents = result['contents'] as { uri: string; mimeType: string; text: string }[];
        expect(contents).to.have.length(1);
        expect(contents[0]).to.include({ uri, mimeType: 'application/json' });
        const body = JSON.parse(contents[0]?.text ?? '') as Record<string, unknown>;
        expect(body).to.include({ id: matrizPayableId });
        expect(body['amount']).to.match(/^\d+\.\d{2}$/);
        if (era === '2026-07-28') expect(result).to.include({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
      });
    }

    it('uses the only workspace of bruno when the URI names none', async function () {
      const uri = `kobana://finance/payables/${matrizPayableId}`;
      const result = await expectResult(stack.mcpUrl, bruno, '2025-06-18', 'resources/read', { uri });
      expect(JSON.parse((result['contents'] as { text: string }[])[0]?.text ?? '')).to.include({ id: matrizPayableId });
    });

    it('answers -32002 with data.uri for a record of another workspace (2025 era)', async function () {
      const uri = `kobana://finance/payables/${filialPayableId}?workspace_id=${DEMO.workspaces.matriz}`;
      const reply = await callMcp(stack.mcpUrl, ana, '2025-06-18', 'resources/read', { uri });
      expect(reply.status).to.equal(200);
      expect(reply.error).to.deep.include({ code: -32002, data: { uri } });
    });

    it('answers -32602 with data.uri for a record of another workspace (2026-07-28)', async function () {
      const uri = `kobana://finance/payables/${filialPayableId}?workspace_id=${DEMO.workspaces.matriz}`;
      const reply = await callMcp(stack.mcpUrl, ana, '2026-07-28', 'resources/read', { uri });
      expect(reply.status).to.equal(200);
      expect(reply.error).to.deep.include({ code: -32602, data: { uri } });
    });

    it('answers not found when bruno names a workspace he does not reach, like a missing record', async function () {
      const foreign = `kobana://finance/payables/${filialPayableId}?workspace_id=${DEMO.workspaces.filial}`;
      const missing = `kobana://finance/payables/00000000-0000-4000-8000-00000000dead?workspace_id=${DEMO.workspaces.matriz}`;
      for (const uri of [foreign, missing]) {
        const reply = await callMcp(stack.mcpUrl, bruno, '2025-03-26', 'resources/read', { uri });
        expect(reply.error).to.deep.equal({ code: -32002, message: 'Resource not found', data: { uri } });
      }
    });

    it('answers not found for unknown URIs, malformed ids and unknown query parameters', async function () {
      for (const uri of [
        'kobana://finance/nothing/1', `kobana://finance/payables/not-a-uuid?workspace_id=${DEMO.workspaces.matriz}`, 'https://example.com/x',
        `kobana://finance/payables/${matrizPayableId}?other=1`, 'kobana://finance/guide?workspace_id=x',
      ]) {
        const reply = await callMcp(stack.mcpUrl, ana, '2026-07-28', 'resources/read', { uri });
        expect(reply.error, uri).to.deep.include({ code: -32602, data: { uri } });
      }
    });

    it('reports insufficient_permission as -32602 with the API error in data', async function () {
      const account = await stack.app.services.db.selectFrom('accounts').select('id').where('workspace_id', '=', DEMO.workspaces.matriz).executeTakeFirstOrThrow();
      const uri = `kobana://finance/accounts/${account.id}`;
      const reply = await callMcp(stack.mcpUrl, bruno, '2025-06-18', 'resources/read', { uri });
      expect(reply.error?.code).to.equal(-32602);
      expect(reply.error?.data).to.deep.include({ uri });
      expect((reply.error?.data?.['error'] as { code: string }).code).to.equal('insufficient_permission');
    });

    it('reports workspace_required with the choices when ana names no workspace', async function () {
      const uri = `kobana://finance/payables/${matrizPayableId}`;
      const reply = await callMcp(stack.mcpUrl, ana, '2025-06-18', 'resources/read', { uri });
      expect(reply.error?.code).to.equal(-32602);
      const error = reply.error?.data?.['error'] as { code: string; details: { workspaces: unknown[] } };
      expect(error.code).to.equal('workspace_required');
      expect(error.details.workspaces).to.have.length(2);
    });

    it('reports insufficient_permission for bruno reading the chart of accounts, before looking at the workspace', async function () {
      const uri = `kobana://finance/chart-of-accounts?workspace_id=${DEMO.workspaces.filial}`;
      const reply = await callMcp(stack.mcpUrl, bruno, '2026-07-28', 'resources/read', { uri });
      expect(reply.error?.code).to.equal(-32602);
      expect((reply.error?.data?.['error'] as { code: string }).code).to.equal('insufficient_permission');
    });

    it('reads the workspaces document', async function () {
      const uri = 'kobana://finance/workspaces';
      const result = await expectResult(stack.mcpUrl, ana, '2025-06-18', 'resources/read', { uri });
      const contents = result['contents'] as { mimeType: string; text: string }[];
      expect(contents[0]?.mimeType).to.equal('application/json');
      const doc = JSON.parse(contents[0]?.text ?? '') as { workspaces: { id: string; name: string }[] };
      expect(doc.workspaces.map((w) => w.name).sort()).to.deep.equal(['Filial', 'Matriz']);
    });

    it('reads the chart of accounts of a workspace as a nested tree', async function () {
      const uri = `kobana://finance/chart-of-accounts?workspace_id=${DEMO.workspaces.filial}`;
      const result = await expectResult(stack.mcpUrl, ana, '2026-07-28', 'resources/read', { uri });
      const doc = JSON.parse((result['contents'] as { text: string }[])[0]?.text ?? '') as {
        workspace_id: string;
        categories: { level: number; type: string; children: { level: number; type: string; children: unknown[] }[] }[];
      };
      expect(doc.workspace_id).to.equal(DEMO.workspaces.filial);
      const count = (nodes: { children: unknown[] }[]): number => nodes.reduce((n, node) => n + 1 + count(node.children as { children: unknown[] }[]), 0);
      const rows = await stack.app.services.db.selectFrom('categories').select('id').where('workspace_id', '=', DEMO.workspaces.filial).execute();
      expect(count(doc.categories)).to.equal(rows.length);
      expect(doc.categories.every((root) => root.level === 1)).to.equal(true);
      expect(doc.categories.some((root) => root.children.length > 0 && root.children.every((child) => child.level === 2 && child.type === root.type))).to.equal(true);
    });

    it('reads the guide as Markdown', async function () {
      const result = await expectResult(stack.mcpUrl, bruno, '2025-03-26', 'resources/read', { uri: 'kobana://finance/guide' });
      const contents = result['contents'] as { mimeType: string; text: string }[];
      expect(contents[0]?.mimeType).to.equal('text/markdown');
      expect(contents[0]?.text).to.match(/^# Kobana Finance/);
    });
  });
});
