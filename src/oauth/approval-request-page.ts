/**
 * The embedded Account's approval-request page (docs/security.md#approval-requests): the second
 * person of a money move above the approval threshold decides it here, in a browser, instead of
 * over REST. `GET /account/approval-requests/:id?workspace_id=` shows only a sign-in form —
 * nothing of the request is shown to whoever holds the link. `POST` with the person's email and
 * password (`step=review`) shows the request as `approvals.get` answers it to that person (so a
 * person who may not decide it sees nothing), and, when they may decide it, Approve and Reject.
 * Those post a decision ticket — an HMAC under the shared cookie key of the request, workspace,
 * person and a 10-minute expiry — and run `approvals.approve` / `approvals.reject` through
 * `execute` as that person on the `web` channel: the same checks as REST (never the requester,
 * `approvals.approve` and the move's own permission, the workspace grant, the record's version
 * and the limits re-checked, exactly once across replicas). The ticket is the decision's
 * Idempotency-Key, so a form posted twice answers the first decision. Same CSRF, Origin, header
 * and failed-sign-in rules as the other pages.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import Router, { type RouterContext } from '@koa/router';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Caller, Channel, Identity } from '../identity/caller.js';
import { ALL_READ_SCOPE, ALL_WRITE_SCOPE, APPROVALS_WRITE_SCOPE, MONEY_WRITE_SCOPE } from '../identity/scopes.js';
import { ApiError, formatBrl, type OperationService } from '../api/index.js';
import { HttpError } from '../http/errors.js';
import { API_ERROR_STATUS } from '../http/rest-error-status.js';
import type { AuthLimits } from '../http/limits.js';
import type { AppState } from '../http/app-state.js';
import { credentialsOf, describePerson, signInWithinLimit, type SignedInPerson } from './people.js';
import { escapeHtml, renderPage, renderRefusalsAsPages, sendPage, type Page } from './pages.js';
import { createFormPostGuard, readForm, type FormPostGuard } from './form.js';

export const APPROVAL_REQUEST_PATH = '/account/approval-requests';

/** The page of one request: `ctx.approvalPageUrl` of the operations (src/api/context.ts). */
export function approvalRequestUrl(publicUrl: string, workspaceId: string, approvalRequestId: string): string {
  const url = new URL(`${APPROVAL_REQUEST_PATH}/${encodeURIComponent(approvalRequestId)}`, publicUrl);
  url.searchParams.set('workspace_id', workspaceId);
  return url.toString();
}

export interface ApprovalRequestPageOptions {
  readonly db: Kysely<Database>;
  readonly operations: OperationService;
  /** src/auth's membership loader: the person who signed in, as every surface sees a caller. */
  readonly loadCaller: (identity: Identity, channel: Channel) => Promise<Caller>;
  readonly publicUrl: string;
  readonly csrfKey: string;
  readonly demoSignIn: boolean;
  readonly limits: AuthLimits;
  /** The process's clock (src/runtime/clock.ts), in milliseconds. */
  readonly now: () => number;
}

/** What the panel may do for the person who signed in, on this page's three operations only. */
const WEB_SCOPES: ReadonlySet<string> = new Set([ALL_READ_SCOPE, ALL_WRITE_SCOPE, MONEY_WRITE_SCOPE, 'finance.approvals', APPROVALS_WRITE_SCOPE]);
const WEB_TOKEN_ID = 'approval-request-page';
/** How long the Approve and Reject buttons work after the sign-in that showed them. */
const TICKET_TTL_MS = 10 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_REASON = 500;
/** Refusals that say the person cannot see the request here: answered as a request that does not exist. */
const HIDDEN: ReadonlySet<string> = new Set(['NOT_FOUND', 'workspace_access_denied', 'membership_inactive', 'insufficient_scope', 'workspace_required']);

type PageContext = RouterContext<AppState>;

interface Pages {
  readonly options: ApprovalRequestPageOptions;
  readonly guard: FormPostGuard;
  readonly ticketKey: string;
}

/** Where the page is: one request of one workspace. */
interface Target {
  readonly id: string;
  readonly workspaceId: string;
}

export function createApprovalRequestRouter(options: ApprovalRequestPageOptions): Router<AppState> {
  const pages: Pages = {
    options,
    guard: createFormPostGuard(options.csrfKey, 'approval-request', options.publicUrl),
    ticketKey: createHmac('sha256', options.csrfKey).update('approval-request-ticket').digest('base64url'),
  };
  const router = new Router<AppState>({ prefix: APPROVAL_REQUEST_PATH });
  router.use(renderRefusalsAsPages('Approval request'));
  router.get('/:id', (ctx) => showSignIn(pages, ctx));
  router.post('/:id', (ctx) => answer(pages, ctx));
  return router;
}


const notShown = () => new HttpError(404, 'This approval request does not exist, or you cannot decide it. Ask the person who asked for it.');

function targetOf(ctx: PageContext, workspaceId: string | null | undefined): Target {
  const id = ctx.params.id ?? '';
  if (!UUID.test(id) || typeof workspaceId !== 'string' || !UUID.test(workspaceId)) throw notShown();
  return { id: id.toLowerCase(), workspaceId: workspaceId.toLowerCase() };
}

const queryWorkspace = (ctx: PageContext): string | undefined => {
  const value = ctx.query['workspace_id'];
  return typeof value === 'string' ? value : undefined;
};

/** `GET /:id`: the sign-in form, and nothing of the request. */
function showSignIn(pages: Pages, ctx: PageContext): void {
  sendPage(ctx, signInPage(pages, targetOf(ctx, queryWorkspace(ctx))));
}

async function answer(pages: Pages, ctx: PageContext): Promise<void> {
  const form = await readForm(ctx);
  const target = targetOf(ctx, form.get('workspace_id'));
  if (!pages.guard.fromOwnOrigin(ctx) || !pages.guard.carriesToken(form, `${target.workspaceId}:${target.id}`)) {
    throw new HttpError(403, 'The form has expired; open the link again.');
  }
  const decision = form.get('decision');
  if (decision === 'approve' || decision === 'reject') {
    await decide(pages, ctx, target, form, decision);
    return;
  }
  await review(pages, ctx, target, form);
}

/** The sign-in (`step=review`): the request as this person may see it, with its buttons when they may decide it. */
async function review(pages: Pages, ctx: PageContext, target: Target, form: URLSearchParams): Promise<void> {
  const { db, limits, demoSignIn } = pages.options;
  const result = await signInWithinLimit(db, limits, ctx.ip, credentialsOf(form), demoSignIn);
  if (!result.ok) {
    sendPage(ctx, signInPage(pages, target, 'Wrong email or password.'), 401);
    return;
  }
  const request = await run(pages, result.person, target, 'approvals.get');
  sendPage(ctx, await requestPage(pages, target, result.person, request));
}

/** Approve or Reject, with the ticket the review's page carried. */
async function decide(pages: Pages, ctx: PageContext, target: Target, form: URLSearchParams, decision: 'approve' | 'reject'): Promise<void> {
  const ticket = form.get('ticket') ?? '';
  const person = readTicket(pages, target, ticket);
  if (person === null) throw new HttpError(403, 'These buttons have expired; open the link again and sign in.');
  const reason = (form.get('reason') ?? '').trim();
  if (reason.length > MAX_REASON) throw new HttpError(400, `The reason is too long (at most ${MAX_REASON} characters).`);
  // The ticket is used once per decision: posting the form twice answers the first decision.
  const idempotencyKey = createHash('sha256').update(`${decision}:${ticket}`).digest('base64url');
  const body = decision === 'reject' && reason !== '' ? { reason } : undefined;
  const decided = await decideOnce(pages, person, target, decision, { idempotencyKey, body });
  const status = String(decided['status']);
  const heading = status === 'approved' ? 'Approved' : 'Rejected';
  const said = status === 'approved'
    ? 'The money move ran once, as the person who asked for it.'
    : 'The money move will not run. The person who asked for it can see why.';
  sendPage(ctx, renderPage(heading, `<h1>${heading}</h1><p><strong>${escapeHtml(String(decided['description']))}</strong></p><p>${said}</p>`));
}

/**
 * The decision, or — when the form was posted twice at once and the other post won (its claim
 * made this one's CONFLICT: already approved/rejected) — the request as that decision left it,
 * when it was this person's same decision: a double click answers the first decision, never an error.
 */
async function decideOnce(
  pages: Pages, person: SignedInPerson, target: Target, decision: 'approve' | 'reject', extra: { readonly idempotencyKey: string; readonly body: unknown },
): Promise<Record<string, unknown>> {
  const status = decision === 'approve' ? 'approved' : 'rejected';
  try {
    return await run(pages, person, target, decision === 'approve' ? 'approvals.approve' : 'approvals.reject', extra, { passConflicts: true });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'CONFLICT' || error.details?.['status'] !== status) throw asPageError(error);
    const request = await run(pages, person, target, 'approvals.get');
    if (request['status'] !== status || request['decided_by'] !== person.personId) throw asPageError(error);
    return request;
  }
}

/** An ApiError of a decision as the page's refusal: what the API says, with the REST status. */
function asPageError(error: unknown): unknown {
  return error instanceof ApiError ? new HttpError(API_ERROR_STATUS[error.code], error.message) : error;
}

/**
 * One of the page's operations as the person, on the `web` channel. A refusal of what the person
 * may see answers the same page as a request that does not exist; one of the decision (a
 * changed record, a limit, already decided) says what the API says.
 */
async function run(
  pages: Pages, person: SignedInPerson, target: Target, operationId: 'approvals.get' | 'approvals.approve' | 'approvals.reject',
  extra: { readonly idempotencyKey?: string; readonly body?: unknown } = {},
  options: { readonly passConflicts?: boolean } = {},
): Promise<Record<string, unknown>> {
  const identity: Identity = { personId: person.personId, organizationId: person.organizationId, scopes: WEB_SCOPES, tokenType: 'personal', tokenId: WEB_TOKEN_ID, expiresAt: 0 };
  const caller = await pages.options.loadCaller(identity, 'web');
  try {
    const result = await pages.options.operations.execute({
      operationId, caller, workspace: { connectionDefault: target.workspaceId },
      input: {
        path: { id: target.id }, query: {},
        ...(extra.idempotencyKey === undefined ? {} : { idempotencyKey: extra.idempotencyKey }),
        ...(extra.body === undefined ? {} : { body: extra.body }),
      },
    });
    if (result.kind !== 'done') throw new Error(`${operationId} on the approval page did not finish`);
    return result.output.body as Record<string, unknown>;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (HIDDEN.has(error.code) || (error.code === 'insufficient_permission' && operationId === 'approvals.get')) throw notShown();
    if (error.code === 'RATE_LIMITED' || error.code === 'SERVICE_UNAVAILABLE') throw new HttpError(503, 'The service is busy; try again in a moment. Nothing was changed.');
    if (options.passConflicts && error.code === 'CONFLICT') throw error;
    throw asPageError(error);
  }
}

function ticketMac(pages: Pages, target: Target, personId: string, organizationId: string, expiresAt: number): string {
  return createHmac('sha256', pages.ticketKey).update(`${target.workspaceId}:${target.id}:${personId}:${organizationId}:${expiresAt}`).digest('base64url');
}

function makeTicket(pages: Pages, target: Target, person: SignedInPerson): string {
  const expiresAt = pages.options.now() + TICKET_TTL_MS;
  return [person.personId, person.organizationId, String(expiresAt), ticketMac(pages, target, person.personId, person.organizationId, expiresAt)].join('.');
}

/** The person a live ticket of this request was made for, or null. */
function readTicket(pages: Pages, target: Target, ticket: string): SignedInPerson | null {
  const [personId, organizationId, expires, mac, ...rest] = ticket.split('.');
  if (rest.length > 0 || personId === undefined || organizationId === undefined || expires === undefined || mac === undefined) return null;
  if (!UUID.test(personId) || !UUID.test(organizationId) || !/^\d{1,16}$/.test(expires)) return null;
  const expiresAt = Number(expires);
  if (expiresAt <= pages.options.now()) return null;
  const given = Buffer.from(mac);
  const expected = Buffer.from(ticketMac(pages, target, personId, organizationId, expiresAt));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { personId, organizationId };
}

function hiddenFields(pages: Pages, target: Target): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(pages.guard.token(`${target.workspaceId}:${target.id}`))}">
<input type="hidden" name="workspace_id" value="${escapeHtml(target.workspaceId)}">`;
}

const actionOf = (target: Target): string => `${APPROVAL_REQUEST_PATH}/${escapeHtml(target.id)}`;

function signInPage(pages: Pages, target: Target, error?: string): Page {
  return renderPage('Approval request', `<h1>A money move waits for a second person</h1>
<p>Sign in to see what it will do, and to approve or reject it if you may.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${actionOf(target)}">
${hiddenFields(pages, target)}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit" name="step" value="review">Sign in</button>
</form>`);
}

/** A wire amount (`"4800.00"`) as people read it (`R$ 4.800,00`). */
function brl(amount: unknown): string {
  const text = String(amount);
  return /^\d{1,12}\.\d{2}$/.test(text) ? formatBrl(Number(text.replace('.', ''))) : text;
}

/** `2026-12-05T18:28:26.685Z` → `2026-12-05 18:28 UTC`. */
const instant = (value: unknown): string => String(value).replace(/^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}).*Z$/, '$1 $2 UTC');

const STATUS_WORDS: Readonly<Record<string, string>> = {
  pending_approval: 'Waiting for approval', approved: 'Approved', rejected: 'Rejected', expired: 'Expired',
};

/** The request as `approvals.get` answered it to the person, and what they may do with it. */
async function requestPage(pages: Pages, target: Target, person: SignedInPerson, request: Record<string, unknown>): Promise<Page> {
  const requester = await describePerson(pages.options.db, String(request['requested_by']), person.organizationId);
  const items = Array.isArray(request['items']) ? request['items'] as readonly Record<string, unknown>[] : [];
  const status = String(request['status']);
  const details = `<h1>Approval request</h1>
<p><strong>${escapeHtml(String(request['description']))}</strong></p>
<ul>
<li>Total: ${escapeHtml(brl(request['amount']))}</li>
<li>Asked by: ${escapeHtml(requester?.name ?? 'a former member')} (${escapeHtml(String(request['requested_via']).toUpperCase())})</li>
<li>Status: ${escapeHtml(STATUS_WORDS[status] ?? status)}</li>
<li>Expires: ${escapeHtml(instant(request['expires_at']))}</li>
</ul>
${items.length > 1 ? `<p class="muted">${items.length} items:</p><ul>${items.map((item) => `<li>${escapeHtml(String(item['label']))}: ${escapeHtml(brl(item['amount']))}</li>`).join('')}</ul>` : ''}`;
  if (status !== 'pending_approval') return renderPage('Approval request', `${details}<p>Nothing more can be done with it.</p>`);
  if (request['requested_by'] === person.personId) {
    return renderPage('Approval request', `${details}<p>You asked for this money move: another person must approve or reject it.</p>`);
  }
  const ticket = escapeHtml(makeTicket(pages, target, person));
  return renderPage('Approval request', `${details}
<p class="muted">Approving runs it once, now, exactly as asked. These buttons work for 10 minutes.</p>
<form method="post" action="${actionOf(target)}">
${hiddenFields(pages, target)}
<input type="hidden" name="ticket" value="${ticket}">
<button class="primary" type="submit" name="decision" value="approve">Approve</button>
</form>
<form method="post" action="${actionOf(target)}">
${hiddenFields(pages, target)}
<input type="hidden" name="ticket" value="${ticket}">
<label for="reason">Reason (optional, shown to the person who asked)</label><input id="reason" name="reason" type="text" maxlength="${MAX_REASON}">
<button type="submit" name="decision" value="reject">Reject</button>
</form>`);
}
