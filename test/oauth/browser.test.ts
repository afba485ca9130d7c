/**
 * Issue 19, "Done when" 2: a real browser (Debian Chromium, driven by playwright-core) signs in on
 * the embedded Account's page, sees the consent page for what SDK v2 asks (`finance.all
 * finance.all.write`: at most six consistent lines, issue 27 item 8; kept as a screenshot in
 * `test-artifacts/oauth-consent.png`, a CI artefact), approves, and the client's callback
 * receives a code that buys a working token. Chromium is required: `.ci/run` installs it
 * (`apt-get install chromium`); CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { DEMO_PASSWORD } from '../../src/oauth/index.js';
import { FLOW_REDIRECT_URI, buildAuthorizationUrl, exchangeCode, registerClient } from './support/flow.js';
import { expectConsistentLines } from './support/consent-page.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve('test-artifacts');

describe('OAuth sign-in and consent in Chromium', function () {
  let app: TestApp;
  let browser: Browser;
  before(async function () {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is required at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH).`);
    app = await startTestApp();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
    });
  });
  after(async () => {
    await browser?.close();
    await app?.close();
  });

  it('signs in, shows the consent page, approves, and the client gets a working token', async () => {
    const { client_id: clientId } = await registerClient(app.url);
    const verifier = randomBytes(32).toString('base64url');
    const url = buildAuthorizationUrl(app.url, clientId, {
      challenge: createHash('sha256').update(verifier).digest('base64url'),
      // What SDK v2 asks for (the 401 challenge's scopes).
      scope: 'finance.all finance.all.write offline_access',
    });
    const context = await browser.newContext();
    let callback: URL | undefined;
    // The client's loopback redirect URI: answered by the test, as a native client's listener would.
    await context.route(`${FLOW_REDIRECT_URI}**`, async (route) => {
      callback = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: 'text/html', body: '<p>Signed in; you can close this window.</p>' });
    });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(url.href);
    expect(await page.title()).to.include('Sign in');
    await page.getByLabel('Email').fill('ana@demo.test');
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).to.include('Wrong email or password');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Authorize access' }).waitFor();
    expect(await page.textContent('main')).to.include('Flow test client').and.include('Ana Souza').and.include('Matriz');
    // The statement of access as rendered: at most six lines, none contradicting another, and no other list on the page.
    const lines = (await page.locator('ul.access > li').allInnerTexts()).map((line) => line.trim());
    expectConsistentLines(lines);
    expect(await page.locator('li').count()).to.equal(lines.length);
    expect(await page.getByLabel('Also allow these changes').isChecked()).to.equal(false);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'oauth-consent.png'), fullPage: true });
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(`${FLOW_REDIRECT_URI}**`);
    await context.close();

    expect(callback?.searchParams.get('iss')).to.equal(app.url);
    const token = await exchangeCode(app.url, clientId, { callback: callback as URL, verifier, pages: [] });
    // The write scope was requested but its box left unticked: read only.
    expect(token.scope).to.equal('finance.all');
    expect(fs.statSync(path.join(ARTIFACTS, 'oauth-consent.png')).size).to.be.greaterThan(1000);
  });
});
