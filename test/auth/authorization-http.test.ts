/**
 * The authorization catalogue (docs/security.md#check-order-and-error-catalogue: insufficient_scope, insufficient_permission,
 * workspace_access_denied, membership_inactive, workspace_required) and the 401/403 of the HTTP
 * layer, with real signed tokens over real HTTP through the real /v1 and /mcp surfaces.
 */
import { expect } from 'chai';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { startTestApp, DEMO, type TestApp } from '../helpers/index.js';
import { CHALLENGE_SCOPES } from '../../src/identity/scopes.js';

interface Answer { status: number; headers: Headers; body: any } // JSON under test

async function readAnswer(res: Response): Promise<Answer> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

describe('authorization over HTTP (/v1 and /mcp)', () => {
  let app: TestApp;
  let otherOrgWorkspace: string;
  let rpcId = 1;

  before(async () => {
    app = await startTestApp();
    const now = new Date().toISOString();
    const orgId = randomUUID();
    otherOrgWorkspace = randomUUID();
    await app.services.db.insertInto('organizations').values({ id: orgId, name: 'Outra Ltda', created_at: now, deleted_at: null }).execute();
    await app.services.db.insertInto('workspaces').values({ id: otherOrgWorkspace, organization_id: orgId, name: 'Outra', created_at: now }).execute();
  });
  after(async () => app?.close());

  const token = (person: 'ana' | 'bruno' | 'carla', scope: string, aud: 'api' | 'mcp') =>
    app.mintToken({ person: DEMO.emails[person], scope, aud });

  async function rest(path: string, bearer: string | null, headers: Record<string, string> = {}): Promise<Answer> {
    return readAnswer(await fetch(`${app.url}${path}`, { headers: { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers } }));
  }

  async function mcp(bearer: string | null, method: string, params: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> {
    return readAnswer(await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18',
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: rpcId++, method, params }),
    }));
  }

  /** The `{"error":{…}}` envelope a tools/call returned as an isError result. */
  async function toolError(bearer: string, name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) {
    const res = await mcp(bearer, 'tools/call', { name, arguments: args }, headers);
    expect(res.status).to.equal(200);
    expect(res.body.result?.isError, JSON.stringify(res.body)).to.equal(true);
    return JSON.parse(res.body.result.content[0].text).error as { code: string; message: string; details?: Record<string, unknown> };
  }

  describe('insufficient_scope', () => {
    it('REST: 403 naming required and granted', async () => {
      const res = await rest('/v1/payables', await token('bruno', 'finance.receivables', 'api'));
      expect(res.status).to.equal(403);
      expect(res.body.error).to.deep.include({ code: 'insufficient_scope', details: { required: ['finance.payables'], granted: ['finance.receivables'] } });
    });

    it('MCP: an isError result naming required and granted', async () => {
      const error = await toolError(await token('bruno', 'finance.receivables', 'mcp'), 'finance_payables_list', {});
      expect(error).to.deep.include({ code: 'insufficient_scope', details: { required: ['finance.payables'], granted: ['finance.receivables'] } });
    });
  });

  describe('insufficient_permission', () => {
    it('REST: 403 naming the permission', async () => {
      const res = await rest('/v1/accounts', await token('bruno', 'finance.all', 'api'));
      expect(res.status).to.equal(403);
      expect(res.body.error).to.deep.include({ code: 'insufficient_permission', details: { permission: 'accounts.view' } });
    });

    it('MCP: an isError result naming the permission', async () => {
      const error = await toolError(await token('bruno', 'finance.all', 'mcp'), 'finance_accounts_list', {});
      expect(error).to.deep.include({ code: 'insufficient_permission', details: { permission: 'accounts.view' } });
    });
  });

  describe('workspace_access_denied', () => {
    it('REST: 403 naming the workspace not granted to the person', async () => {
      const res = await rest('/v1/payables', await token('bruno', 'finance.all', 'api'), { 'x-workspace-id': DEMO.workspaces.filial });
      expect(res.status).to.equal(403);
      expect(res.body.error).to.deep.include({ code: 'workspace_access_denied', details: { workspace_id: DEMO.workspaces.filial } });
    });

    it('REST: 403 for a workspace that does not exist', async () => {
      const missing = randomUUID();
      const res = await rest(`/v1/payables?workspace_id=${missing}`, await token('ana', 'finance.all', 'api'));
      expect(res.status).to.equal(403);
      expect(res.body.error).to.deep.include({ code: 'workspace_access_denied', details: { workspace_id: missing } });
    });

    it('MCP: an isError result for the workspace_id argument', async () => {
      const error = await toolError(await token('bruno', 'finance.all', 'mcp'), 'finance_payables_list', { workspace_id: DEMO.workspaces.filial });
      expect(error).to.deep.include({ code: 'workspace_access_denied', details: { workspace_id: DEMO.workspaces.filial } });
    });
  });

  describe('membership_inactive', () => {
    it('REST: 403 for an inactive member', async () => {
      const res = await rest('/v1/payables', await token('carla', 'finance.all', 'api'), { 'x-workspace-id': DEMO.workspaces.matriz });
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('membership_inactive');
    });

    it('MCP: an isError result for an inactive member', async () => {
      const error = await toolError(await token('carla', 'finance.all', 'mcp'), 'finance_payables_list', { workspace_id: DEMO.workspaces.matriz });
      expect(error.code).to.equal('membership_inactive');
    });
  });

  describe('workspace_required', () => {
    it('REST: 400 with the choices when the person reaches several workspaces', async () => {
      const res = await rest('/v1/payables', await token('ana', 'finance.all', 'api'));
      expect(res.status).to.equal(400);
      expect(res.body.error).to.deep.include({
        code: 'workspace_required',
        details: { workspaces: [{ id: DEMO.workspaces.filial, name: 'Filial' }, { id: DEMO.workspaces.matriz, name: 'Matriz' }] },
      });
    });

    it('MCP: an isError result with the choices', async () => {
      const error = await toolError(await token('ana', 'finance.all', 'mcp'), 'finance_payables_list', {});
      expect(error.code).to.equal('workspace_required');
      expect(error.details?.['workspaces']).to.have.length(2);
    });

    it('resolves the only reachable workspace without asking', async () => {
      const res = await rest('/v1/payables?limit=1', await token('bruno', 'finance.payables', 'api'));
      expect(res.status).to.equal(200);
      expect(res.body.data).to.be.an('array');
    });

    it('MCP: uses the connection default workspace (X-Workspace-Id)', async () => {
      const res = await mcp(await token('ana', 'finance.all', 'mcp'), 'tools/call', { name: 'finance_payables_list', arguments: { limit: 1 } }, { 'x-workspace-id': DEMO.workspaces.filial });
      expect(res.status).to.equal(200);
      expect(res.body.result?.isError ?? false, JSON.stringify(res.body)).to.equal(false);
    });
  });

  describe('HTTP-layer rejections', () => {
    const challenge = (path: '' | '/v1', error?: string) =>
      `Bearer resource_metadata="${app.url}/.well-known/oauth-protected-resource${path}", scope="${CHALLENGE_SCOPES.join(' ')}"${error ? `, error="${error}"` : ''}`;

    it('REST: 401 with the challenge when the token is missing', async () => {
      const res = await rest('/v1/payables', null);
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal(challenge('/v1'));
      expect(res.body.error.code).to.be.a('string');
    });

    it('MCP: 401 with the challenge when the token is missing', async () => {
      const res = await mcp(null, 'tools/list', {});
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal(challenge(''));
    });

    it('refuses a /v1 token at /mcp and an /mcp token at /v1 with invalid_token', async () => {
      const atMcp = await mcp(await token('ana', 'finance.all', 'api'), 'tools/list', {});
      expect(atMcp.status).to.equal(401);
      expect(atMcp.headers.get('www-authenticate')).to.equal(challenge('', 'invalid_token'));
      const atRest = await rest('/v1/payables', await token('ana', 'finance.all', 'mcp'));
      expect(atRest.status).to.equal(401);
      expect(atRest.headers.get('www-authenticate')).to.equal(challenge('/v1', 'invalid_token'));
    });

    it("answers 403 before JSON-RPC for a connection default of another organization", async () => {
      const atMcp = await mcp(await token('ana', 'finance.all', 'mcp'), 'tools/list', {}, { 'x-workspace-id': otherOrgWorkspace });
      expect(atMcp.status).to.equal(403);
      const atRest = await rest(`/v1/payables?workspace_id=${otherOrgWorkspace}`, await token('ana', 'finance.all', 'api'));
      expect(atRest.status).to.equal(403);
    });

    it('answers 431 for a 1 MB Authorization header at /mcp and /v1, and keeps serving', async () => {
      for (const path of ['/mcp', '/v1/payables']) {
        const status = await new Promise<number>((resolve, reject) => {
          const url = new URL(`${app.url}${path}`);
          const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: path === '/mcp' ? 'POST' : 'GET', headers: { authorization: `Bearer ${'a'.repeat(1024 * 1024)}` } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
        expect(status).to.equal(431);
      }
      expect((await rest('/v1/payables?limit=1', await token('bruno', 'finance.payables', 'api'))).status).to.equal(200);
    });

    it('REST: 400 for a token in the query string', async () => {
      const res = await rest(`/v1/payables?access_token=${await token('ana', 'finance.all', 'api')}`, null);
      expect(res.status).to.equal(400);
      expect(res.headers.get('www-authenticate')).to.equal(challenge('/v1', 'invalid_request'));
    });
  });

  describe('well-known documents', () => {
    it('serves RFC 9728 metadata for /mcp at both paths', async () => {
      for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
        const res = await rest(path, null);
        expect(res.status).to.equal(200);
        expect(res.body).to.deep.include({ resource: `${app.url}/mcp`, authorization_servers: [app.url], bearer_methods_supported: ['header'] });
        expect(res.body.scopes_supported).to.include.members(['finance.all', 'finance.all.write', 'finance.money.write', 'finance.payables']);
      }
    });

    it('serves the embedded JWKS and issuer metadata', async () => {
      const jwks = await rest('/.well-known/jwks.json', null);
      expect(jwks.status).to.equal(200);
      expect(jwks.body.keys).to.have.length(1);
      expect(jwks.body.keys[0]).to.include({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
      expect(jwks.body.keys[0]).to.not.have.property('d');
      const issuer = await rest('/.well-known/oauth-authorization-server', null);
      expect(issuer.body).to.deep.include({ issuer: app.url, jwks_uri: `${app.url}/.well-known/jwks.json` });
    });
  });
});
