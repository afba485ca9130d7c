/**
 * The Seguridad settings are reachable only with the explicit `finance.security` /
 * `finance.security.write` scopes: an "everything" token (`finance.all`, `finance.all.write`)
 * handed to an agent must not let it read or unblock its own channel. Real app, real /v1.
 */
import { expect } from 'chai';
import { startTestApp, DEMO, type TestApp } from '../helpers/index.js';

interface Answer { status: number; body: any } // JSON under test

const F = DEMO.workspaces.filial;

describe('security settings need the explicit finance.security scopes (REST)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => app?.close());

  const token = (person: 'ana' | 'bruno', scope: string) => app.mintToken({ person: DEMO.emails[person], scope, aud: 'api' });

  async function settings(method: 'GET' | 'PATCH', bearer: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${app.url}/v1/security-settings`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        'x-workspace-id': F,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  const UNBLOCK = { blocked: { mcp: [] } };

  for (const scope of ['finance.all.write', 'finance.all', 'finance.all finance.all.write finance.money.write']) {
    it(`refuses GET and PATCH with insufficient_scope for "${scope}" (even an admin)`, async () => {
      const bearer = await token('ana', scope);
      const get = await settings('GET', bearer);
      expect(get.status, JSON.stringify(get.body)).to.equal(403);
      expect(get.body.error).to.deep.include({
        code: 'insufficient_scope',
        details: { required: ['finance.security'], granted: scope.split(' ').sort() },
      });
      const patch = await settings('PATCH', bearer, UNBLOCK);
      expect(patch.status, JSON.stringify(patch.body)).to.equal(403);
      expect(patch.body.error).to.deep.include({
        code: 'insufficient_scope',
        details: { required: ['finance.security.write'], granted: scope.split(' ').sort() },
      });
    });
  }

  it('lets an admin with finance.security.write read and update them', async () => {
    const bearer = await token('ana', 'finance.security.write');
    const get = await settings('GET', bearer);
    expect(get.status, JSON.stringify(get.body)).to.equal(200);
    expect(get.body.blocked).to.deep.equal({ api: [], mcp: [] });
    const patch = await settings('PATCH', bearer, { blocked: { mcp: ['delete'] } });
    expect(patch.status, JSON.stringify(patch.body)).to.equal(200);
    expect(patch.body).to.deep.include({ blocked: { api: [], mcp: ['delete'] }, updated_by: DEMO.persons.ana });
    // Alongside finance.all.write too.
    const both = await settings('PATCH', await token('ana', 'finance.all.write finance.security.write'), UNBLOCK);
    expect(both.status, JSON.stringify(both.body)).to.equal(200);
    expect(both.body.blocked).to.deep.equal({ api: [], mcp: [] });
  });

  it('lets finance.security read but not update', async () => {
    const bearer = await token('ana', 'finance.security');
    expect((await settings('GET', bearer)).status).to.equal(200);
    const patch = await settings('PATCH', bearer, UNBLOCK);
    expect(patch.status).to.equal(403);
    expect(patch.body.error).to.deep.include({
      code: 'insufficient_scope',
      details: { required: ['finance.security.write'], granted: ['finance.security'] },
    });
  });

  it('still needs the admin permission with the right scope', async () => {
    const res = await settings('GET', await token('bruno', 'finance.security.write'));
    expect(res.status).to.equal(403);
    expect(res.body.error).to.deep.include({ code: 'insufficient_permission', details: { permission: 'security.view' } });
  });

  it('keeps finance.all.write reaching every other resource, money included', async () => {
    const bearer = await token('ana', 'finance.all.write');
    const res = await fetch(`${app.url}/v1/payables?limit=1`, { headers: { authorization: `Bearer ${bearer}`, 'x-workspace-id': F } });
    expect(res.status).to.equal(200);
  });

  it('offers neither security scope in the protected-resource metadata (OAuth never grants them: personal tokens only)', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource/v1']) {
      const res = await fetch(`${app.url}${path}`);
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { scopes_supported: string[] };
      expect(body.scopes_supported).to.include.members(['finance.all', 'finance.all.write', 'finance.payables.write']);
      expect(body.scopes_supported, path).to.not.include.oneOf(['finance.security', 'finance.security.write']);
    }
  });
});
