/**
 * Issue 29, item 3, in a real browser (Debian Chromium, driven by playwright-core): the second
 * person opens a money move's `approval_url`, signs in, reads the request and presses Approve; the
 * move runs once. What a browser adds to test/oauth/approval-request-page.test.ts: its own Origin
 * and Referrer on the form posts, the pages' CSP (no script, a nonce'd style sheet) and real
 * labels and buttons. The request's page is kept as `test-artifacts/approval-request.png` (a CI
 * artefact). Chromium is required: `.ci/run` installs it; CHROMIUM_PATH overrides /usr/bin/chromium.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { chromium, type Browser } from 'playwright-core';
import { DEMO_PASSWORD } from '../../src/oauth/index.js';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { restoreDemoPermissions, setPermissions } from '../api/money/support.js';
import { DEMO } from '../helpers/index.js';
import { countSettlements, pickPendingPayable, readTitle } from '../confirmation/support.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = path.resolve('test-artifacts');
const WS = DEMO.workspaces.matriz;
const ANA_SCOPE = 'finance.all.write finance.security.write finance.approvals.write';

describe('the approval-request page in Chromium', function () {
  this.timeout(60_000);
  let api: RestApp;
  let browser: Browser;
  const setBruno = (permissions: readonly string[]) => setPermissions(api.app.services.db, DEMO.persons.bruno, permissions);
  const setThreshold = async (threshold: string | null) => {
    const res = await api.call('PATCH', '/v1/security-settings', {
      workspace: WS, token: await api.token('ana', ANA_SCOPE), body: { money_controls: { approvals: { thresholds: { api: threshold, mcp: threshold } } } },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  };

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is required at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH).`);
    api = await startRestApp();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
    });
    await setBruno(['payables.view', 'payables.settle', 'approvals.view']);
    await setThreshold('100.00');
  });
  after(async () => {
    if (api) {
      await setThreshold(null);
      await restoreDemoPermissions(api.app.services.db, DEMO.persons.bruno);
    }
    await browser?.close();
    await api?.close();
  });

  it('signs in, shows the request, approves it, and the payable is settled once', async () => {
    const payableId = await pickPendingPayable(api.app.services.db, new Set());
    const asked = await api.call('POST', `/v1/payables/${payableId}/settle`, {
      workspace: WS, token: await api.token('bruno', 'finance.payables.write finance.money.write'), headers: { 'idempotency-key': randomUUID() }, body: { payment_date: '2026-06-10' },
    });
    expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(asked.body.approval_url);
    expect(await page.textContent('body')).to.not.include(asked.body.description);
    await page.getByLabel('Email').fill('ana@demo.test');
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    expect(await page.textContent('body')).to.include(asked.body.description).and.include('Bruno Lima');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'approval-request.png'), fullPage: true });
    expect(await countSettlements(api.app.services.db, payableId)).to.equal(0);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Approved' }).waitFor();
    expect(await countSettlements(api.app.services.db, payableId)).to.equal(1);
    expect((await readTitle(api.app.services.db, payableId))?.status).to.equal('paid');
    await context.close();
  });
});
