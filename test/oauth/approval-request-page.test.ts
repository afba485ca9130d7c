/**
 * Issue 29, item 3: "Another person — never the requester — who holds `approvals.approve` and the
 * permission … the move itself requires approves or rejects it over REST … or on an approval page
 * of the embedded Account". The request's `approval_url` opens a page that shows nothing before
 * the person signs in; signed in, it shows the request as approvals.get answers that person, and
 * Approve / Reject only to someone who may decide it. Approving there runs the move once (a form
 * posted twice answers the first decision), as the requester's, recorded as decided on `web`.
 * SQLite and, with DATABASE_URL, PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/schema.js';
import { DEMO_PASSWORD } from '../../src/oauth/index.js';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { restoreDemoPermissions, setPermissions } from '../api/money/support.js';
import { DEMO } from '../helpers/index.js';
import { createManualClock, type ManualClock } from '../helpers/clock.js';
import { countSettlements, pickPendingPayable, readTitle } from '../confirmation/support.js';

const WS = DEMO.workspaces.matriz;
const START = Date.parse('2026-06-10T12:00:00.000Z');
const ANA_SCOPE = 'finance.all.write finance.security.write finance.approvals.write';
const BRUNO_SCOPE = 'finance.payables.write finance.money.write finance.approvals.write';

const setBrunoPermissions = (db: Kysely<Database>, permissions: readonly string[]) => setPermissions(db, DEMO.persons.bruno, permissions);

interface PageAnswer { readonly status: number; readonly html: string }

const field = (html: string, name: string): string | undefined => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

describe('the approval-request page of the embedded Account', function () {
  this.timeout(60_000);
  let api: RestApp;
  let clock: ManualClock;
  const used = new Set<string>();

  before(async () => {
    clock = createManualClock(START);
    api = await startRestApp({ clock });
  });
  after(async () => {
    if (api) await restoreDemoPermissions(api.app.services.db, DEMO.persons.bruno);
    await api?.close();
  });
  beforeEach(async () => {
    clock.set(START);
    await setBrunoPermissions(api.app.services.db, ['payables.view', 'payables.settle', 'approvals.view']);
    await setControls({ approvals: { thresholds: { api: '100.00', mcp: '100.00' } } });
  });
  afterEach(async () => {
    await setControls({ approvals: { thresholds: { api: null, mcp: null } } });
  });

  const ana = () => api.token('ana', ANA_SCOPE);

  async function setControls(moneyControls: unknown): Promise<void> {
    const res = await api.call('PATCH', '/v1/security-settings', { workspace: WS, token: await ana(), body: { money_controls: moneyControls } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  }

  /** Bruno asks to settle a pending payable over the threshold: the request, and the ledger before. */
  async function brunoAsks(): Promise<{ id: string; url: URL; payableId: string; description: string }> {
    const payableId = await pickPendingPayable(api.app.services.db, used);
    const res = await api.call('POST', `/v1/payables/${payableId}/settle`, {
      workspace: WS, token: await api.token('bruno', BRUNO_SCOPE), headers: { 'idempotency-key': randomUUID() }, body: { payment_date: '2026-06-10' },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    expect(res.body.approval_url, 'approval_url').to.be.a('string');
    return { id: res.body.id, url: new URL(res.body.approval_url), payableId, description: res.body.description };
  }

  async function open(url: URL): Promise<PageAnswer> {
    const res = await fetch(url);
    return { status: res.status, html: await res.text() };
  }

  async function post(url: URL, fields: Record<string, string>, origin = api.app.url): Promise<PageAnswer> {
    const res = await fetch(new URL(url.pathname, url), {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: new URLSearchParams(fields).toString(),
    });
    return { status: res.status, html: await res.text() };
  }

  /** Opens the page and signs in as `email`: the page the review answers. */
  async function review(url: URL, email: string, password = DEMO_PASSWORD): Promise<PageAnswer> {
    const page = await open(url);
    expect(page.status, page.html).to.equal(200);
    return post(url, { csrf: field(page.html, 'csrf') as string, workspace_id: WS, step: 'review', email, password });
  }

  /** Presses a button of a review page. */
  function press(url: URL, reviewed: PageAnswer, decision: 'approve' | 'reject', extra: Record<string, string> = {}): Promise<PageAnswer> {
    return post(url, { csrf: field(reviewed.html, 'csrf') as string, workspace_id: WS, ticket: field(reviewed.html, 'ticket') as string, decision, ...extra });
  }

  const statusOf = async (id: string): Promise<Record<string, unknown>> =>
    (await api.call('GET', `/v1/approvals/${id}`, { workspace: WS, token: await ana() })).body;

  it('shows nothing of the request before sign-in; the link names its workspace on this Account', async () => {
    const request = await brunoAsks();
    expect(request.url.origin).to.equal(api.app.url);
    expect(request.url.pathname).to.equal(`/account/approval-requests/${request.id}`);
    expect(request.url.searchParams.get('workspace_id')).to.equal(WS);
    const page = await open(request.url);
    expect(page.status).to.equal(200);
    expect(page.html).to.include('Sign in');
    expect(page.html).to.not.include('R$');
    expect(page.html).to.not.include(request.description.slice(0, 20));
    const wrong = await review(request.url, 'ana@demo.test', 'not-the-password');
    expect(wrong.status).to.equal(401);
    expect(wrong.html).to.not.include('R$');
  });

  it('a person who may decide sees the request and approves it: the move runs once, as the requester\'s, decided on web; posting twice changes nothing', async () => {
    const request = await brunoAsks();
    const before = await readTitle(api.app.services.db, request.payableId);
    const reviewed = await review(request.url, 'ana@demo.test');
    expect(reviewed.status, reviewed.html).to.equal(200);
    expect(reviewed.html).to.include('Bruno Lima');
    expect(reviewed.html).to.include('value="approve"');
    expect(await readTitle(api.app.services.db, request.payableId)).to.deep.equal(before);
    const approved = await press(request.url, reviewed, 'approve');
    expect(approved.status, approved.html).to.equal(200);
    expect(approved.html).to.include('<h1>Approved</h1>');
    expect(await countSettlements(api.app.services.db, request.payableId)).to.equal(1);
    expect((await readTitle(api.app.services.db, request.payableId))?.status).to.equal('paid');
    expect(await statusOf(request.id)).to.include({ status: 'approved', decided_by: DEMO.persons.ana, decided_via: 'web', requested_by: DEMO.persons.bruno });
    const twice = await press(request.url, reviewed, 'approve');
    expect(twice.status, twice.html).to.equal(200);
    expect(await countSettlements(api.app.services.db, request.payableId)).to.equal(1);
    // Read again after the decision, the page says what became of it and offers no button.
    const after = await review(request.url, 'ana@demo.test');
    expect(after.html).to.include('Approved');
    expect(after.html).to.not.include('value="approve"');
  });

  it('a double click (two posts of Approve at once) answers Approved to both, and the move runs once', async () => {
    const request = await brunoAsks();
    const reviewed = await review(request.url, 'ana@demo.test');
    const answers = await Promise.all([press(request.url, reviewed, 'approve'), press(request.url, reviewed, 'approve'), press(request.url, reviewed, 'approve')]);
    expect(answers.map((a) => a.status), answers.map((a) => a.html.slice(-300)).join('\n')).to.deep.equal([200, 200, 200]);
    expect(answers.every((a) => a.html.includes('<h1>Approved</h1>'))).to.equal(true);
    expect(await countSettlements(api.app.services.db, request.payableId)).to.equal(1);
  });

  it('rejects with the reason the person typed; the ledger is untouched', async () => {
    const request = await brunoAsks();
    const before = await readTitle(api.app.services.db, request.payableId);
    const reviewed = await review(request.url, 'ana@demo.test');
    const rejected = await press(request.url, reviewed, 'reject', { reason: 'Not this month' });
    expect(rejected.status, rejected.html).to.equal(200);
    expect(rejected.html).to.include('<h1>Rejected</h1>');
    expect(await statusOf(request.id)).to.include({ status: 'rejected', reason: 'Not this month', decided_via: 'web' });
    expect(await readTitle(api.app.services.db, request.payableId)).to.deep.equal(before);
    expect(await countSettlements(api.app.services.db, request.payableId)).to.equal(0);
  });

  it('the requester sees their request but no button; a person who may not decide it sees nothing', async () => {
    const request = await brunoAsks();
    const own = await review(request.url, 'bruno@demo.test');
    expect(own.status, own.html).to.equal(200);
    expect(own.html).to.include('another person must approve');
    expect(field(own.html, 'ticket')).to.equal(undefined);
    // Bruno may approve requests, but not settle payables: the request is not shown to him.
    const anas = await (async () => {
      const payableId = await pickPendingPayable(api.app.services.db, used);
      const res = await api.call('POST', `/v1/payables/${payableId}/settle`, { workspace: WS, token: await ana(), headers: { 'idempotency-key': randomUUID() }, body: { payment_date: '2026-06-10' } });
      expect(res.status, JSON.stringify(res.body)).to.equal(202);
      return { url: new URL(res.body.approval_url), payableId };
    })();
    await setBrunoPermissions(api.app.services.db, ['payables.view', 'approvals.view', 'approvals.approve']);
    const lacking = await review(anas.url, 'bruno@demo.test');
    expect(lacking.status).to.equal(404);
    expect(lacking.html).to.not.include('R$');
    // The inactive member signs in to nothing here either.
    expect((await review(anas.url, 'carla@demo.test')).status).to.not.equal(200);
    expect(await countSettlements(api.app.services.db, anas.payableId)).to.equal(0);
  });

  it('refuses a forged, expired or other request\'s ticket, a post from another origin and a missing CSRF token', async () => {
    const request = await brunoAsks();
    const other = await brunoAsks();
    const reviewed = await review(request.url, 'ana@demo.test');
    const ticket = field(reviewed.html, 'ticket') as string;
    const csrf = field(reviewed.html, 'csrf') as string;
    const [person, organization, expires, mac] = ticket.split('.') as [string, string, string, string];
    const attempts: Array<{ fields: Record<string, string>; origin?: string }> = [
      { fields: { csrf, workspace_id: WS, decision: 'approve', ticket: [DEMO.persons.bruno, organization, expires, mac].join('.') } },
      { fields: { csrf, workspace_id: WS, decision: 'approve', ticket: [person, organization, String(Number(expires) + 1), mac].join('.') } },
      { fields: { csrf, workspace_id: WS, decision: 'approve', ticket: '' } },
      { fields: { workspace_id: WS, decision: 'approve', ticket } },
      { fields: { csrf, workspace_id: WS, decision: 'approve', ticket }, origin: 'https://evil.example' },
    ];
    expect(attempts).to.not.be.empty;
    for (const attempt of attempts) {
      const answer = await post(request.url, attempt.fields, attempt.origin);
      expect(answer.status, JSON.stringify(attempt)).to.equal(403);
    }
    // The ticket of one request decides no other (the CSRF of the other page with it, too).
    const otherPage = await open(other.url);
    const crossed = await post(other.url, { csrf: field(otherPage.html, 'csrf') as string, workspace_id: WS, decision: 'approve', ticket });
    expect(crossed.status).to.equal(403);
    // Ten minutes after the sign-in, the buttons no longer work.
    clock.set(START + 10 * 60 * 1000 + 1);
    expect((await press(request.url, reviewed, 'approve')).status).to.equal(403);
    for (const id of [request.id, other.id]) expect(await statusOf(id)).to.include({ status: 'pending_approval' });
    expect(await countSettlements(api.app.services.db, request.payableId)).to.equal(0);
  });

  it('answers the same page for an unknown request, a malformed id and a workspace that is not the request\'s', async () => {
    const request = await brunoAsks();
    const unknown = new URL(`/account/approval-requests/${randomUUID()}?workspace_id=${WS}`, api.app.url);
    expect((await review(unknown, 'ana@demo.test')).status).to.equal(404);
    expect((await open(new URL(`/account/approval-requests/not-an-id?workspace_id=${WS}`, api.app.url))).status).to.equal(404);
    expect((await open(new URL(`/account/approval-requests/${request.id}`, api.app.url))).status).to.equal(404);
    const elsewhere = new URL(`/account/approval-requests/${request.id}?workspace_id=${DEMO.workspaces.filial}`, api.app.url);
    const page = await open(elsewhere);
    const answer = await post(elsewhere, { csrf: field(page.html, 'csrf') as string, workspace_id: DEMO.workspaces.filial, step: 'review', email: 'ana@demo.test', password: DEMO_PASSWORD });
    expect(answer.status).to.equal(404);
  });
});
