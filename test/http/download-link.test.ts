/**
 * Download links (issue 27, item 4; docs/security.md#download-links), on both databases: the
 * download tool answers an absolute, signed, short-lived `download_url` (structuredContent and
 * text) and, from 2025-06-18, a `resource_link` to the attachment as the last block; the link
 * opens with no token, as an attachment with the headers the issue lists, as often as wanted
 * until it expires (the app's clock is moved, never slept on), each use in the activity with
 * channel `link`; it is refused — one sentence, nothing more — when expired, tampered with, used
 * for another attachment or workspace, or once the person's access is gone (membership
 * deactivated, `attachments.view` removed, workspace grant removed, attachment deleted). REST
 * without a workspace answers `workspace_required` worded for REST.
 */
import { expect } from 'chai';
import { DEMO, startTestApp, type TestApp } from '../helpers/index.js';
import { createManualClock, type ManualClock } from '../helpers/clock.js';
import { MODERN, modernRequest, postMcp } from '../mcp/support/wire.js';
import { buildSmallPdf, callRest } from '../api/operations/attachments-fixtures.js';
import { BRUNO_MEMBERSHIP_ID } from '../../src/seed/ids.js';

const MATRIZ = DEMO.workspaces.matriz;
const FILIAL = DEMO.workspaces.filial;
const LINK_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "sandbox; default-src 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

/** The headers of LINK_HEADERS as the answer carries them. */
function pickLinkHeaders(headers: Headers): Record<string, string | null> {
  return Object.fromEntries(Object.keys(LINK_HEADERS).map((name) => [name, headers.get(name)]));
}

interface ToolAnswer {
  readonly result: any; // tests read nested fields freely
  readonly payload: any;
}

interface Opened {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
}

describe('download links a person opens (attachments)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let clock: ManualClock;
  let anaMcp: string;
  let anaApi: string;
  let nextId = 1;

  async function callTool(token: string, name: string, args: Record<string, unknown>, version = MODERN): Promise<ToolAnswer> {
    const request = version === MODERN
      ? modernRequest(nextId++, 'tools/call', { name, arguments: args })
      : { body: { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } }, headers: { 'mcp-protocol-version': version } };
    const reply = await postMcp(`${app.url}/mcp`, request.body, { ...request.headers, authorization: `Bearer ${token}` });
    const result = (reply.json as { result: any }).result;
    return { result, payload: JSON.parse(result.content[0].text) };
  }

  async function upload(workspaceId: string, bytes: Buffer = buildSmallPdf(`link ${nextId++}`), fileName = 'boleto.pdf', contentType = 'application/pdf'): Promise<string> {
    const reply = await callRest(app.url, anaApi, workspaceId, 'POST', '/v1/attachments',
      { file_name: fileName, content_type: contentType, content_base64: bytes.toString('base64') });
    expect(reply.status, JSON.stringify(reply.json)).to.equal(201);
    return reply.json.id as string;
  }

  async function linkFor(token: string, workspaceId: string, id: string): Promise<string> {
    const answer = await callTool(token, 'finance_attachments_download', { workspace_id: workspaceId, id });
    expect(answer.result.isError, JSON.stringify(answer.payload)).to.not.equal(true);
    return answer.payload.download_url as string;
  }

  /** Opens a link as a browser would: no token, no header but the URL. */
  async function open(url: string): Promise<Opened> {
    const response = await fetch(url);
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  async function expectRefused(url: string): Promise<void> {
    const opened = await open(url);
    expect(opened.status).to.equal(403);
    expect(opened.headers.get('content-type')).to.equal('text/plain; charset=utf-8');
    expect(opened.headers.get('content-disposition')).to.equal(null);
    expect(opened.bytes.toString('utf8')).to.equal(
      'This download link cannot be used: it is not valid, it has expired, or you can no longer see this file. Ask for a new link.');
    expect(pickLinkHeaders(opened.headers)).to.deep.equal(LINK_HEADERS);
  }

  async function linkUses(id: string): Promise<Record<string, unknown>[]> {
    const reply = await callRest(app.url, anaApi, MATRIZ, 'GET', `/v1/activity?channel=link&record_id=${id}`);
    expect(reply.status, JSON.stringify(reply.json)).to.equal(200);
    return reply.json.data as Record<string, unknown>[];
  }

  before(async () => {
    clock = createManualClock(Date.parse('2026-11-20T12:00:00.000Z'));
    app = await startTestApp({ clock });
    anaMcp = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all', type: 'personal', aud: 'mcp' });
    anaApi = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', type: 'personal', aud: 'api' });
  });
  after(async () => { await app?.close(); });

  it('the download tool answers an absolute, signed, 5-minute download_url in structuredContent and the text, and a resource_link last', async () => {
    const id = await upload(MATRIZ);
    const answer = await callTool(anaMcp, 'finance_attachments_download', { workspace_id: MATRIZ, id });
    const { result, payload } = answer;
    expect(payload.download_url).to.match(new RegExp(`^${app.url}/downloads/attachments/${id}\\?link=[\\w-]+\\.[\\w-]+\\.[\\w-]+$`));
    expect(result.structuredContent.download_url).to.equal(payload.download_url);
    expect(Date.parse(payload.download_url_expires_at) - clock.now()).to.equal(5 * 60 * 1000);
    expect(payload).to.include({ id, download_path: `/v1/attachments/${id}/download`, file_name: 'boleto.pdf' });
    expect(result.content[0].text).to.contain(payload.download_url);
    const last = result.content[result.content.length - 1];
    expect(last).to.deep.equal({ type: 'resource_link', uri: `kobana://finance/attachments/${id}`, name: 'boleto.pdf', mimeType: 'application/pdf', size: payload.size });
    expect(result.content.filter((block: { type: string }) => block.type === 'resource_link')).to.have.length(1);
  });

  it('2025-06-18 gets the resource_link too; 2025-03-26 gets the URL in the text only', async () => {
    const id = await upload(MATRIZ);
    const typed = await callTool(anaMcp, 'finance_attachments_download', { workspace_id: MATRIZ, id }, '2025-06-18');
    expect(typed.result.content.at(-1)).to.include({ type: 'resource_link', uri: `kobana://finance/attachments/${id}` });
    const plain = await callTool(anaMcp, 'finance_attachments_download', { workspace_id: MATRIZ, id }, '2025-03-26');
    expect(plain.result).to.not.have.property('structuredContent');
    expect(plain.result.content.map((block: { type: string }) => block.type)).to.not.include('resource_link');
    expect(plain.payload.download_url).to.match(new RegExp(`^${app.url}/downloads/attachments/${id}\\?link=`));
  });

  it('opens with no token as an attachment with the listed headers, again and again until it expires, each use in the activity', async () => {
    const pdf = buildSmallPdf('opened in a browser');
    const id = await upload(MATRIZ, pdf, 'nota fiscal ção.pdf');
    const url = await linkFor(anaMcp, MATRIZ, id);
    const first = await open(url);
    expect(first.status, first.bytes.toString('utf8')).to.equal(200);
    expect(first.bytes.equals(pdf)).to.equal(true);
    expect(first.headers.get('content-type')).to.equal('application/pdf');
    // A PDF too: the link never shows a file in place (REST shows a PDF inline).
    expect(first.headers.get('content-disposition')).to.equal(`attachment; filename="nota fiscal cao.pdf"; filename*=UTF-8''nota%20fiscal%20%C3%A7%C3%A3o.pdf`);
    expect(pickLinkHeaders(first.headers)).to.deep.equal(LINK_HEADERS);

    clock.advance(5 * 60 * 1000 - 1000);
    expect((await open(url)).status).to.equal(200);
    const uses = await linkUses(id);
    expect(uses).to.have.length(2);
    for (const use of uses) expect(use).to.include({ channel: 'link', operation: 'attachments.download', resource: 'attachments', person_id: DEMO.persons.ana });

    clock.advance(1000);
    await expectRefused(url);
    expect(await linkUses(id)).to.have.length(2);
  });

  it('refuses a tampered link, a link without its token, and a link used for another attachment', async () => {
    const id = await upload(MATRIZ);
    const other = await upload(MATRIZ);
    const url = await linkFor(anaMcp, MATRIZ, id);
    const signature = url.slice(url.lastIndexOf('.') + 1);
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    await expectRefused(`${url.slice(0, url.lastIndexOf('.') + 1)}${flipped}`);
    await expectRefused(url.slice(0, url.indexOf('?')));
    await expectRefused(url.replace(`/attachments/${id}?`, `/attachments/${other}?`));
    expect((await open(url)).status).to.equal(200);
  });

  it('refuses a link bound to another workspace than the attachment\'s (foreign)', async () => {
    const filialId = await upload(FILIAL);
    // Made for the person and the attachment, but bound to Matriz: the attachment is not found there.
    const foreign = await app.services.downloadLinks.issue({
      personId: DEMO.persons.ana, organizationId: DEMO.organizationId, workspaceId: MATRIZ, attachmentId: filialId, tokenType: 'personal',
    });
    await expectRefused(foreign.url);
    expect((await open(await linkFor(anaMcp, FILIAL, filialId))).status).to.equal(200);
  });

  describe('revoked with the person\'s access', function () {
    let brunoMcp: string;
    const brunoPermissions = (permissions: readonly string[]) => app.services.db.updateTable('memberships')
      .set({ permissions: JSON.stringify(permissions) }).where('id', '=', BRUNO_MEMBERSHIP_ID).execute();

    beforeEach(async () => {
      await brunoPermissions(['payables.view', 'receivables.view', 'attachments.view']);
      await app.services.db.updateTable('memberships').set({ status: 'active' }).where('id', '=', BRUNO_MEMBERSHIP_ID).execute();
      brunoMcp = await app.mintToken({ person: DEMO.emails.bruno, scope: 'finance.all', type: 'personal', aud: 'mcp' });
    });
    after(async () => {
      await brunoPermissions(['payables.view', 'receivables.view']);
      await app.services.db.updateTable('memberships').set({ status: 'active' }).where('id', '=', BRUNO_MEMBERSHIP_ID).execute();
    });

    async function openedThenRevoked(revoke: () => Promise<unknown>): Promise<void> {
      const url = await linkFor(brunoMcp, MATRIZ, await upload(MATRIZ));
      expect((await open(url)).status).to.equal(200);
      await revoke();
      await expectRefused(url);
    }

    it('membership deactivated', () => openedThenRevoked(() =>
      app.services.db.updateTable('memberships').set({ status: 'inactive' }).where('id', '=', BRUNO_MEMBERSHIP_ID).execute()));

    it('attachments.view removed', () => openedThenRevoked(() => brunoPermissions(['payables.view', 'receivables.view'])));

    it('workspace grant removed', async () => {
      await openedThenRevoked(() => app.services.db.deleteFrom('membership_workspaces')
        .where('membership_id', '=', BRUNO_MEMBERSHIP_ID).where('workspace_id', '=', MATRIZ).execute());
      await app.services.db.insertInto('membership_workspaces').values({ membership_id: BRUNO_MEMBERSHIP_ID, workspace_id: MATRIZ }).execute();
    });

    it('attachment deleted', async () => {
      const id = await upload(MATRIZ);
      const url = await linkFor(brunoMcp, MATRIZ, id);
      expect((await open(url)).status).to.equal(200);
      expect((await callRest(app.url, anaApi, MATRIZ, 'DELETE', `/v1/attachments/${id}`)).status).to.equal(204);
      await expectRefused(url);
    });
  });

  it('REST stays for programs, and without a workspace answers workspace_required worded for REST', async () => {
    const id = await upload(MATRIZ);
    const response = await fetch(`${app.url}/v1/attachments/${id}/download`, { headers: { authorization: `Bearer ${anaApi}` } });
    expect(response.status).to.equal(400);
    const body = await response.json() as { error: { code: string; message: string; details: { workspaces: { id: string }[] } } };
    expect(body.error.code).to.equal('workspace_required');
    expect(body.error.message).to.contain('X-Workspace-Id').and.contain('workspace_id query parameter').and.not.contain('finance_');
    expect(body.error.details.workspaces.map((w) => w.id)).to.have.members([MATRIZ, FILIAL]);
    const bytes = await callRest(app.url, anaApi, MATRIZ, 'GET', `/v1/attachments/${id}/download`);
    expect(bytes.status).to.equal(200);
  });
});
