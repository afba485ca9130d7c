/**
 * The approval link's page (docs/security.md#approval-links): `GET /account/approvals/:id` shows
 * the exact sentence of the destructive call, a sign-in form and a Deny button; `POST` approves
 * it when the person who signs in is the person the call was made for, or records the Deny (no
 * sign-in: it can only stop the call). An agent holding only its token cannot
 * approve: the page wants the person's own sign-in. Same CSRF, Origin and header rules as the
 * sign-in pages: the address's failed-authentication limit is consulted before the password is
 * checked, and failed sign-ins count against it.
 */
import Router, { type RouterContext } from '@koa/router';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { HttpError } from '../http/errors.js';
import type { AuthLimits } from '../http/limits.js';
import type { AppState } from '../http/app-state.js';
import { APPROVAL_PATH, type ApprovalDecision, type ApprovalLinks, type StoredApproval } from './approvals.js';
import { credentialsOf, signInWithinLimit, type Credentials } from './people.js';
import { escapeHtml, renderPage, renderRefusalsAsPages, sendPage, type Page } from './pages.js';
import { createFormPostGuard, readForm, type FormPostGuard } from './form.js';

export interface ApprovalPageOptions {
  readonly db: Kysely<Database>;
  readonly approvals: ApprovalLinks;
  readonly publicUrl: string;
  readonly csrfKey: string;
  readonly demoSignIn: boolean;
  readonly limits: AuthLimits;
  /** The process's clock (src/runtime/clock.ts), in milliseconds. */
  readonly now: () => number;
}

type PageContext = RouterContext<AppState>;

/** What the handlers of the page share, built once per router. */
interface ApprovalPages {
  readonly options: ApprovalPageOptions;
  readonly guard: FormPostGuard;
}

export function createApprovalRouter(options: ApprovalPageOptions): Router<AppState> {
  const pages: ApprovalPages = { options, guard: createFormPostGuard(options.csrfKey, 'approval', options.publicUrl) };
  const router = new Router<AppState>({ prefix: APPROVAL_PATH });
  router.use(renderRefusalsAsPages('Approval failed'));
  router.get('/:id', (ctx) => showApproval(pages, ctx));
  router.post('/:id', (ctx) => answerApproval(pages, ctx));
  return router;
}


/** `GET /:id`: the pending approval's page, or what became of it. */
async function showApproval(pages: ApprovalPages, ctx: PageContext): Promise<void> {
  const id = ctx.params.id as string;
  const approval = await liveApproval(pages, id);
  sendPage(ctx, isAnswered(approval) ? answeredPage(approval) : approvalPage(pages, id, approval));
}

/** `POST /:id`: Deny (no sign-in), or the person's sign-in that approves. */
async function answerApproval(pages: ApprovalPages, ctx: PageContext): Promise<void> {
  const id = ctx.params.id as string;
  const form = await readForm(ctx);
  if (!pages.guard.fromOwnOrigin(ctx) || !pages.guard.carriesToken(form, id)) {
    throw new HttpError(403, 'The form has expired; open the link again.');
  }
  const approval = await liveApproval(pages, id);
  if (isAnswered(approval)) {
    sendPage(ctx, answeredPage(approval));
    return;
  }
  // Saying no needs no sign-in: it can only stop the call it names.
  if (form.get('decision') === 'deny') {
    await recordAnswer(pages, id, 'denied');
    sendPage(ctx, deniedPage());
    return;
  }
  await approveAsTheAsker(pages, ctx, id, approval, credentialsOf(form));
}

/** Approves once the person who signs in is the person, in the organization, the call was made for. */
async function approveAsTheAsker(pages: ApprovalPages, ctx: PageContext, id: string, approval: StoredApproval, credentials: Credentials): Promise<void> {
  const { db, limits, demoSignIn } = pages.options;
  const result = await signInWithinLimit(db, limits, ctx.ip, credentials, demoSignIn);
  if (!result.ok) {
    sendPage(ctx, approvalPage(pages, id, approval, 'Wrong email or password.'), 401);
    return;
  }
  if (result.person.personId !== approval.personId || result.person.organizationId !== approval.organizationId) {
    throw new HttpError(403, 'This action was asked for by someone else; only that person can approve it.');
  }
  await recordAnswer(pages, id, 'approved');
  sendPage(ctx, renderPage('Approved', '<h1>Approved</h1><p>Go back to your assistant: it can now do it once.</p>'));
}

const gone = () => new HttpError(404, 'This approval link has expired or does not exist. Ask your assistant to try again.');

async function liveApproval(pages: ApprovalPages, id: string): Promise<StoredApproval> {
  const approval = await pages.options.approvals.read(id);
  if (approval === undefined) throw gone();
  return approval;
}

async function recordAnswer(pages: ApprovalPages, id: string, decision: ApprovalDecision): Promise<void> {
  if (!(await pages.options.approvals.answer(id, decision))) throw gone();
}

/** Answered or used: its page only says so. */
const isAnswered = (approval: StoredApproval): boolean => approval.approved || approval.denied === true || approval.used;

function answeredPage(approval: StoredApproval): Page {
  if (approval.denied === true) return deniedPage();
  if (approval.used) return renderPage('Done', '<h1>Done</h1><p>This approval has been used; a new request needs a new link.</p>');
  return renderPage('Approved', '<h1>Approved</h1><p>Your assistant can now do it once.</p>');
}

function deniedPage(): Page {
  return renderPage('Denied', '<h1>Denied</h1><p>Nothing was changed. Your assistant is told you said no.</p>');
}

/** The pending approval: the call's sentence, the sign-in form that approves it, and Deny. */
function approvalPage(pages: ApprovalPages, id: string, approval: StoredApproval, error?: string): Page {
  const minutes = Math.max(1, Math.round((approval.expiresAt - pages.options.now() / 1000) / 60));
  const action = `${APPROVAL_PATH}/${escapeHtml(id)}`;
  const csrf = escapeHtml(pages.guard.token(id));
  return renderPage('Approve an action', `<h1>Approve an action</h1>
<p>Your assistant asked to do this, and needs your approval:</p>
<p><strong>${escapeHtml(approval.message)}</strong></p>
<p class="muted">It can then do it once, with exactly these details, within about ${minutes} minute(s).</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${csrf}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button class="primary" type="submit" name="decision" value="approve">Sign in and approve</button>
</form>
<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${csrf}">
<button type="submit" name="decision" value="deny">Deny</button>
</form>`);
}
