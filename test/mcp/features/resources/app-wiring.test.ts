/**
 * The app as `createApp` builds it serves this feature's providers at `/mcp` (the one-line
 * wiring in src/app.ts): the guide is listed, a template is listed and a prompt is offered.
 */
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../../../helpers/test-app.js';
import { expectResult } from './support.js';

describe('createApp() /mcp resources, prompts and completions', function () {
  let app: TestApp;
  let token: string;

  before(async function () {
    app = await startTestApp();
    token = await app.mintToken({ person: 'ana@demo.test', scope: 'finance.all' });
  });
  after(async () => app?.close());

  it('serves the resources, templates and prompts providers', async function () {
    const url = `${app.url}/mcp`;
    const resources = await expectResult(url, token, '2025-06-18', 'resources/list');
    expect((resources['resources'] as { uri: string }[]).map((r) => r.uri)).to.include('kobana://finance/guide');
    const templates = await expectResult(url, token, '2026-07-28', 'resources/templates/list');
    expect((templates['resourceTemplates'] as { uriTemplate: string }[]).map((t) => t.uriTemplate)).to.include('kobana://finance/payables/{id}');
    const prompts = await expectResult(url, token, '2025-06-18', 'prompts/list');
    expect((prompts['prompts'] as { name: string }[]).map((p) => p.name)).to.include('review_overdue_payables');
  });
});
