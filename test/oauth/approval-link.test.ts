/**
 * Issue 19, "Done when" 3: an SDK v1 client (2025-06-18, no form elicitation) cancels a payable
 * through the approval link of `confirmation_required`: the test opens the link as the signed-in
 * person, approves, the agent retries and the payable is cancelled exactly once. Replays, another
 * person's approval, changed arguments and expired approvals change nothing. Issue 25, L4: a used
 * or stale approval never blocks a fresh link, and Deny leaves the agent's next try refused with
 * USER_DECLINED.
 */
import { expect } from 'chai';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEMO } from '../../src/seed/ids.js';
import { DEMO_PASSWORD } from '../../src/oauth/index.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { pickPendingPayable, readPayableStatus } from '../interop/support.js';
import { connectionRetryingFetch } from '../helpers/connection-retry.js';

interface ToolError { error: { code: string; message: string; details?: { approval_url?: string; expires_at?: string; message?: string } } }

describe('approval links for clients that cannot confirm (SDK v1, 2025-06-18)', function () {
  let app: TestApp;
  let client: LegacyClient;
  const used = new Set<string>();
  before(async () => {
    app = await startTestApp();
    const token = await app.mintToken({ person: 'ana@demo.test', scope: 'finance.payables.write' });
    client = new LegacyClient({ name: 'kobana-approval-v1', version: '1.0.0' });
    await client.connect(new LegacyTransport(new URL(`${app.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}`, 'x-workspace-id': DEMO.workspaces.matriz } },
      fetch: connectionRetryingFetch(),
    }));
  });
  after(async () => {
    await client?.close();
    await app?.close();
  });

  async function cancel(id: string): Promise<{ ok: boolean; body: unknown }> {
    const result = await client.callTool({ name: 'finance_payables_cancel', arguments: { id } }) as { isError?: boolean; content: { text: string }[] };
    return { ok: result.isError !== true, body: JSON.parse(result.content[0]?.text ?? 'null') };
  }

  async function askForLink(id: string): Promise<URL> {
    const { ok, body } = await cancel(id);
    expect(ok).to.equal(false);
    const { error } = body as ToolError;
    expect(error.code).to.equal('confirmation_required');
    expect(error.message).to.include('approval_url');
    return new URL(error.details?.approval_url as string);
  }

  /** Opens the link and signs in there as `email`: the answer's status and text. */
  async function approveAs(link: URL, email: string): Promise<{ status: number; text: string }> {
    const page = await fetch(link);
    const html = await page.text();
    const csrf = (/name="csrf" value="([^"]+)"/.exec(html) as RegExpExecArray)[1] as string;
    const answer = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.url },
      body: new URLSearchParams({ csrf, email, password: DEMO_PASSWORD }).toString(),
    });
    return { status: answer.status, text: await answer.text() };
  }

  it('the person approves through the link, the retry cancels once, a replay changes nothing', async () => {
    const target = await pickPendingPayable(app.services.db, used);
    const link = await askForLink(target);
    expect(link.origin).to.equal(app.url);
    const page = await (await fetch(link)).text();
    expect(page).to.match(/Cancel payable/i);
    expect(await readPayableStatus(app.services.db, target)).to.equal('pending');
    // Holding the token is not enough: the page does nothing without the person's own sign-in.
    const approved = await approveAs(link, 'ana@demo.test');
    expect(approved.status, approved.text).to.equal(200);
    expect(approved.text).to.include('Approved');
    const first = await cancel(target);
    expect(first.ok, JSON.stringify(first.body)).to.equal(true);
    expect(first.body).to.include({ id: target, status: 'cancelled' });
    // A used approval serves nothing more (docs/security.md#approval-links): its page says so. The
    // retry on the payable, now cancelled, is refused with the operation's own words before anyone
    // is asked again (no new link): nobody is asked to approve what cannot run.
    expect(await (await fetch(link)).text()).to.include('This approval has been used');
    const replay = await cancel(target);
    expect(replay.ok).to.equal(false);
    expect((replay.body as ToolError).error.code).to.equal('UNPROCESSABLE_ENTITY');
    expect((replay.body as ToolError).error.message).to.equal('Only a pending payable can be cancelled.');
    expect((replay.body as ToolError).error.details?.approval_url).to.equal(undefined);
    const activity = await app.services.db.selectFrom('activity').select('id')
      .where('workspace_id', '=', DEMO.workspaces.matriz).where('record_id', '=', target).where('operation', 'like', '%cancel%').execute();
    expect(activity).to.have.length(1);
  });

  it('another person cannot approve, and an approval serves only its own arguments', async () => {
    const target = await pickPendingPayable(app.services.db, used);
    const other = await pickPendingPayable(app.services.db, used);
    const link = await askForLink(target);
    const bruno = await approveAs(link, 'bruno@demo.test');
    expect(bruno.status).to.equal(403);
    expect(bruno.text).to.include('someone else');
    expect((await cancel(target)).ok).to.equal(false);
    expect(await readPayableStatus(app.services.db, target)).to.equal('pending');

    expect((await approveAs(link, 'ana@demo.test')).status).to.equal(200);
    const changed = await cancel(other);
    expect(changed.ok).to.equal(false);
    expect((changed.body as ToolError).error.code).to.equal('confirmation_required');
    expect(await readPayableStatus(app.services.db, other)).to.equal('pending');
  });

  it('an expired approval runs nothing', async () => {
    const target = await pickPendingPayable(app.services.db, used);
    const link = await askForLink(target);
    expect((await approveAs(link, 'ana@demo.test')).status).to.equal(200);
    const id = link.pathname.split('/').pop() as string;
    await app.services.db.updateTable('oauth_records').set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('model', '=', 'Approval').where('id', '=', id).execute();
    const late = await cancel(target);
    expect(late.ok).to.equal(false);
    expect((late.body as ToolError).error.code).to.equal('confirmation_required');
    expect(await readPayableStatus(app.services.db, target)).to.equal('pending');
    expect((await fetch(link)).status).to.equal(404);
  });

  it('an approval of a record that changed since does not block a fresh link (L4)', async () => {
    const target = await pickPendingPayable(app.services.db, used);
    const stale = await askForLink(target);
    expect((await approveAs(stale, 'ana@demo.test')).status).to.equal(200);
    // Someone else edits the payable after the approval: the approval is for a version that is gone.
    await app.services.db.updateTable('titles').set((eb) => ({ version: eb('version', '+', 1) })).where('workspace_id', '=', DEMO.workspaces.matriz).where('id', '=', target).execute();
    const retry = await cancel(target);
    expect(retry.ok).to.equal(false);
    const { error } = retry.body as ToolError;
    expect(error.code).to.equal('confirmation_required');
    const fresh = new URL(error.details?.approval_url as string);
    expect(fresh.href).to.not.equal(stale.href);
    expect(await readPayableStatus(app.services.db, target)).to.equal('pending');
    expect((await approveAs(fresh, 'ana@demo.test')).status).to.equal(200);
    const done = await cancel(target);
    expect(done.ok, JSON.stringify(done.body)).to.equal(true);
    expect(await readPayableStatus(app.services.db, target)).to.equal('cancelled');
  });

  it('Deny on the approval page: the agent\'s next try is refused with USER_DECLINED, and nothing changes (L4)', async () => {
    const target = await pickPendingPayable(app.services.db, used);
    const link = await askForLink(target);
    const html = await (await fetch(link)).text();
    expect(html).to.match(/<button[^>]*name="decision" value="deny"[^>]*>Deny<\/button>/);
    const csrf = (/name="csrf" value="([^"]+)"/.exec(html) as RegExpExecArray)[1] as string;
    const denied = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.url },
      body: new URLSearchParams({ csrf, decision: 'deny' }).toString(),
    });
    expect(denied.status).to.equal(200);
    expect(await denied.text()).to.include('Denied');
    // A denied link cannot be approved afterwards.
    expect(await (await fetch(link)).text()).to.include('Denied');
    const late = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.url },
      body: new URLSearchParams({ csrf, email: 'ana@demo.test', password: DEMO_PASSWORD }).toString(),
    });
    expect(await late.text()).to.include('Denied').and.not.include('Approved');
    const refused = await cancel(target);
    expect(refused.ok).to.equal(false);
    expect((refused.body as ToolError).error.code).to.equal('USER_DECLINED');
    expect(await readPayableStatus(app.services.db, target)).to.equal('pending');
    // The denial is delivered once: asking again later is a fresh question.
    expect((await askForLink(target)).href).to.not.equal(link.href);
    expect(await readPayableStatus(app.services.db, target)).to.equal('pending');
  });

  // Review of issue 25: a denial is the person's last word on the call; an approval they gave an
  // earlier link of the same call does not run it on the try after the USER_DECLINED.
  it('approve an earlier link, then deny a later one: the call is declined, and the earlier approval never runs it', async () => {
    const target = await pickPendingPayable(app.services.db, used);
    const first = await askForLink(target);
    const second = await askForLink(target);
    expect(second.href).to.not.equal(first.href);
    expect((await approveAs(first, 'ana@demo.test')).text).to.include('Approved');
    const html = await (await fetch(second)).text();
    const csrf = (/name="csrf" value="([^"]+)"/.exec(html) as RegExpExecArray)[1] as string;
    const denied = await fetch(second, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: app.url },
      body: new URLSearchParams({ csrf, decision: 'deny' }).toString(),
    });
    expect(await denied.text()).to.include('Denied');
    const refused = await cancel(target);
    expect((refused.body as ToolError).error.code).to.equal('USER_DECLINED');
    const next = await cancel(target);
    expect(next.ok).to.equal(false);
    expect((next.body as ToolError).error.code).to.equal('confirmation_required');
    expect(await readPayableStatus(app.services.db, target)).to.equal('pending');
  });
});
