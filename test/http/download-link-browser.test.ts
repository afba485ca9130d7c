/**
 * Issue 27, "Done when" 4: a real browser (Debian Chromium, driven by playwright-core) opens the
 * download link an agent got from `finance_attachments_download`, with no token, and gets the
 * file as a download; an uploaded HTML file (stored as CSV or XML, the types the API takes) is
 * downloaded, never rendered, its script never run; expired (the app's clock moved), foreign and
 * revoked links are refused with the one sentence. Chromium is required: `.ci/run` installs it
 * (`apt-get install chromium`); CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { DEMO, startTestApp, type TestApp } from '../helpers/index.js';
import { createManualClock, type ManualClock } from '../helpers/clock.js';
import { modernRequest, postMcp } from '../mcp/support/wire.js';
import { buildSmallPdf, callRest } from '../api/operations/attachments-fixtures.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const MATRIZ = DEMO.workspaces.matriz;
const REFUSAL = 'This download link cannot be used: it is not valid, it has expired, or you can no longer see this file. Ask for a new link.';

/** An HTML page whose script would set the title and write a marker, were it ever run. */
const HTML_PAGE = '<!doctype html><html><head><title>rendered</title></head><body><h1 id="marker">rendered</h1>'
  + '<script>document.title = "script ran"; document.body.dataset.ran = "yes";</script></body></html>\n';
const XHTML_PAGE = '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>rendered</title></head>'
  + '<body><h1>rendered</h1><script>document.title = "script ran";</script></body></html>\n';

describe('download links in Chromium', function () {
  this.timeout(120_000);
  let app: TestApp;
  let clock: ManualClock;
  let context: BrowserContext;
  let profile: string;
  let mcpToken: string;
  let apiToken: string;
  let nextId = 1;

  async function upload(bytes: Buffer, fileName: string, contentType: string): Promise<string> {
    const reply = await callRest(app.url, apiToken, MATRIZ, 'POST', '/v1/attachments',
      { file_name: fileName, content_type: contentType, content_base64: bytes.toString('base64') });
    expect(reply.status, JSON.stringify(reply.json)).to.equal(201);
    return reply.json.id as string;
  }

  /** What the agent hands its user: the tool's download_url. */
  async function linkFor(id: string): Promise<string> {
    const { body, headers } = modernRequest(nextId++, 'tools/call', { name: 'finance_attachments_download', arguments: { workspace_id: MATRIZ, id } });
    const reply = await postMcp(`${app.url}/mcp`, body, { ...headers, authorization: `Bearer ${mcpToken}` });
    const url = (reply.json as { result: { structuredContent: { download_url: string } } }).result.structuredContent.download_url;
    expect(url.startsWith(`${app.url}/downloads/attachments/${id}?link=`), url).to.equal(true);
    return url;
  }

  /** Opens the link in a fresh tab as a person would (typed or clicked); resolves with the download. */
  async function download(url: string): Promise<{ page: Page; fileName: string; bytes: Buffer }> {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const started = page.waitForEvent('download');
    // A navigation that becomes a download is reported as aborted: the download event is the answer.
    await page.goto(url).catch((error: Error) => {
      if (!/Download is starting|net::ERR_ABORTED/.test(error.message)) throw error;
    });
    const done = await started;
    const file = await done.path();
    return { page, fileName: done.suggestedFilename(), bytes: fs.readFileSync(file) };
  }

  async function expectRefused(url: string): Promise<void> {
    const page = await context.newPage();
    const response = await page.goto(url);
    expect(response?.status()).to.equal(403);
    expect(await page.textContent('body')).to.equal(REFUSAL);
    await page.close();
  }

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is required at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH).`);
    clock = createManualClock(Date.parse('2026-11-20T12:00:00.000Z'));
    app = await startTestApp({ clock });
    mcpToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all', type: 'personal', aud: 'mcp' });
    apiToken = await app.mintToken({ person: DEMO.emails.ana, scope: 'finance.all.write', type: 'personal', aud: 'api' });
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'kobana-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      acceptDownloads: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  after(async () => {
    await context?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
    await app?.close();
  });

  it('opens a link with no token and gets the file as a download', async () => {
    const pdf = buildSmallPdf('opened in Chromium');
    const url = await linkFor(await upload(pdf, 'boleto março.pdf', 'application/pdf'));
    const got = await download(url);
    expect(got.fileName).to.equal('boleto março.pdf');
    expect(got.bytes.equals(pdf)).to.equal(true);
    // The tab never showed the file: it stayed blank.
    expect(got.page.url()).to.equal('about:blank');
    await got.page.close();
  });

  it('downloads an uploaded HTML file instead of rendering it (as CSV and as XHTML)', async () => {
    const cases = [
      { bytes: Buffer.from(HTML_PAGE), fileName: 'relatorio.html', contentType: 'text/csv' },
      { bytes: Buffer.from(XHTML_PAGE), fileName: 'nota.xml', contentType: 'application/xml' },
    ];
    expect(cases).to.have.length(2);
    for (const { bytes, fileName, contentType } of cases) {
      const got = await download(await linkFor(await upload(bytes, fileName, contentType)));
      expect(got.fileName).to.equal(fileName);
      expect(got.bytes.equals(bytes)).to.equal(true);
      expect(got.page.url()).to.equal('about:blank');
      expect(await got.page.title()).to.equal('');
      expect(await got.page.content()).to.not.contain('rendered');
      await got.page.close();
    }
  });

  it('refuses an expired, a foreign and a revoked link', async () => {
    const id = await upload(buildSmallPdf('refusals'), 'recibo.pdf', 'application/pdf');
    const other = await upload(buildSmallPdf('the other one'), 'outro.pdf', 'application/pdf');
    const url = await linkFor(id);
    // Foreign: the link of one attachment used for another.
    await expectRefused(url.replace(`/attachments/${id}?`, `/attachments/${other}?`));
    const otherUrl = await linkFor(other);
    // Revoked: the attachment is gone.
    expect((await callRest(app.url, apiToken, MATRIZ, 'DELETE', `/v1/attachments/${other}`)).status).to.equal(204);
    await expectRefused(otherUrl);
    // Expired: five minutes later (the app's clock), the same link that worked is refused.
    (await download(url)).page.close();
    clock.advance(5 * 60 * 1000);
    await expectRefused(url);
  });
});
